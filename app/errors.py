"""The one error handler: every error leaves as an Error body."""

import sqlite3

import psycopg
from flask import current_app, jsonify
from marshmallow import ValidationError
from sqlalchemy.exc import DBAPIError, DisconnectionError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from .headers import request_id
from .schemas import ErrorSchema

error_schema = ErrorSchema()

# What the webhook worker waits out rather than stops for: failures of the database itself.
DATABASE_DOWN = (OperationalError, InterfaceError, PoolTimeout)

UNAVAILABLE = "database unavailable"
NO_SCHEMA = "database schema is not initialised or out of date"

# SQLite result codes (the part after SQLITE_) of a file that cannot be opened, read or locked.
SQLITE_UNAVAILABLE = {"CANTOPEN", "BUSY", "LOCKED", "IOERR", "FULL", "PERM", "READONLY", "NOTADB"}
# SQLite reports a missing table or column as a plain SQLITE_ERROR: only the text tells.
SQLITE_NO_SCHEMA = ("no such table", "no such column", "has no column named")
# SQLSTATE prefixes: connection exception, insufficient resources, shutdown, statement timeout,
# lock timeout: the database did not answer within PLANTSTORE_DATABASE_TIMEOUT.
POSTGRES_UNAVAILABLE = ("08", "53", "57P01", "57P02", "57P03", "57014", "55P03")
# SQLSTATE of an undefined table, column or schema.
POSTGRES_NO_SCHEMA = ("42P01", "42703", "3F000")


def database_problem(error):
    """UNAVAILABLE or NO_SCHEMA for a database error the operator must fix, else None (a bug)."""
    if isinstance(error, (PoolTimeout, DisconnectionError)):
        return UNAVAILABLE
    if not isinstance(error, DBAPIError):
        return None
    driver_error = error.orig
    # Not a driver's own error: drivers.unavailable wrapped a failure outside any driver (the
    # host's writer lock), which is one of reaching the database.
    if error.connection_invalidated or not isinstance(driver_error, (sqlite3.Error, psycopg.Error)):
        return UNAVAILABLE
    if isinstance(driver_error, sqlite3.Error):
        code = (getattr(driver_error, "sqlite_errorname", None) or "SQLITE_ERROR").split("_")[1]
        if code in SQLITE_UNAVAILABLE:
            return UNAVAILABLE
        if code == "ERROR" and any(text in str(driver_error) for text in SQLITE_NO_SCHEMA):
            return NO_SCHEMA
        return None
    sqlstate = driver_error.sqlstate
    # No SQLSTATE: the failure is the client's own (refused, timed out, connection lost).
    if sqlstate is None and isinstance(
        driver_error, (psycopg.OperationalError, psycopg.InterfaceError)
    ):
        return UNAVAILABLE
    if sqlstate and sqlstate.startswith(POSTGRES_UNAVAILABLE):
        return UNAVAILABLE
    if sqlstate in POSTGRES_NO_SCHEMA:
        return NO_SCHEMA
    return None


def validation_message(messages, prefix=""):
    """One sentence naming every offending field, from marshmallow's error dict."""
    parts = []
    for field, value in sorted(messages.items(), key=lambda item: str(item[0])):
        if isinstance(value, dict):
            parts.append(validation_message(value, f"{prefix}{field}."))
        else:
            parts.append(f"{prefix}{field}: {' '.join(value)}")
    return " ".join(parts)


def handle_error(error):
    """Turn any exception into an Error response."""
    headers = []
    if isinstance(error, ValidationError):
        status, message = 400, validation_message(error.normalized_messages())
    elif isinstance(error, HTTPException):
        status = error.code
        # Werkzeug's stock descriptions are paragraphs; ours are one sentence.
        if error.description != type(error).description:
            message = error.description
        else:
            message = error.name.lower()
        headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]
    elif problem := database_problem(error):
        current_app.logger.warning(
            "%s (request_id=%s): %s", problem, request_id(), getattr(error, "orig", error)
        )
        status, message = 503, problem
    else:
        # In debug mode (flask run --debug) Werkzeug's debugger shows the traceback instead.
        if current_app.debug:
            raise error
        current_app.logger.exception("unhandled error (request_id=%s)", request_id())
        status, message = 500, "internal server error"
    response = jsonify(error_schema.dump({"error": status, "message": message}))
    response.status_code = status
    response.headers.extend(headers)
    return response


def init_app(app):
    """Route every exception through handle_error."""
    app.register_error_handler(Exception, handle_error)
