"""A plant's versions: its strong ETag, made from its content, and the conditional request
headers that compare with it (RFC 9110: If-Match strongly, If-None-Match weakly)."""

import hashlib

from flask import request
from werkzeug.exceptions import PreconditionFailed
from werkzeug.http import parse_etags

from .. import headers
from . import store

# The document's words for the header, on every answer that carries it.
ETAG = {
    "description": "The plant's version: a strong entity tag that changes whenever its content "
    "(name or tag) changes, and only then. Send it back in If-Match or If-None-Match.",
    "schema": {"type": "string"},
    "example": '"8c1e6b1f0d2e3a4b"',
}
# The answers and request headers of versions, as the document describes them.
STALE = "If-Match does not name the plant's current version."
NO_VERSION = "There is no plant with this id for If-Match to match."
PRECONDITION_FAILED = (
    412,
    "If-Match names no current version of the plant (or there is no plant): nothing changed.",
    STALE,
)
IF_MATCH = (
    "Change the plant only if this is its current version: an ETag it was answered with "
    "(strong comparison: a W/ tag never matches), or * for any version. Without it, the "
    "change is unconditional.",
    '"8c1e6b1f0d2e3a4b"',
)
IF_NONE_MATCH = (
    "Answer 304 without a body if the plant's current version is one of these ETags (weak "
    "comparison), or for * if there is a plant.",
    '"8c1e6b1f0d2e3a4b"',
)
NOT_MODIFIED = "The plant's version is one If-None-Match names: there is no body."
# A None before another field: a byte no UTF-8 text holds, as no text holds the NUL between.
NONE = b"\xff"
# Whether a field that may be None has another after it: only then is a None written as NONE.
_NONE_INSIDE = any(column.nullable for column in store.COLUMNS[:-1])
# "{id}\0{name}\0{tag}" and each shorter prefix, made once: a version is one format_map.
_TEXTS = [
    "\0".join(f"{{{key}}}" for key in store.FIELDS[:count])
    for count in range(len(store.FIELDS) + 1)
]


def etag(plant):
    """The strong entity tag of a stored plant, quoted: a short hash of its fields."""
    count = len(store.FIELDS)
    while plant[store.FIELDS[count - 1]] is None:
        count -= 1  # a field that ends None is left out: one added empty keeps every version
    if _NONE_INSIDE:
        values = [plant[key] for key in store.FIELDS[:count]]
        text = b"\0".join(NONE if value is None else str(value).encode() for value in values)
    else:
        text = _TEXTS[count].format_map(plant).encode()
    return f'"{hashlib.blake2b(text, digest_size=8).hexdigest()}"'


def not_modified(version):
    """The answer to a read whose If-None-Match names version (an etag()), or *: 304 with the
    ETag alone."""
    response = headers.no_content(304)
    response.headers["ETag"] = version
    return response


def known_to_client(version):
    """Whether the request's If-None-Match names version (an etag()), or is *: the weak
    comparison."""
    # Read from the environ: most reads have no such header, and request.if_none_match costs
    # those a few percent of the whole read.
    given = request.environ.get("HTTP_IF_NONE_MATCH")
    return given is not None and parse_etags(given).contains_weak(version[1:-1])


def refused(plant):
    """The 412 of a change that If-Match refused, the plant being as it was then (None: none)."""
    return PreconditionFailed(STALE if plant else NO_VERSION)


def if_match():
    """The request's If-Match as a test of the current plant (None when there is none), or None
    without the header.

    The comparison is strong: a weak tag never matches; * matches any plant that exists, and
    nothing matches a plant that does not. A value that names no tag matches nothing.
    """
    if "If-Match" not in request.headers:
        return None
    named = request.if_match
    return lambda plant: plant is not None and named.contains(etag(plant)[1:-1])
