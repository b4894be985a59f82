"""What a database failure means: the database layer says it, the error handler maps it to 503.

Each failure the operator must fix has a type here; anything else (a bug, a constraint a caller
expects) stays SQLAlchemy's own error.
"""

import sqlite3
import sys

from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.exc import TimeoutError as PoolTimeout

# SQLite result codes (the part after SQLITE_) of a file that cannot be opened, read or written.
SQLITE_UNAVAILABLE = {"CANTOPEN", "IOERR", "FULL", "PERM", "READONLY", "NOTADB"}
SQLITE_LOCKED = {"BUSY", "LOCKED"}
# SQLite reports a missing table or column as a plain SQLITE_ERROR: only the text tells.
SQLITE_NO_SCHEMA = ("no such table", "no such column", "has no column named")
# SQLSTATE prefixes: connection exception, insufficient resources, shutdown, statement timeout.
POSTGRES_UNAVAILABLE = ("08", "53", "57P01", "57P02", "57P03", "57014")
# SQLSTATE of a lock not granted within lock_timeout.
POSTGRES_LOCKED = ("55P03",)
# SQLSTATE of a deadlock or a serialization failure: the same transaction may succeed again.
POSTGRES_CONTENDED = ("40P01", "40001")
# SQLSTATE of an undefined table, column or schema.
POSTGRES_NO_SCHEMA = ("42P01", "42703", "3F000")
# What PgBouncer answers every transaction in pool_mode = statement.
STATEMENT_POOLING = "transaction blocks not allowed in statement pooling mode"


class DatabaseFailure(Exception):
    """A failure of the database that the operator must fix; str() is what a client is told."""

    message = "database failure"
    # Whole seconds a 503 asks a client to wait: a failover or a held lock is over in a few.
    retry_after = 5
    # Whether the error handler logs each request it fails; SchemaState says once for its own.
    logged_per_request = True

    def __init__(self, cause=None):
        super().__init__(self.message)
        self.cause = cause


class Unavailable(DatabaseFailure):
    """The database did not answer within PLANTSTORE_DATABASE_TIMEOUT, or cannot be opened."""

    message = "database unavailable"


class Locked(Unavailable):
    """Another writer held a lock for longer than the timeout allowed."""


class StatementPooling(Unavailable):
    """PgBouncer in pool_mode = statement, which runs no transaction: every use fails."""

    hint = "PgBouncer in statement mode cannot run transactions; use transaction mode"


class Contended(Unavailable):
    """The database ended the transaction for a deadlock or a serialization failure."""

    message = "database busy, try again"


class SchemaMissing(DatabaseFailure):
    """The database answers but lacks a table or a column of the service's schema."""

    message = "database schema is not initialised or out of date"


class SchemaBehind(DatabaseFailure):
    """The database's revision is older than the code's migrations' head."""

    message = "database schema is out of date"
    logged_per_request = False


def classify(error):
    """The DatabaseFailure that a SQLAlchemy error stands for, or None when it is no such one."""
    if isinstance(error, (PoolTimeout, DisconnectionError)):
        return Unavailable(error)
    if not isinstance(error, DBAPIError):
        return None
    cause = error.orig
    if error.connection_invalidated:
        return Unavailable(cause)
    if isinstance(cause, sqlite3.Error):
        return _sqlite(cause)
    # Not imported here: psycopg is loaded by a PostgreSQL engine, the only source of its errors.
    psycopg = sys.modules.get("psycopg")
    if psycopg is not None and isinstance(cause, psycopg.Error):
        return _postgresql(psycopg, cause)
    return None


def _sqlite(error):
    code = (getattr(error, "sqlite_errorname", None) or "SQLITE_ERROR").split("_")[1]
    if code in SQLITE_LOCKED:
        return Locked(error)
    if code in SQLITE_UNAVAILABLE:
        return Unavailable(error)
    if code == "ERROR" and any(text in str(error) for text in SQLITE_NO_SCHEMA):
        return SchemaMissing(error)
    return None


def _postgresql(psycopg, error):
    sqlstate = error.sqlstate
    # No SQLSTATE: the failure is the client's own (refused, timed out, connection lost).
    if sqlstate is None and isinstance(error, (psycopg.OperationalError, psycopg.InterfaceError)):
        return Unavailable(error)
    if sqlstate is None:
        return None
    if STATEMENT_POOLING in str(error):
        return StatementPooling(error)
    if sqlstate.startswith(POSTGRES_LOCKED):
        return Locked(error)
    if sqlstate in POSTGRES_CONTENDED:
        return Contended(error)
    if sqlstate.startswith(POSTGRES_UNAVAILABLE):
        return Unavailable(error)
    if sqlstate in POSTGRES_NO_SCHEMA:
        return SchemaMissing(error)
    return None
