"""The one error handler: every error leaves as an Error body."""

from flask import current_app, jsonify
from marshmallow import Schema, ValidationError, fields
from werkzeug.exceptions import HTTPException

from .database import DatabaseFailure
from .headers import request_id


class ErrorSchema(Schema):
    """Error: the body of every error response."""

    error = fields.Integer(
        required=True,
        metadata={
            "format": "int32",
            "description": "The HTTP status code of the response",
            "examples": [404],
        },
    )
    message = fields.String(
        required=True,
        metadata={
            "description": "One sentence; for a bad body it names every offending field",
            "examples": ["There is no plant with this id."],
        },
    )


error_schema = ErrorSchema()


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
    elif isinstance(error, DatabaseFailure):
        if error.logged_per_request:
            current_app.logger.warning("%s (request_id=%s): %s", error, request_id(), error.cause)
        status, message = 503, str(error)
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
