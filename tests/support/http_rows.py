"""Rows of the contract (NewPlant validation, reading and deleting, authentication, every
response) as single HTTP requests, and what their answers must be, for a real server."""

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from support.tokens import TOKEN

# The body limit of the server the rows are sent to (PLANTSTORE_MAX_CONTENT_LENGTH).
BODY_LIMIT = 4096
# The bearer token that /metrics of that server requires (PLANTSTORE_METRICS_TOKEN).
METRICS_TOKEN = "metrics-token-0123456789abcdefghijkl"
JSON = {"Content-Type": "application/json"}
CHALLENGE = re.compile(re.escape('Bearer realm="plantstore"'))
# The challenge when a token was presented but refused.
REFUSED = re.compile(re.escape('Bearer realm="plantstore", error="invalid_token"'))


@dataclass(frozen=True)
class Row:
    """One request and its answer. token: None for the server's read-write one, "" for none,
    "read-only" for a read-only one, else that token; a bytes body goes as JSON unless headers
    say otherwise. says: words its Error message holds; expect_headers: patterns its headers
    match; answer: its JSON body; stores: a plant it stores (None: it stores nothing)."""

    name: str
    method: str
    path: str
    status: int
    body: object = None
    headers: dict = field(default_factory=dict)
    token: str | None = None
    says: str = ""
    expect_headers: dict = field(default_factory=dict)
    answer: object = None
    stores: dict | None = None

    def request_headers(self):
        """The headers to send: JSON's Content-Type for a bytes body unless given."""
        if isinstance(self.body, bytes) and not self.headers:
            return JSON
        return self.headers


class _Bad(NamedTuple):
    name: str
    body: object
    says: str


# NewPlant bodies refused with a 400 naming the field.
BAD_PLANTS = [
    _Bad("id missing", {"name": "Fern"}, "id"),
    _Bad("id true", {"id": True, "name": "Fern"}, "id"),
    _Bad("id 1.0", {"id": 1.0, "name": "Fern"}, "id"),
    _Bad("id a string", {"id": "1", "name": "Fern"}, "id"),
    _Bad("id null", {"id": None, "name": "Fern"}, "id"),
    _Bad("id 2^63", {"id": 2**63, "name": "Fern"}, "id"),
    _Bad("id -2^63-1", {"id": -(2**63) - 1, "name": "Fern"}, "id"),
    _Bad("name missing", {"id": 3}, "name"),
    _Bad("name not a string", {"id": 3, "name": 5}, "name"),
    _Bad("name empty", {"id": 3, "name": ""}, "name"),
    _Bad("name over 255", {"id": 3, "name": "x" * 256}, "name"),
    _Bad("tag null", {"id": 3, "name": "Fern", "tag": None}, "tag"),
    _Bad("tag not a string", {"id": 3, "name": "Fern", "tag": 5}, "tag"),
    _Bad("tag over 255", {"id": 3, "name": "Fern", "tag": "x" * 256}, "tag"),
    _Bad("name with NUL", {"id": 3, "name": "Fe\u0000rn"}, "name"),
    _Bad("tag with unpaired surrogate", {"id": 3, "name": "Fern", "tag": "\ud800"}, "tag"),
]

ROWS = [
    Row("415 not JSON", "POST", "/plants", 415, b"{}", headers={"Content-Type": "text/plain"}),
    Row(
        "charset parameter accepted",
        "POST",
        "/plants",
        200,
        b'{"id": 2, "name": "Fern"}',
        headers={"Content-Type": "application/json; charset=utf-8"},
        stores={"id": 2, "name": "Fern"},
    ),
    Row("empty body", "POST", "/plants", 400, b""),
    Row("invalid JSON", "POST", "/plants", 400, b"{broken"),
    Row("invalid UTF-8", "POST", "/plants", 400, b'{"id": 3, "name": "\xff\xfe"}'),
    Row("not an object", "POST", "/plants", 400, [{"id": 3, "name": "Fern"}]),
    *(Row(bad.name, "POST", "/plants", 400, bad.body, says=bad.says) for bad in BAD_PLANTS),
    Row("body over the limit", "POST", "/plants", 413, b'{"id": 3, "x": "' + b"x" * BODY_LIMIT),
    Row(
        "unknown keys ignored",
        "POST",
        "/plants",
        200,
        {"id": 4, "name": "Fern", "colour": "green"},
        answer={"name": "Fern"},
        stores={"id": 4, "name": "Fern"},
    ),
    Row("get missing", "GET", "/plants/123456", 404),
    Row("delete missing", "DELETE", "/plants/123456", 404),
    Row("id not an int64", "GET", "/plants/abc", 400),
    Row("limit 0", "GET", "/plants?limit=0", 400, says="limit"),
    Row("limit 1001", "GET", "/plants?limit=1001", 400, says="limit"),
    Row("after not an integer", "GET", "/plants?after=x", 400, says="after"),
    Row("tag twice", "GET", "/plants?tag=a&tag=b", 400, says="tag"),
    Row("tag empty", "GET", "/plants?tag=", 400, says="tag"),
    Row(
        "no token", "GET", "/plants", 401, token="", expect_headers={"WWW-Authenticate": CHALLENGE}
    ),
    Row(
        "another scheme",
        "GET",
        "/plants",
        401,
        token="",
        headers={"Authorization": "Basic dXNlcjpwYXNz"},
        expect_headers={"WWW-Authenticate": CHALLENGE},
    ),
    Row(
        "unknown token",
        "GET",
        "/plants",
        401,
        token="pst_unknown-0123456789abcdefghijklmnop",
        expect_headers={"WWW-Authenticate": REFUSED},
    ),
    Row(
        "scheme word in lower case",
        "GET",
        "/plants",
        200,
        token="",
        headers={"Authorization": f"bearer {TOKEN}"},
    ),
    Row("unauthenticated bad body", "POST", "/plants", 401, b"{broken", token=""),
    Row("read-only POST", "POST", "/plants", 403, {"id": 5, "name": "No"}, token="read-only"),
    Row("read-only DELETE", "DELETE", "/plants/123456", 403, token="read-only"),
    Row("read-only GET", "GET", "/plants?limit=1", 200, token="read-only"),
    Row("read-write on /webhooks", "GET", "/webhooks", 403, token=TOKEN),
    Row(
        "metrics without its token",
        "GET",
        "/metrics",
        401,
        expect_headers={"WWW-Authenticate": CHALLENGE},
    ),
    Row("metrics with its token", "GET", "/metrics", 200, token=METRICS_TOKEN),
    Row("routing 404", "GET", "/nowhere", 404),
    Row("405 with Allow", "PUT", "/plants", 405, expect_headers={"Allow": re.compile(r".*POST.*")}),
    Row(
        "sane X-Request-ID echoed",
        "GET",
        "/livez",
        200,
        headers={"X-Request-ID": "row-trace-1"},
        expect_headers={"X-Request-ID": re.compile("row-trace-1")},
    ),
    Row(
        "insane X-Request-ID replaced",
        "GET",
        "/livez",
        200,
        headers={"X-Request-ID": "x" * 201},
        expect_headers={"X-Request-ID": re.compile(r"[0-9a-f]{32}")},
    ),
]


# A URL that registration accepts: public, and a name that need not resolve.
HOOK = "https://nowhere.invalid/hook"
# POST /webhooks bodies refused with a 400 naming the field, or the address.
BAD_ENDPOINTS = [
    _Bad("url missing", {"events": ["plant.created"]}, "url"),
    _Bad("url not a string", {"url": 5}, "url"),
    _Bad("url over 2048", {"url": HOOK + "/" + "a" * 2048}, "url"),
    _Bad("url not http", {"url": "ftp://nowhere.invalid/hook"}, "url"),
    _Bad("url without a host", {"url": "http:///hook"}, "url"),
    _Bad("url with a fragment", {"url": HOOK + "#part"}, "url"),
    _Bad("url to loopback", {"url": "http://127.0.0.1/hook"}, "127.0.0.1"),
    _Bad("url to link-local", {"url": "http://169.254.169.254/"}, "169.254.169.254"),
    _Bad("url to IPv4-mapped private", {"url": "http://[::ffff:10.0.0.1]/"}, "10.0.0.1"),
    _Bad("events not an array", {"url": HOOK, "events": "plant.created"}, "events"),
    _Bad("events empty", {"url": HOOK, "events": []}, "events"),
    _Bad("events unknown", {"url": HOOK, "events": ["plant.eaten"]}, "events"),
    _Bad("description not a string", {"url": HOOK, "description": 5}, "description"),
    _Bad("description over 255", {"url": HOOK, "description": "x" * 256}, "description"),
    _Bad("description with NUL", {"url": HOOK, "description": "a\u0000b"}, "description"),
    _Bad("enabled not a boolean", {"url": HOOK, "enabled": "yes"}, "enabled"),
    _Bad("throttle_rate not an integer", {"url": HOOK, "throttle_rate": 2.5}, "throttle_rate"),
    _Bad("throttle_rate a boolean", {"url": HOOK, "throttle_rate": True}, "throttle_rate"),
    _Bad("throttle_rate below 1", {"url": HOOK, "throttle_rate": 0}, "throttle_rate"),
    _Bad("throttle_rate above 10000", {"url": HOOK, "throttle_rate": 10001}, "throttle_rate"),
    _Bad("payload not one of the three", {"url": HOOK, "payload": "full"}, "payload"),
    _Bad("payload capitalised", {"url": HOOK, "payload": "Event"}, "payload"),
    _Bad("unknown key", {"url": HOOK, "colour": "green"}, "colour"),
]
ROWS += [
    Row(f"endpoint {bad.name}", "POST", "/webhooks", 400, bad.body, token="admin", says=bad.says)
    for bad in BAD_ENDPOINTS
]


def assert_row(answer, row):
    """Assert that answer (a harness Response) is what row says, and carries the headers of
    every response."""
    assert answer.status == row.status, (row.name, answer.body)
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    if row.path.startswith("/plants"):
        assert answer.headers["Cache-Control"] == "no-store"
    for name, pattern in row.expect_headers.items():
        assert pattern.fullmatch(answer.headers[name]), (name, answer.headers[name])
    if row.status >= 400:
        assert answer.headers["Content-Type"] == "application/json"
        body = answer.json()
        assert set(body) == {"error", "message"} and body["error"] == row.status
        assert body["message"] and row.says in body["message"], body["message"]
    if row.answer is not None:
        assert answer.json() == row.answer
