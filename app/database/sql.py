"""What every table module shares: the MetaData, the time type, and SQL compiled per driver."""

import collections
import datetime

from sqlalchemy import DateTime, MetaData, TypeDecorator, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.postgresql import psycopg

# Every table of the service, wherever its feature defines it; Alembic compares with this.
metadata = MetaData()

DIALECTS = {"sqlite": sqlite.dialect(paramstyle="named"), "postgresql": psycopg.dialect()}


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


def driver_sql(statement, **compile_options):
    """A statement (SQL with ``:name`` parameters, or Core) as each driver takes it.

    Both drivers then take the values as a dict.
    """
    if isinstance(statement, str):
        statement = text(statement)
    return {
        name: str(statement.compile(dialect=dialect, **compile_options))
        for name, dialect in DIALECTS.items()
    }


class Statement:
    """A Core statement built from its Table, compiled once per backend (``statement[dialect]``
    is the SQL a driver cursor takes), whose rows are read by name: ``rows`` and ``row`` give
    records of a named tuple made once, from the columns the statement returns."""

    def __init__(self, statement, name="Row", **compile_options):
        self.sql = driver_sql(statement, **compile_options)
        columns = [column.key for column in statement.exported_columns]
        self.record = collections.namedtuple(name, columns) if columns else None

    def __getitem__(self, dialect):
        return self.sql[dialect]

    def rows(self, cursor):
        """Every row the cursor's last execution of this statement returned, as records."""
        make = self.record._make
        return [make(row) for row in cursor.fetchall()]

    def row(self, cursor):
        """The first row the cursor's last execution returned as a record, or None."""
        found = cursor.fetchone()
        return None if found is None else self.record._make(found)


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
