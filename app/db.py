"""Database: the engine, the tables and the ``init-db`` command."""

import contextlib
import datetime
import fcntl
import os

import click
from flask import current_app
from flask.cli import with_appcontext
from sqlalchemy import (
    BigInteger,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    TypeDecorator,
    create_engine,
    event,
    func,
    text,
)


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

# The outbox: one row per new plant and receiver, written in the plant's own transaction.
deliveries = Table(
    "deliveries",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("url", Text, nullable=False),
    Column("event", String(50), nullable=False),
    # The exact bytes that are signed and sent, on every attempt.
    Column("body", Text, nullable=False),
    Column("status", String(10), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("next_attempt_at", UTCDateTime, nullable=False),
    # A worker's claim: nobody else sends the delivery before this time.
    Column("claimed_until", UTCDateTime),
    Column("delivered_at", UTCDateTime),
    Column("last_error", Text),
    Index("deliveries_due", "status", "next_attempt_at"),
)

# Any constant works; it only has to be the same in every process running init-db.
SCHEMA_LOCK_KEY = 0x706C616E7473


class Database:
    """One engine per process, with a read and a write way in."""

    def __init__(self, config):
        url = config["DATABASE_URL"]
        # No overflow: connections to PostgreSQL stay at workers x pool size.
        pool = {
            "pool_size": config["DATABASE_POOL_SIZE"],
            "max_overflow": 0,
            "pool_timeout": config["DATABASE_POOL_TIMEOUT"],
        }
        if url.startswith("sqlite"):
            self.engine = create_engine(
                url, connect_args={"timeout": config["SQLITE_BUSY_TIMEOUT"]}, **pool
            )
            _tune_sqlite(self.engine, config["SQLITE_SYNCHRONOUS"])
        else:
            # Pre-ping: a restarted PostgreSQL must not fail the first request after it.
            self.engine = create_engine(url, pool_pre_ping=True, **pool)
        self.dialect = self.engine.dialect.name
        self.is_sqlite = self.dialect == "sqlite"
        # SQLite takes the write lock up front, so two writers queue instead of deadlocking.
        self._writer = self.engine.execution_options(sqlite_begin="IMMEDIATE")
        database = self.engine.url.database
        on_disk = self.is_sqlite and database not in (None, "", ":memory:")
        self.writer_lock_path = f"{database}-writer" if on_disk else None

    def read(self):
        """A connection for reading, back to the pool when the block ends."""
        return self.engine.connect()

    @contextlib.contextmanager
    def write(self):
        """A transaction that commits when the block ends without an exception."""
        # Connected first, so that a database that cannot be opened is an error of the database.
        with self._writer.connect() as conn, self._writers_turn(), conn.begin():
            yield conn

    @contextlib.contextmanager
    def _writers_turn(self):
        # SQLite writers of every thread and process on this host queue on one file lock, which
        # wakes the next one as soon as it is free; in SQLite's busy handler they would sleep in
        # steps of up to 100 ms, and the other worker's writers starve while one worker writes.
        if self.writer_lock_path is None:
            yield
            return
        # Each call opens its own file description, so threads of one process exclude each
        # other too, and no descriptor is shared with a process forked after it. No timeout:
        # the holder runs a few statements, each bounded by SQLite's busy timeout, and the
        # kernel drops the lock of a process that dies.
        lock = os.open(self.writer_lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            os.close(lock)


def _tune_sqlite(engine, synchronous):
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):
        # Let SQLAlchemy, not the sqlite3 module, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection):
        # Reads are single statements and need no transaction; writes lock up front.
        mode = connection.get_execution_options().get("sqlite_begin")
        if mode:
            connection.connection.driver_connection.execute(f"BEGIN {mode}")


def get_db():
    """The current app's Database."""
    return current_app.extensions["plantstore.db"]


def init_db(db):
    """Create every missing table; safe to run from several processes at once."""
    with db.write() as conn:
        if not db.is_sqlite:
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SCHEMA_LOCK_KEY})
        metadata.create_all(conn)


@click.command("init-db")
@with_appcontext
def init_db_command():
    """Create the database schema (idempotent)."""
    init_db(get_db())
    click.echo("Database schema is ready.")


def init_app(app):
    """Create the app's engine and register the init-db command."""
    app.extensions["plantstore.db"] = Database(app.config)
    app.cli.add_command(init_db_command)
