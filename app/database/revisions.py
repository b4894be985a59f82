"""The revisions the code ships, read without Alembic, against those the database is at: what a
serving process asks at start and /healthz asks on each check. Alembic itself (migrate.py, a
quarter of a second to import) is for the commands that migrate."""

import ast
import functools
import pathlib

from sqlalchemy import column, select, table

from .cli_base import invoked_as
from .failures import DatabaseFailure, SchemaMissing, StatementPooling
from .sql import Statement

# Inside the package, so that an installed service carries its revisions.
SCRIPT_LOCATION = pathlib.Path(__file__).with_name("migrations")
# Alembic's own version table (not one of the service's MetaData), read as every other
# statement is, on a driver cursor.
CURRENT_REVISIONS = Statement(select(column("version_num")).select_from(table("alembic_version")))


def upgrade_hint():
    """What to run to bring the schema up to the code's revisions."""
    return f"run `{invoked_as()} db upgrade`"


@functools.cache  # once per process: the files change with the code, in a release
def shipped():
    """The heads of the revisions shipped with the code, and every one of them, as Alembic
    reads them: a head is a revision that no other one revises."""
    revises = dict(_header(path) for path in (SCRIPT_LOCATION / "versions").glob("*.py"))
    revised = {
        name
        for down in revises.values()
        for name in ((down,) if isinstance(down, str) else down or ())
    }
    return frozenset(revises) - revised, frozenset(revises)


def _header(path):
    # The literals a revision file (script.py.mako) assigns to revision and down_revision.
    found = {
        target.id: ast.literal_eval(node.value)
        for node in ast.parse(path.read_bytes(), str(path)).body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id in ("revision", "down_revision")
    }
    return found["revision"], found["down_revision"]


class SchemaState:
    """Whether the database is behind the code's revisions, as /healthz and start-up ask."""

    def __init__(self, db, logger):
        self.heads, self.known = shipped()
        self.db = db
        self.logger = logger
        self._warned = False

    def is_behind(self):
        """True when the database lacks a revision of the code; logs one line when it starts."""
        current = current_revisions(self.db)
        # A revision the code does not know is newer: old code keeps serving during a release.
        behind = current != self.heads and current <= self.known
        if behind and not self._warned:
            found = ", ".join(sorted(current)) or "no revision"
            needed = ", ".join(sorted(self.heads))
            self.logger.warning(
                "database schema is out of date: it is at %s, the code needs %s: %s",
                found,
                needed,
                upgrade_hint(),
            )
        self._warned = behind
        return behind

    def check_at_start(self):
        """Log whether the schema is behind, or that the pooler runs no transaction; a database
        that does not answer is /healthz's."""
        try:
            self.is_behind()
        except StatementPooling as error:
            self.logger.error(error.hint)
        except DatabaseFailure as error:
            self.logger.warning("database schema not checked at start: %s", error.cause)


def current_revisions(db):
    """The revisions the database is at; none when it has no version table yet."""
    try:
        with db.cursor() as cursor:
            CURRENT_REVISIONS.execute(cursor)
            return frozenset(CURRENT_REVISIONS.values(cursor))
    except SchemaMissing:
        return frozenset()
