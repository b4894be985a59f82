"""One clock, the database's: the time every decision is made by and every row keeps.

On PostgreSQL the statement that decides reads the clock itself, as pgq, River and Oban do, so
that hosts whose clocks differ decide alike: ``statement_timestamp()``, the clock as the
statement began, which is stable within it (``clock_timestamp()`` is volatile, and a comparison
with it bounds no index scan: a claim or a retention pass would read every row of a receiver).
SQLite is one host's file, and that host's clock the only one: there ``Statement`` binds it.
Either way a caller binds no time, only the seconds of a ``Now(key, later=True)``.
"""

import datetime

from sqlalchemy import TypeDecorator, bindparam, select
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.sql.visitors import InternalTraversal

from .column_types import UTCDateTime
from .sql import Statement, utcnow


class Now(ColumnElement):
    """The time now in a statement, or the seconds bound as key after it (``Now("until",
    later=True)``, None for none): on PostgreSQL the database's clock; on SQLite the host's,
    which Statement binds as key (a Now's own key it fills without being asked)."""

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
    # A Now's own key is bound with no value of the caller's: Statement fills it (HostTime.fill).
    kind = HostTime(None if element.later else 0)
    return compiler.process(bindparam(element.key, type_=kind), **kw)


class HostTime(TypeDecorator):
    """On SQLite, seconds bound as the host's time that many seconds from now (None as none);
    fill is the seconds a parameter the caller left out is bound as (None: left out)."""

    impl = UTCDateTime
    cache_ok = True

    def __init__(self, fill):
        super().__init__()
        self.fill = fill

    def bind_processor(self, dialect):
        """Seconds bound as the time that many seconds from now, as SQLite keeps a time (the
        text UTCDateTime writes), made in one step: every create binds one."""

        def process(seconds):
            if seconds is None:
                return None
            now = utcnow()
            if seconds:
                now += datetime.timedelta(seconds=seconds)
            # sqlite_text's digits, of a time already in UTC: no conversion at each create.
            return now.isoformat(" ", "microseconds")[:26]

        return process


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
    LATER.execute(cursor, {"seconds": float(seconds)})
    return LATER.value(cursor)
