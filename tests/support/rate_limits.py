"""What the rate limit tests share: bounds, a server with limits, and reading the answers."""

import re
import time

from prometheus_client.parser import text_string_to_metric_families

from support.live_servers import LiveServer
from support.tokens import TOKEN

RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# Longest a request may take on this shared machine when nothing is wrong, in seconds.
BOUND = 2.0
# The store timeout of the fault tests, and what a request may take beyond it.
STORE_TIMEOUT = 0.5
SLACK = 0.45
EXEMPT = ("/healthz", "/livez", "/metrics", "/openapi.json", "/docs")
WARNING = "rate limit store unavailable"


def start_server(folder, name, **env):
    """gunicorn with 2 workers on a SQLite file in folder, with these PLANTSTORE_* settings."""
    settings = {
        "PLANTSTORE_DATABASE_URL": f"sqlite:///{folder / 'plantstore.sqlite'}",
        "PLANTSTORE_API_TOKENS": TOKEN,
        "WEB_CONCURRENCY": "2",
        **{f"PLANTSTORE_{key}": value for key, value in env.items()},
    }
    server = LiveServer(folder / f"{name}.log", settings, TOKEN)
    server.start()
    return server


def issue(server, name, *options):
    """A new token named name on server's database."""
    return server.cli("tokens", "create", name, *options).strip().splitlines()[-1]


def timed(server, method, path, body=None, headers=None, token=None):
    """One request, and how long it took in seconds."""
    started = time.monotonic()
    response = server.request(method, path, body, headers, token)
    return response, time.monotonic() - started


def ask(server, method, path, status, body=None, headers=None, token=None, bound=BOUND):
    """One request that must be answered status within bound seconds; the response."""
    response, seconds = timed(server, method, path, body, headers, token)
    assert response.status == status, response.body
    assert seconds < bound, f"{method} {path} took {seconds:.2f}s"
    return response


def rate(response):
    """The X-RateLimit-* headers of a response, as integers (an empty dict if none)."""
    return {name: int(response.headers[name]) for name in RATE_HEADERS if name in response.headers}


def assert_limited(response, limit, remaining):
    """The response carries the headers of that limit with that many remaining."""
    headers = rate(response)
    assert (headers["X-RateLimit-Limit"], headers["X-RateLimit-Remaining"]) == (limit, remaining)
    assert headers["X-RateLimit-Reset"] >= time.time() - 1


def assert_refused(response):
    """A 429 Error with Retry-After in whole seconds, at least 1; returns those seconds."""
    assert response.status == 429
    body = response.json()
    assert set(body) == {"error", "message"} and body["error"] == 429
    assert re.fullmatch(r"[1-9]\d*", response.headers["Retry-After"])
    return int(response.headers["Retry-After"])


def counter(server, name):
    """The value of a counter on server's /metrics, summed over its workers."""
    text = server.request("GET", "/metrics").body.decode()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name:
                return sample.value
    return 0


def address_prefix(owned):
    return f"fd00::{owned[:4]}:{owned[4:8]}:{owned[8:12]}:"


def address(owned, number):
    """A client address of this test's own, as the trusted proxy reports it."""
    return {"X-Forwarded-For": f"{address_prefix(owned)}{number}"}
