"""Reading a request body strictly: its framing, its size, its media type, and its JSON."""

import json

from flask import request
from gunicorn.http.errors import ParseException
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

# The media types of a JSON body, and of a JSON Merge Patch (RFC 7396), which is JSON too.
JSON = ("application/json",)
MERGE_PATCH = ("application/merge-patch+json", "application/json")


def _no_constants(name):
    raise ValueError(f"{name} is not JSON")


# Made once: json.loads with any option builds a decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_no_constants)


def _read():
    try:
        data = request.get_data(cache=False)
        # Werkzeug cuts a chunked body at the limit without a word: look for one more byte.
        too_large = (
            request.content_length is None
            and len(data) >= request.max_content_length
            and request.environ["wsgi.input"].read(1)
        )
    except (ParseException, OSError):
        # gunicorn raises these reading a malformed or cut-off chunked body.
        raise BadRequest("The request body's chunked framing is malformed.") from None
    except RequestEntityTooLarge:
        # Werkzeug's own, for a Content-Length past the limit: told in the same words.
        too_large = True
    if too_large:
        raise RequestEntityTooLarge(
            f"The request body is larger than {request.max_content_length} bytes, the limit "
            "that PLANTSTORE_MAX_CONTENT_LENGTH sets."
        )
    # gunicorn hands over what came before the client closed, however short of Content-Length.
    if request.content_length is not None and len(data) < request.content_length:
        raise BadRequest("The request body ended before its Content-Length.")
    return data


def json_object(media_types=JSON):
    """The request body as strict UTF-8 JSON holding an object (a dict), sent as one of
    media_types."""
    if request.mimetype not in media_types:
        raise UnsupportedMediaType(f"Content-Type must be {' or '.join(media_types)}.")
    try:
        data = _DECODER.decode(_read().decode("utf-8"))
    except (ValueError, RecursionError):
        raise BadRequest("The request body is not valid UTF-8 JSON.") from None
    if not isinstance(data, dict):
        raise BadRequest("The request body must be a JSON object.")
    return data
