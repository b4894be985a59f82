"""Database: the engine, the tables and the ``init-db`` command."""

import contextlib
import threading

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
    create_engine,
    event,
    func,
    text,
)

metadata = MetaData()

plants = Table(
    "plants",
    metadata,
    Column("id", BigInteger, primary_key=True, autoincrement=False),
    Column("name", String(255), nullable=False),
    Column("tag", String(255)),
    Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

tokens = Table(
    "tokens",
    metadata,
    Column("name", String(100), primary_key=True),
    # Only the SHA-256 of a token is kept: reading the database gives no usable token.
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("scope", String(20), nullable=False),
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("expires_at", DateTime(timezone=True)),
    Column("revoked_at", DateTime(timezone=True)),
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
    Column("created_at", DateTime(timezone=True), nullable=False),
    Column("next_attempt_at", DateTime(timezone=True), nullable=False),
    # A worker's claim: nobody else sends the delivery before this time.
    Column("claimed_until", DateTime(timezone=True)),
    Column("delivered_at", DateTime(timezone=True)),
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
        # Threads of one process queue here rather than in SQLite's busy handler, which sleeps
        # in steps of up to 100 ms and so stretches the slowest writes.
        self._write_lock = threading.Lock() if self.is_sqlite else contextlib.nullcontext()

    def read(self):
        """A connection for reading, back to the pool when the block ends."""
        return self.engine.connect()

    @contextlib.contextmanager
    def write(self):
        """A transaction that commits when the block ends without an exception."""
        with self._write_lock, self._writer.begin() as conn:
            yield conn


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
