"""The database: its settings (settings.py), its engine and the one way in (access.py), its
failures told apart (failures.py), the SQLite writers' lock, the schema's migrations and the
database's commands."""

from . import commands, revisions, settings
from .access import EXTENSION, Database, get_db, of
from .clock import Later, Now, later, now
from .failures import DatabaseFailure, Locked, SchemaBehind, SchemaMissing, Unavailable
from .sql import (
    INSERTS,
    Statement,
    inline,
    metadata,
    utcnow,
)

__all__ = [
    "INSERTS",
    "Database",
    "DatabaseFailure",
    "Later",
    "Locked",
    "Now",
    "SchemaBehind",
    "SchemaMissing",
    "Statement",
    "Unavailable",
    "get_db",
    "inline",
    "later",
    "metadata",
    "now",
    "of",
    "schema_of",
    "utcnow",
]

# Where the app keeps its SchemaState.
SCHEMA = "plantstore.schema"


def schema_of(app):
    """The SchemaState of app: its revision against the service's migrations."""
    return app.extensions[SCHEMA]


def init_app(app):
    """Create the app's engine (it connects on first use), its schema state and its commands."""
    settings.init_app(app)
    db = app.extensions[EXTENSION] = Database(app.config)
    app.extensions[SCHEMA] = revisions.SchemaState(db, app.logger)
    app.cli.add_command(commands.init_db_command)
    app.cli.add_command(commands.db_cli)
