"""One clock, the database's: the time every decision is made by and every row keeps.

On PostgreSQL the statement that decides reads the clock itself, as pgq, River and Oban do, so
that hosts whose clocks differ decide alike: ``statement_timestamp()``, the clock as the
statement began, which is stable within it (``clock_timestamp()`` is volatile, and a comparison
with it bounds no index scan: a claim or a retention pass would read every row of a receiver).
SQLite is one host's file, and that host's clock the only one: there the caller binds it
(``Database.now`` and ``Database.later`` give the value each backend's parameter takes).
"""

import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal

from .column_types import UTCDateTime
from .sql import Statement, utcnow


class Now(ColumnElement):
    """The time now in a statement, or seconds after it (``Now("until", later=True)``): on
    PostgreSQL the database's clock, the seconds bound as key; on SQLite the time bound as key,
    which the caller fills with the host's (``db.now()``, ``db.later(seconds)``)."""

    inherit_cache = True
    _traverse_internals = (
        ("key", InternalTraversal.dp_string),
        ("later", InternalTraversal.dp_boolean),
    )

    def __init__(self, key="now", later=False):
        self.key = key
        self.later = later
        self.type = UTCDateTime()


@compiles(Now, "postgresql")
def _on_postgresql(element, compiler, **kw):
    if not element.later:
        return "statement_timestamp()"
    seconds = compiler.process(bindparam(element.key), **kw)
    return f"(statement_timestamp() + CAST({seconds} AS double precision) * interval '1 second')"


@compiles(Now)
def _bound(element, compiler, **kw):
    # Untyped: the caller binds db.now() or db.later(seconds), already as the driver takes it.
    return compiler.process(bindparam(element.key), **kw)


def of_backend(dialect):
    """(now, later) of a Database on dialect: the values its statements' Now parameters take,
    the time now and seconds from now, as the driver takes them (Now's parameter is untyped);
    on PostgreSQL, None and the seconds (its clock is read there)."""
    if dialect.name == "sqlite":
        bind_time = UTCDateTime().dialect_impl(dialect).bind_processor(dialect)
        return (
            lambda: bind_time(utcnow()),
            lambda seconds: bind_time(utcnow() + datetime.timedelta(seconds=seconds)),
        )
    return (lambda: None), float


# The database's time some seconds from now, for what Python must hold (a claim's lease end).
LATER = Statement(select(Now("seconds", later=True).label("at")))


class Later:
    """The database's time seconds from now, an aware datetime, read in the cursor's transaction
    when it is first asked for (calling it) and the same ever after: a round that claims
    nothing reads no clock."""

    def __init__(self, db, cursor, seconds):
        self.db, self.cursor, self.seconds = db, cursor, seconds
        self.at = None

    def __call__(self):
        if self.at is None:
            self.at = later(self.db, self.cursor, self.seconds)
        return self.at


def now(db):
    """The database's time now, as an aware datetime, for arithmetic on the times it wrote (the
    ages on /metrics); on SQLite the host's."""
    with db.cursor() as cursor:
        return later(db, cursor, 0)


def later(db, cursor, seconds):
    """The database's time seconds from now, read in the cursor's transaction, as an aware
    datetime; on SQLite the host's, with no statement."""
    if db.is_sqlite:
        return utcnow() + datetime.timedelta(seconds=seconds)
    cursor.execute(LATER[db.dialect], {"seconds": float(seconds)})
    return LATER.row(cursor).at
