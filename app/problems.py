"""RFC 9457 Problem Details: whether a request asks for them, and an error told in them.

The seed's Error shape stays every error's default; a client that prefers
``application/problem+json`` to ``application/json`` in its ``Accept`` gets this one instead.
"""

from http import HTTPStatus
from urllib.parse import quote

from flask import request
from marshmallow import Schema, fields

PROBLEM = "application/problem+json"
JSON = "application/json"
# RFC 9110's reason phrases where Python's http module still has RFC 7231's.
TITLES = {413: "Content Too Large", 422: "Unprocessable Content"}
# What a URI fragment holds unescaped besides letters and digits (RFC 3986's pchar, "?"), less
# "/", which separates tokens; RFC 6901 section 6 percent-encodes the rest.
FRAGMENT_SAFE = "!$&'()*+,;=:@-._~?"
# marshmallow's key for an error of the whole object, which names no field.
WHOLE = "_schema"


class ProblemItemSchema(Schema):
    """One offending input of a 400: a field of the body, or a query or path parameter."""

    detail = fields.String(
        required=True,
        metadata={"description": "What is wrong with it", "examples": ["Not a valid integer."]},
    )
    pointer = fields.String(
        metadata={
            "description": "The offending field of the JSON body: a JSON Pointer (RFC 6901) "
            "in a URI fragment",
            "examples": ["#/id"],
        }
    )
    # No example: the document's item shows a pointer, and an item never has both.
    parameter = fields.String(metadata={"description": "The offending query or path parameter"})


class ProblemSchema(Schema):
    """Problem: an error as RFC 9457 Problem Details, for a client whose Accept prefers them."""

    type = fields.String(
        required=True,
        metadata={
            "description": "Always about:blank: the status says what kind of problem it is",
            "examples": ["about:blank"],
        },
    )
    title = fields.String(
        required=True,
        metadata={"description": "The status's reason phrase", "examples": ["Not Found"]},
    )
    status = fields.Integer(
        required=True,
        metadata={"format": "int32", "description": "The HTTP status code", "examples": [404]},
    )
    detail = fields.String(
        required=True,
        metadata={
            "description": "The Error shape's message: one sentence",
            "examples": ["There is no plant with this id."],
        },
    )
    errors = fields.List(
        fields.Nested(ProblemItemSchema),
        metadata={
            "description": "Of a 400 that names offending input: each of them",
            "examples": [[{"detail": "Not a valid integer.", "pointer": "#/id"}]],
        },
    )


def wanted():
    """Whether the request's Accept prefers Problem Details to JSON: by q, or by naming only
    them. A tie, a wildcard or no Accept at all keeps the Error shape."""
    accept = request.accept_mimetypes
    return accept.quality(PROBLEM) > accept.quality(JSON)


def problem(status, message, invalid=None):
    """The Problem Details body of an error; invalid: (marshmallow's messages, where they
    are: "body", "query" or "path") of a 400 that names offending input."""
    body = {
        "type": "about:blank",
        "title": TITLES.get(status) or HTTPStatus(status).phrase,
        "status": status,
        "detail": message,
    }
    if invalid is not None:
        messages, location = invalid
        if location == "body":
            body["errors"] = [
                {"detail": detail, "pointer": "#" + pointer}
                for pointer, detail in _leaves(messages, "")
            ]
        else:
            body["errors"] = [
                {"detail": " ".join(detail for _, detail in _leaves(value, "")), "parameter": name}
                for name, value in _sorted(messages)
            ]
    return body


def _leaves(messages, pointer):
    """(JSON Pointer, the messages as one string) of each offending value under pointer."""
    if not isinstance(messages, dict):
        yield pointer, " ".join(messages)
        return
    for key, value in _sorted(messages):
        yield from _leaves(value, pointer if key == WHOLE else f"{pointer}/{_token(key)}")


def _sorted(messages):
    # Keys are field names or, under a list, item indexes: sorted as text, like the message.
    return sorted(messages.items(), key=lambda item: str(item[0]))


def _token(key):
    """A reference token of a JSON Pointer (RFC 6901: "~" as "~0", "/" as "~1"), in a URI
    fragment."""
    return quote(str(key).replace("~", "~0").replace("/", "~1"), safe=FRAGMENT_SAFE)
