"""What every table module shares: the MetaData, the time type, SQL compiled per driver, and
rows read by column name."""

import collections
import datetime

from sqlalchemy import DateTime, MetaData, TypeDecorator, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import psycopg

# Every table of the service, wherever its feature defines it; Alembic compares with this.
metadata = MetaData()

DIALECTS = {"sqlite": sqlite.dialect(paramstyle="named"), "postgresql": psycopg.dialect()}
# Each backend's own INSERT construct, for what Core spells per backend (ON CONFLICT).
INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


class UTCDateTime(TypeDecorator):
    """A point in time, written and read back as an aware datetime in UTC on both backends."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        """Store UTC: SQLite keeps the wall-clock digits and drops the zone."""
        return value.astimezone(datetime.UTC) if value is not None else None

    def process_result_value(self, value, dialect):
        """SQLite gives back naive UTC; PostgreSQL answers in its session's time zone."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=datetime.UTC)
        return value.astimezone(datetime.UTC)


def per_backend(statement):
    """{dialect name: Core statement} of one statement for every backend, or of a mapping
    that already gives each backend its own (made with INSERTS)."""
    if isinstance(statement, dict):
        return statement
    return dict.fromkeys(DIALECTS, statement)


def driver_sql(statement, **compile_options):
    """A statement (SQL with ``:name`` parameters, a Core statement, or {dialect name: Core
    statement}) as each driver takes it.

    Both drivers then take the values as a dict.
    """
    if isinstance(statement, str):
        statement = text(statement)
    statements = per_backend(statement)
    return {
        name: str(statements[name].compile(dialect=dialect, **compile_options))
        for name, dialect in DIALECTS.items()
    }


def _columns(statement):
    """The names of the columns a Core statement's rows hold, in order (its SELECT list, or
    its RETURNING list)."""
    return tuple(statement.exported_columns.keys())


def as_dict(statement):
    """A function that reads a row of a Core statement as a dict by column name; columns the
    row holds past the statement's own are left out."""
    items = ", ".join(f"{key!r}: row[{index}]" for index, key in enumerate(_columns(statement)))
    # Compiled once, as namedtuple compiles its __new__: half the cost of dict(zip()) a row.
    return eval(f"lambda row: {{{items}}}")


def named_tuple(statement, typename):
    """A NamedTuple class of a Core statement's columns: ``_make(row)`` reads a row by name."""
    return collections.namedtuple(typename, _columns(statement))


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)


def skip_locked(sql):
    """A SELECT (SQL text) per driver, its rows locked FOR UPDATE SKIP LOCKED on PostgreSQL, so
    that workers sharing the database each take other rows.

    SQLite has no row locks: there the host's writer lock serialises whole transactions.
    """
    return {
        "sqlite": driver_sql(sql)["sqlite"],
        "postgresql": driver_sql(sql + " FOR UPDATE SKIP LOCKED")["postgresql"],
    }
