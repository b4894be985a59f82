"""The Database: one engine per process, and the one way requests, workers and commands use it.

Every statement runs on a driver cursor (``cursor`` to read, ``transaction`` to write), with its
SQL compiled once per backend by ``Statement`` (sql.py). Core connections serve Alembic alone.
"""

import contextlib
import os
import threading
import weakref

from flask import current_app
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from . import drivers, waits
from .failures import Locked, Unavailable, classify
from .hostlock import HostLock, LockTimeout
from .sql import metadata

# Where the app keeps its Database.
EXTENSION = "plantstore.db"


class Database:
    """The engine of one process, its SQLite writers' lock, and the ways to run SQL on it."""

    def __init__(self, config):
        self.timeout = config["DATABASE_TIMEOUT"]
        self.engine = drivers.create(config)
        dialect = self.engine.dialect
        self.dialect = dialect.name
        self.is_sqlite = self.dialect == "sqlite"
        self._driver_error = dialect.loaded_dbapi.Error
        # What starts a read's transaction and a write's: on SQLite a write takes the lock up
        # front and a read needs none; on PostgreSQL each bounds its waits (postgresql.begin).
        self._begins = drivers.begins(config)
        # On SQLite, Alembic's Core transactions take the write lock up front (drivers.py); on
        # PostgreSQL they are transactions, whatever the service's own connections are in.
        core = (
            {"sqlite_begin": "IMMEDIATE"}
            if self.is_sqlite
            else {"isolation_level": "READ COMMITTED"}
        )
        self._core_writer = self.engine.execution_options(**core)
        database = self.engine.url.database
        on_disk = self.is_sqlite and database not in (None, "", ":memory:")
        self.writer_lock = HostLock(f"{database}-writer") if on_disk else None
        # On SQLite each thread keeps a connection of its own (see _checkout); None elsewhere.
        self._kept = threading.local() if self.is_sqlite else None
        self._schema_checks = None

    def cursor(self):
        """A driver cursor on a connection of the pool (on SQLite, the thread's own), for reads;
        failures as DatabaseFailure."""
        return self._use(write=False)

    def transaction(self):
        """A driver cursor in a write transaction that commits when the block ends."""
        return self._use(write=True)

    @contextlib.contextmanager
    def _use(self, write):
        # One generator for the whole use: this runs for every request.
        with waits.Budget(self.timeout):
            connection = self._checkout()
            try:
                if write:
                    self._take_turn()
                try:
                    cursor = connection.cursor()
                    begin = self._begins[write]
                    if begin is not None:
                        cursor.execute(begin)
                    yield cursor
                    if begin is not None:
                        connection.commit()
                except self._driver_error as error:
                    lost = self._abandon(connection, error)
                    raise self._failure(error, lost) from error
                except BaseException:
                    self._roll_back(connection)
                    raise
                finally:
                    if write:
                        self._end_turn()
            finally:
                if self._kept is None:
                    connection.close()

    @contextlib.contextmanager
    def schema_transaction(self):
        """A Core connection in a write transaction: Alembic needs one to migrate."""
        # Connected first, so that a database that cannot be opened is an error of the database.
        with waits.Budget(self.timeout), self._core_writer.connect() as conn:
            self._take_turn()
            try:
                with conn.begin():
                    yield conn
            finally:
                self._end_turn()

    def dispose(self):
        """Close the calling thread's own connection (SQLite) and every one the pool holds.

        Other threads' own connections close as their threads end.
        """
        if self._kept is not None:
            self._kept.own = None
        self.engine.dispose()

    def ping(self):
        """Raise unless the database answers and holds every table and column of the schema."""
        if self._schema_checks is None:
            # One statement per table, naming every column: each fails if one of them is missing.
            self._schema_checks = [
                f"SELECT {', '.join(column.name for column in table.columns)} "
                f"FROM {table.name} LIMIT 0"
                for table in metadata.sorted_tables
            ]
        with self.cursor() as cursor:
            for statement in self._schema_checks:
                cursor.execute(statement)
                cursor.fetchall()

    def _checkout(self):
        own = getattr(self._kept, "own", None)
        if own is not None and own.pid == os.getpid():
            return own.connection
        try:
            connection = self.engine.raw_connection()
            if self._kept is not None:
                # SQLite: the pool's checkout and return cost a read 8% of its instructions,
                # and a file needs no sharing of connections; this one is the thread's now.
                connection.detach()
                self._kept.own = _Own(connection)
            elif not connection.driver_connection.autocommit:
                # Left so by a Core use: the service's own begins its transactions itself.
                connection.driver_connection.autocommit = True
            return connection
        except self._driver_error as error:
            raise self._failure(error) from error
        except SQLAlchemyError as error:
            failure = classify(error)
            if failure is None:
                raise
            raise failure from error

    def _failure(self, driver_error, lost=False):
        # Said in SQLAlchemy's terms first, so that callers can still catch IntegrityError; a
        # lost connection is the database unavailable.
        error = DBAPIError.instance(
            None, None, driver_error, self._driver_error, connection_invalidated=lost
        )
        return classify(error) or error

    def _abandon(self, connection, error):
        # Whether the connection was lost: it must not go back to the pool, or stay the thread's.
        if self.engine.dialect.is_disconnect(error, connection.dbapi_connection, None):
            self._drop(connection, error)
            return True
        self._roll_back(connection)
        return False

    def _roll_back(self, connection):
        # A rollback that fails (the budget spent, the server silent) leaves the connection in
        # a state nobody knows: dropped, and the block's own error is the one raised.
        try:
            connection.rollback()
        except self._driver_error as error:
            self._drop(connection, error)

    def _drop(self, connection, error):
        connection.invalidate(error)
        if self._kept is not None:
            self._kept.own = None

    def _take_turn(self):
        # SQLite lets one transaction write at a time: the service's writers queue on a lock
        # that wakes the next one at once, where SQLite's busy handler would sleep.
        if self.writer_lock is None:
            return
        try:
            self.writer_lock.acquire(waits.remaining(self.timeout))
        except LockTimeout as error:
            raise Locked(error) from error
        except OSError as error:
            raise Unavailable(error) from error  # the lock file cannot be made

    def _end_turn(self):
        if self.writer_lock is not None:
            self.writer_lock.release()


class _Own:
    """A SQLite connection a thread keeps, out of the pool, closed when the thread ends.

    A process forked from the one that opened it makes its own: SQLite's rule.
    """

    __slots__ = ("__weakref__", "connection", "pid")

    def __init__(self, connection):
        self.connection = connection
        self.pid = os.getpid()
        weakref.finalize(self, connection.close)


def of(app):
    """The Database of app."""
    return app.extensions[EXTENSION]


def get_db():
    """The current app's Database."""
    return current_app.extensions[EXTENSION]
