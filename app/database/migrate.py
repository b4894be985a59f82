"""Schema migrations: Alembic on the service's own engine, for the commands that migrate (a
serving process never imports it: revisions.py tells whether the schema is behind)."""

import contextlib
import importlib.util
import sys

import click
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import TypeDecorator, inspect, text

from .revisions import SCRIPT_LOCATION

# Any constant works; it only has to be the same in every process that migrates.
SCHEMA_LOCK_KEY = 0x706C616E7473


class SchemaMismatch(click.ClickException):
    """An unversioned database whose tables are not the first revision's: not adopted."""


def alembic_config(connection=None):
    """Alembic's settings, built in code: no alembic.ini to ship or to find."""
    # Config's own default is the sys.stdout of import time, which click's test runner replaces.
    config = Config(stdout=sys.stdout)
    config.set_main_option("script_location", str(SCRIPT_LOCATION))
    config.set_main_option("path_separator", "os")
    config.attributes["connection"] = connection
    # New revisions come out as `make lint` wants them, where ruff (a test tool) is installed.
    if importlib.util.find_spec("ruff"):
        config.set_section_option("post_write_hooks", "hooks", "ruff")
        config.set_section_option("post_write_hooks", "ruff.type", "module")
        config.set_section_option("post_write_hooks", "ruff.module", "ruff")
        config.set_section_option(
            "post_write_hooks", "ruff.options", "format REVISION_SCRIPT_FILENAME"
        )
    return config


def script_directory():
    """The revisions shipped with the code."""
    return ScriptDirectory.from_config(alembic_config())


def render_item(type_, obj, autogen_context):
    """Render the service's TypeDecorators as their SQL type, so a revision needs no app import."""
    if type_ == "type" and isinstance(obj, TypeDecorator):
        return f"sa.{obj.impl!r}"
    return False


@contextlib.contextmanager
def schema_lock(db):
    """A transaction holding the schema lock: processes that migrate at once take turns."""
    # PostgreSQL's advisory lock spans hosts; SQLite's writers already queue on one lock.
    with db.schema_transaction() as conn:
        if not db.is_sqlite:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
        yield conn


def upgrade(db, revision="head"):
    """Upgrade to revision, adopting a database made by 1.0's init-db first."""
    with schema_lock(db) as conn:
        config = alembic_config(conn)
        _adopt(conn, config)
        command.upgrade(config, revision)


def downgrade(db, revision):
    """Downgrade to revision, under the same lock as an upgrade."""
    with schema_lock(db) as conn:
        command.downgrade(alembic_config(conn), revision)


def _adopt(conn, config):
    # 1.0's init-db made the tables with no alembic_version: stamp them if they are the baseline.
    context = MigrationContext.configure(conn)
    tables = set(inspect(conn).get_table_names()) - {context.version_table}
    if context.get_current_heads() or not tables:
        return
    script = script_directory()
    baseline = script.get_revision(script.get_base())
    # The baseline revision keeps 1.0's tables as a MetaData of its own, to compare with.
    frozen = baseline.module.metadata
    if not tables & set(frozen.tables):
        return
    differences = compare_metadata(
        MigrationContext.configure(conn, opts={"include_name": _ours(frozen)}), frozen
    )
    if differences:
        raise SchemaMismatch(
            f"Not adopted, nothing changed: the database's tables differ from revision "
            f"{baseline.revision}: {'; '.join(_describe(d) for d in differences)}."
        )
    command.stamp(config, baseline.revision)


def _ours(metadata):
    # A table of someone else's in the same database is none of the adoption's business.
    def include_name(name, type_, _parent_names):
        return type_ != "table" or name in metadata.tables

    return include_name


def _describe(difference):
    # compare_metadata groups the changes to one column in a list.
    if isinstance(difference, list):
        return "; ".join(_describe(item) for item in difference)
    kind, *details = difference
    if kind.startswith("modify_"):
        _schema, table, column, _existing, found, expected = details
        return f"{table}.{column} has {kind[7:]} {found!r}, not {expected!r}"
    if kind in ("add_column", "remove_column"):
        name = f"column {details[1]}.{details[2].name}"
    elif kind.endswith("_constraint") and not details[0].name:
        # SQLite reports a UNIQUE constraint without a name: name it by its columns.
        columns = ", ".join(column.name for column in details[0].columns)
        name = f"unique constraint on {details[0].table.name} ({columns})"
    else:
        name = f"{kind.split('_', 1)[1]} {details[0].name}"
    return f"{name} is missing" if kind.startswith("add_") else f"{name} is not in the revision"
