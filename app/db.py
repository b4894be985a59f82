"""Database: the engine, the tables, the ways in, and the ``init-db`` command."""

import contextlib
import datetime

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    MetaData,
    String,
    Table,
    TypeDecorator,
    func,
    text,
)
from sqlalchemy.dialects import sqlite
from sqlalchemy.dialects.postgresql import psycopg
from sqlalchemy.exc import DBAPIError

from . import cli, drivers, migrate
from .hostlock import HostLock, LockTimeout


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


metadata = MetaData()

plants = Table(
    "plants",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(255), nullable=False),
    Column("tag", String(255)),
    Column("created_at", UTCDateTime, nullable=False, server_default=func.now()),
)

tokens = Table(
    "tokens",
    metadata,
    Column("name", String(100), primary_key=True),
    # Only the SHA-256 of a token is kept: reading the database gives no usable token.
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("scope", String(20), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime),
    Column("revoked_at", UTCDateTime),
)

DIALECTS = {"sqlite": sqlite.dialect(paramstyle="named"), "postgresql": psycopg.dialect()}


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


class Database:
    """One engine per process: Core connections, and driver cursors for the request path."""

    def __init__(self, config):
        self.timeout = config["DATABASE_TIMEOUT"]
        self.engine = drivers.create(config)
        # On SQLite, Core writes take the write lock up front (see drivers._tune_sqlite).
        self._core_writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        self.dialect = self.engine.dialect.name
        self.is_sqlite = self.dialect == "sqlite"
        self._driver_error = self.engine.dialect.loaded_dbapi.Error
        # Times go to driver cursors as Core would send them: UTC, in the backend's format.
        self.bind_time = UTCDateTime().bind_processor(self.engine.dialect)
        database = self.engine.url.database
        on_disk = self.is_sqlite and database not in (None, "", ":memory:")
        self.writer_lock = HostLock(f"{database}-writer") if on_disk else None

    @contextlib.contextmanager
    def read(self):
        """A Core connection for reading, back to the pool when the block ends."""
        with drivers.Budget(self.timeout), self.engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def write(self):
        """A Core transaction that commits when the block ends without an exception."""
        # Connected first, so that a database that cannot be opened is an error of the database.
        with drivers.Budget(self.timeout), self._core_writer.connect() as conn:
            self._take_turn()
            try:
                with conn.begin():
                    yield conn
            finally:
                self._end_turn()

    def cursor(self):
        """A driver cursor on a pooled connection, for single reads; errors as SQLAlchemy's."""
        return self._driver_cursor(write=False)

    def transaction(self):
        """A driver cursor in a write transaction that commits when the block ends."""
        return self._driver_cursor(write=True)

    @contextlib.contextmanager
    def _driver_cursor(self, write):
        # One generator for the whole use: this runs for every request.
        with drivers.Budget(self.timeout):
            connection = self._checkout()
            try:
                if write:
                    self._take_turn()
                try:
                    cursor = connection.cursor()
                    if write and self.is_sqlite:
                        cursor.execute("BEGIN IMMEDIATE")
                    yield cursor
                    if write or not self.is_sqlite:
                        connection.commit()  # psycopg opens a transaction for a read too
                except self._driver_error as error:
                    self._abandon(connection, error)
                    raise self._wrap(error) from error
                except BaseException:
                    connection.rollback()
                    raise
                finally:
                    if write:
                        self._end_turn()
            finally:
                connection.close()

    def _checkout(self):
        try:
            return self.engine.raw_connection()
        except self._driver_error as error:
            raise self._wrap(error) from error

    def _abandon(self, connection, error):
        if self.engine.dialect.is_disconnect(error, connection.dbapi_connection, None):
            # A lost connection must not go back to the pool for the next request.
            connection.invalidate(error)
        else:
            connection.rollback()

    def _wrap(self, error):
        # The driver's errors leave as SQLAlchemy's, like those of Core connections.
        return DBAPIError.instance(None, None, error, self._driver_error)

    def _take_turn(self):
        # SQLite lets one transaction write at a time: the service's writers queue on a lock
        # that wakes the next one at once, where SQLite's busy handler would sleep.
        if self.writer_lock is None:
            return
        try:
            self.writer_lock.acquire(drivers.remaining(self.timeout))
        except (LockTimeout, OSError) as error:
            # Waited too long, or the lock file cannot be made: the database is unavailable.
            raise drivers.unavailable(error) from error

    def _end_turn(self):
        if self.writer_lock is not None:
            self.writer_lock.release()


def get_db():
    """The current app's Database."""
    return current_app.extensions["plantstore.db"]


def init_db(db):
    """Bring the schema to the latest migration (``db upgrade``); safe from several processes."""
    migrate.upgrade(db)


@click.command("init-db", cls=cli.Command)
@with_appcontext
def init_db_command():
    """Bring the schema to the latest migration; the same as ``db upgrade``."""
    init_db(get_db())
    click.echo("Database schema is ready.")


def init_app(app):
    """Create the app's engine and register the init-db command."""
    app.extensions["plantstore.db"] = Database(app.config)
    app.cli.add_command(init_db_command)
