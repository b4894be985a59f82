"""The engine for each backend, set up so that no wait on the database outlasts the timeout."""

import sqlite3
import threading
import time

import psycopg
from sqlalchemy import create_engine, event
from sqlalchemy.exc import DBAPIError

ACTIVE = psycopg.pq.TransactionStatus.ACTIVE
# psycopg, like libpq, gives a connection attempt at least this many seconds.
CONNECT_FLOOR = 2
# Idle seconds before TCP keepalive probes a PostgreSQL connection, and between probes.
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 10, 5, 3


_budget = threading.local()


class Budget:
    """Let every wait on the database within the block share one budget of seconds.

    A class, not a generator: it wraps every query, and costs a third as much.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.outer = None

    def __enter__(self):
        self.outer = getattr(_budget, "ends", None)
        if self.outer is None:
            _budget.ends = time.monotonic() + self.seconds

    def __exit__(self, *exc_info):
        _budget.ends = self.outer


def remaining(default):
    """Seconds left of the current budget, or default outside one."""
    ends = getattr(_budget, "ends", None)
    return default if ends is None else max(0.001, ends - time.monotonic())


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
        _tune_sqlite(engine, config["SQLITE_SYNCHRONOUS"])
        return engine
    connect_args = {
        "keepalives": 1,
        "keepalives_idle": KEEPALIVE_IDLE,
        "keepalives_interval": KEEPALIVE_INTERVAL,
        "keepalives_count": KEEPALIVE_COUNT,
    }
    # Pre-ping: a restarted PostgreSQL must not fail the first request after it.
    engine = create_engine(url, pool_pre_ping=True, connect_args=connect_args, **pool)
    _bound_postgresql_waits(engine, timeout)
    return engine


def _tune_sqlite(engine, synchronous):
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection, _record):
        # Let the service, not the sqlite3 module, decide where transactions begin.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection):
        # Core reads are single statements and need no transaction; writes lock up front.
        if connection.get_execution_options().get("sqlite_begin"):
            try:
                connection.connection.driver_connection.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                # Raised outside SQLAlchemy's execution: wrap it as SQLAlchemy would.
                raise DBAPIError.instance(None, None, error, sqlite3.Error) from error


class BoundedConnection(psycopg.Connection):
    """A psycopg connection that waits for the server only as long as the budget allows.

    statement_timeout is the server's own clock: a server that is stopped, or a network that
    drops packets without a reset, would leave a query waiting for ever without this one.
    """

    wait_timeout = None

    def wait(self, gen, interval=0.1, timeout=None):
        """Consume gen as psycopg does; a server silent for too long closes the connection."""
        try:
            return super().wait(gen, interval, timeout or remaining(self.wait_timeout))
        except psycopg.errors.OperationalError:
            if not self.closed and self.info.transaction_status == ACTIVE:
                # The answer never came: the connection is unusable and must not be pooled.
                self.pgconn.finish()
            raise


def _bound_postgresql_waits(engine, timeout):
    milliseconds = int(timeout * 1000)

    @event.listens_for(engine, "do_connect")
    def connect(_dialect, _record, cargs, cparams):
        left = remaining(timeout)
        if left < min(CONNECT_FLOOR, timeout) / 2:
            # Reconnecting after a failed pre-ping: an attempt now could only overrun the budget.
            raise psycopg.errors.ConnectionTimeout("no time left to connect to the database")
        seconds = max(CONNECT_FLOOR, int(left))
        # Added to the URL's own options (a search_path, a time zone), which connect_args would
        # replace; an explicit timeout there comes later and wins.
        options = f"-c statement_timeout={milliseconds} -c lock_timeout={milliseconds}"
        if cparams.get("options"):
            options = f"{options} {cparams['options']}"
        connection = BoundedConnection.connect(
            *cargs, **{**cparams, "options": options}, connect_timeout=seconds
        )
        connection.wait_timeout = timeout
        return connection
