"""The engine for each backend, set up so that no wait on the database outlasts the timeout."""

import sqlite3
import time

from sqlalchemy import create_engine, event
from sqlalchemy.exc import DBAPIError

from . import waits

# How long a switch to WAL that met a lock waits before it tries again.
_WAL_RETRY = 0.01


def create(config):
    """The engine for DATABASE_URL, with a pool of DATABASE_POOL_SIZE and no overflow."""
    url, timeout = config["DATABASE_URL"], config["DATABASE_TIMEOUT"]
    # No overflow: connections to PostgreSQL stay at workers x pool size.
    pool = {
        "pool_size": config["DATABASE_POOL_SIZE"],
        "max_overflow": 0,
        "pool_timeout": timeout,
        # Every use ends its own transaction (db.Database), so returning needs no rollback.
        "pool_reset_on_return": None,
    }
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"timeout": timeout}, **pool)
        _tune_sqlite(engine, config["SQLITE_SYNCHRONOUS"], timeout)
        return engine
    # psycopg (a tenth of a second to import) only for a PostgreSQL URL.
    from . import postgresql

    return postgresql.create(url, timeout, pool)


def begins(config):
    """{write: what starts the transaction, or None for none} of the service's own uses of the
    database (Database._use)."""
    if config["DATABASE_URL"].startswith("sqlite"):
        # A read is one statement and needs no transaction; a write takes the lock up front.
        return {False: None, True: "BEGIN IMMEDIATE"}
    from . import postgresql

    begin = postgresql.begin(config["DATABASE_TIMEOUT"])
    return {False: begin, True: begin}


def _tune_sqlite(engine, synchronous, timeout):
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):
        # Let the service, not the sqlite3 module, decide where transactions begin.
        dbapi_connection.isolation_level = None
        _use_wal(dbapi_connection, timeout)
        dbapi_connection.execute(f"PRAGMA synchronous={synchronous}")

    @event.listens_for(engine, "begin")
    def on_begin(connection):
        # Core reads are single statements and need no transaction; writes lock up front.
        if connection.get_execution_options().get("sqlite_begin"):
            try:
                connection.connection.driver_connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                # Raised outside SQLAlchemy's execution: wrap it as SQLAlchemy would.
                raise DBAPIError.instance(None, None, error, sqlite3.Error) from error


def _use_wal(dbapi_connection, timeout):
    # A file's switch to WAL (once, when it is new) takes its lock without SQLite's busy
    # handler: processes opening a new file at once would fail at once, so the switch waits.
    deadline = time.monotonic() + waits.remaining(timeout)
    while True:
        try:
            dbapi_connection.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() >= deadline:
                raise
        time.sleep(_WAL_RETRY)
