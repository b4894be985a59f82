"""What every table module shares: the MetaData, the time type, and Statement, the one way a
statement is compiled per driver and its rows are read, by column name."""

import collections
import datetime
import functools

from sqlalchemy import DateTime, Integer, MetaData, String, TypeDecorator, literal_column
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import psycopg
from sqlalchemy.dialects.sqlite import base as sqlite_base

# Every table of the service, wherever its feature defines it; Alembic compares with this.
metadata = MetaData()


class _SQLiteCompiler(sqlite_base.SQLiteCompiler):
    """SQLite's compiler, without the OFFSET 0 that SQLAlchemy adds to a LIMIT as a parameter of
    its own, which no driver cursor is given (SQLite takes a LIMIT alone)."""

    def limit_clause(self, select, **kw):
        if select._offset_clause is None and select._limit_clause is not None:
            return "\n LIMIT " + self.process(select._limit_clause, **kw)
        return super().limit_clause(select, **kw)


class _SQLite(sqlite.dialect):
    statement_compiler = _SQLiteCompiler


DIALECTS = {"sqlite": _SQLite(paramstyle="named"), "postgresql": psycopg.dialect()}
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


def _columns(statement):
    """The names of the columns a Core statement's rows hold, in order (its SELECT list, or
    its RETURNING list)."""
    return tuple(statement.exported_columns.keys())


class Statement:
    """A Core statement built from its Table, compiled once per backend (``statement[dialect]``
    is the SQL a driver cursor takes), whose rows are read by name: ``rows`` and ``row`` give
    records of a named tuple made once from the columns the statement returns, or of the
    record given, whose fields must be those columns, or dicts of them (record=dict)."""

    def __init__(self, statement, name="Row", record=None, **compile_options):
        each = per_backend(statement)
        compiled = {
            dialect: each[dialect].compile(dialect=DIALECTS[dialect], **compile_options)
            for dialect in DIALECTS
        }
        # A value held in the statement would need passing on every call: write it as SQL.
        held = {
            key
            for each in compiled.values()
            for key, value in each.params.items()
            if value is not None
        }
        if held:
            raise ValueError(f"parameters with values of their own: {sorted(held)}")
        self.sql = {dialect: str(each) for dialect, each in compiled.items()}
        columns = _columns(each["sqlite"])
        if record is dict:
            self.make = functools.partial(_as_dict, columns)
        else:
            if record is not None and record._fields != columns:
                raise ValueError(f"{record.__name__} has {record._fields}, the statement {columns}")
            record = record or (collections.namedtuple(name, columns) if columns else None)
            self.make = record and record._make

    def __getitem__(self, dialect):
        return self.sql[dialect]

    def rows(self, cursor):
        """Every row the cursor's last execution of this statement returned, as records."""
        make = self.make
        return [make(row) for row in cursor.fetchall()]

    def row(self, cursor):
        """The first row the cursor's last execution returned as a record, or None; the rows
        after it are read too, so that SQLite ends a RETURNING statement."""
        found = cursor.fetchall()
        return self.make(found[0]) if found else None


def _as_dict(columns, row):
    return dict(zip(columns, row, strict=True))


def postgresql_default(column, sql):
    """column, whose server default on PostgreSQL is sql instead of its own (the migrations set
    it, as the functions it may call; Alembic compares neither)."""
    column.info["postgresql_default"] = sql
    return column


def postgresql_only(index):
    """index, built on PostgreSQL alone (create_all, the migrations, and the comparisons of
    the schema, through of_backend, leave it out elsewhere)."""
    index.info["backend"] = "postgresql"
    return index.ddl_if(dialect="postgresql")


def server_defaults_of(name):
    """Alembic's compare_server_default for a database of the backend name: a default the
    migrations set on PostgreSQL (postgresql_default) is theirs, as are the functions it calls,
    and is not compared there; every other is, as Alembic compares."""

    def differs(_context, _inspected, column, _found, _expected, _rendered):
        return False if name == "postgresql" and "postgresql_default" in column.info else None

    return differs


def of_backend(name):
    """Alembic's include_object for a database of the backend name: what only another backend
    builds (postgresql_only) is left out of its comparisons."""

    def include_object(item, _name, _type, _reflected, _compare_to):
        return getattr(item, "info", {}).get("backend", name) == name

    return include_object


def inline(value):
    """A status, message or number written into a statement's SQL, not bound: a Statement is
    compiled once, before it has any value, and holds none of its own."""
    if isinstance(value, str):
        return literal_column("'{}'".format(value.replace("'", "''")), String)
    return literal_column(str(value), Integer)


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)
