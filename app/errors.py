"""The one error handler: every error leaves as an Error body, or as Problem Details when the
request asks for them (app/problems.py)."""

from flask import current_app, request
from marshmallow import Schema, ValidationError, fields
from werkzeug.exceptions import HTTPException

from . import problems
from .database import DatabaseFailure
from .headers import request_id
from .jsonprovider import json_response


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
    """Turn any exception into an Error response, or Problem Details when the request prefers
    them; either way with the same status and headers."""
    status, message, headers, invalid = _described(error)
    if problems.wanted():
        response = json_response(problems.problem(status, message, invalid))
        response.mimetype = problems.PROBLEM
    else:
        response = json_response(error_schema.dump({"error": status, "message": message}))
    response.status_code = status
    response.headers.extend(headers)
    response.vary.add("Accept")
    return response


def _described(error):
    """(status, message, headers, invalid) of error; invalid: a 400's offending input as
    (marshmallow's messages, "body", "query" or "path"), else None."""
    if isinstance(error, ValidationError):
        messages = error.normalized_messages()
        where = error.kwargs.get("location", "body")
        return 400, validation_message(messages), [], (messages, where)
    if isinstance(error, HTTPException):
        headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]
        # Werkzeug's stock descriptions are paragraphs; ours are one sentence.
        if error.description != type(error).description:
            return error.code, error.description, headers, None
        return error.code, _stock_message(error), headers, None
    if isinstance(error, DatabaseFailure):
        if error.logged_per_request:
            current_app.logger.warning("%s (request_id=%s): %s", error, request_id(), error.cause)
        return 503, str(error), [("Retry-After", str(error.retry_after))], None
    # In debug mode (flask run --debug) Werkzeug's debugger shows the traceback instead.
    if current_app.debug:
        raise error
    current_app.logger.exception("unhandled error (request_id=%s)", request_id())
    return 500, "internal server error", [], None


def _stock_message(error):
    """One sentence for an HTTP error raised with Werkzeug's own words: routing's 404 and 405."""
    if error.code == 404:
        return "There is nothing at this path."
    if error.code == 405:
        return (
            f"The method {request.method} is not allowed here; the Allow header lists those "
            "that are."
        )
    return f"{error.name}."


def init_app(app):
    """Route every exception through handle_error."""
    app.register_error_handler(Exception, handle_error)
