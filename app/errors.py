"""The one error handler: every error leaves as an Error body."""

from flask import current_app, jsonify
from marshmallow import ValidationError
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException

from .headers import request_id
from .schemas import ErrorSchema

error_schema = ErrorSchema()

# Failures of the database connection, as opposed to faults in our own SQL.
DATABASE_DOWN = (OperationalError, InterfaceError, PoolTimeout)


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
    elif isinstance(error, DATABASE_DOWN):
        current_app.logger.warning(
            "database unavailable (request_id=%s): %s",
            request_id(),
            getattr(error, "orig", error),
        )
        status, message = 503, "database unavailable"
    else:
        current_app.logger.exception("unhandled error (request_id=%s)", request_id())
        status, message = 500, "internal server error"
    response = jsonify(error_schema.dump({"error": status, "message": message}))
    response.status_code = status
    response.headers.extend(headers)
    return response


def init_app(app):
    """Route every exception through handle_error."""
    app.register_error_handler(Exception, handle_error)
