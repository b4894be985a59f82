"""Rate limits on real gunicorn (2 workers) over the machine's Redis, a private Redis, or memory.

Every test owns its buckets: tokens issued under a fresh name, client addresses made up for it,
or a Redis of its own.
"""

import os
import re
import threading
import time
import uuid

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from faults import PrivateRedis
from helpers import TOKEN
from liveserver import LiveServer, wait_for

REDIS_URL_VARIABLE = "PLANTSTORE_TEST_REDIS_URL"
RATE_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
# Longest a request may take on this shared machine when nothing is wrong, in seconds.
BOUND = 2.0
# The store timeout of the fault tests, and what a request may take beyond it.
STORE_TIMEOUT = 0.5
SLACK = 0.45
EXEMPT = ("/healthz", "/livez", "/metrics", "/openapi.json", "/docs")
WARNING = "rate limit store unavailable"


@pytest.fixture(scope="module")
def redis_url():
    """The machine's Redis (PLANTSTORE_TEST_REDIS_URL); a set URL that does not answer fails."""
    url = os.environ.get(REDIS_URL_VARIABLE)
    if not url:
        pytest.skip(f"{REDIS_URL_VARIABLE} is not set (.ci/run sets it)")
    client = redis.Redis.from_url(url, socket_timeout=5)
    client.ping()
    yield url
    client.close()


@pytest.fixture
def owned(redis_url):
    """A fresh name for this test's tokens and addresses; its keys are deleted afterwards."""
    name = uuid.uuid4().hex[:12]
    yield name
    client = redis.Redis.from_url(redis_url, socket_timeout=5)
    for pattern in (f"*{name}*", f"*{_address_prefix(name)}*"):
        for key in client.scan_iter(match=pattern):
            client.delete(key)
    client.close()


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of this test's own; needs PLANTSTORE_TEST_REDIS_URL like every Redis test."""
    if not os.environ.get(REDIS_URL_VARIABLE):
        pytest.skip(f"{REDIS_URL_VARIABLE} is not set (.ci/run sets it)")
    server = PrivateRedis(tmp_path)
    yield server
    server.destroy()


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


@pytest.fixture(scope="module")
def limited(redis_url, tmp_path_factory):
    """One instance for the module: 5 a day per token (and 1000 an hour), 3 a day per refused
    address, counted in the machine's Redis, behind one trusted proxy."""
    server = start_server(
        tmp_path_factory.mktemp("limited"),
        "limited",
        RATE_LIMIT="5 per day; 1000 per hour",
        RATE_LIMIT_UNAUTHENTICATED="3 per day",
        RATE_LIMIT_STORAGE_URL=redis_url,
        TRUSTED_PROXIES="1",
    )
    yield server
    server.stop()


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


def _address_prefix(owned):
    return f"fd00::{owned[:4]}:{owned[4:8]}:{owned[8:12]}:"


def address(owned, number):
    """A client address of this test's own, as the trusted proxy reports it."""
    return {"X-Forwarded-For": f"{_address_prefix(owned)}{number}"}


def test_every_answer_to_a_limited_token_has_the_headers_and_a_refusal_has_no_effect(
    limited, owned
):
    owner, token = issue(limited, f"owner-{owned}"), issue(limited, f"client-{owned}")
    kept = int(owned[:8], 16)
    ask(limited, "POST", "/plants", 200, {"id": kept, "name": "Kept"}, token=owner)
    answers = [
        ask(limited, "GET", "/plants", 200, token=token),
        ask(limited, "GET", "/plants/abc", 400, token=token),
        ask(limited, "POST", "/plants", 415, b"{}", {"Content-Type": "text/plain"}, token),
        ask(limited, "GET", f"/plants/{kept + 1}", 404, token=token),
        ask(limited, "POST", "/plants", 200, {"id": kept + 2, "name": "Fifth"}, token=token),
    ]
    for remaining, response in zip((4, 3, 2, 1, 0), answers, strict=True):
        # 5 a day is closer to refusing than 1000 an hour.
        assert_limited(response, 5, remaining)
        assert "Retry-After" not in response.headers
    refused = [
        ask(limited, "POST", "/plants", 429, {"id": kept + 3, "name": "Refused"}, token=token),
        ask(limited, "DELETE", f"/plants/{kept}", 429, token=token),
    ]
    for response in refused:
        assert_refused(response)
        assert_limited(response, 5, 0)
    ask(limited, "GET", f"/plants/{kept + 3}", 404, token=owner)
    assert ask(limited, "GET", f"/plants/{kept}", 200, token=owner).json()["name"] == "Kept"


def test_buckets_are_named_after_the_tokens_identity_never_the_token(limited, redis_url, owned):
    token = issue(limited, f"named-{owned}")
    ask(limited, "GET", "/plants", 200, token=token)
    client = redis.Redis.from_url(redis_url, socket_timeout=5, decode_responses=True)
    keys = list(client.scan_iter(match=f"*named-{owned}*"))
    client.close()
    assert keys and all(token not in key for key in keys)


def test_a_read_only_tokens_403_is_counted_and_has_the_headers(limited, owned):
    token = issue(limited, f"reader-{owned}", "--read-only")
    response = ask(limited, "POST", "/plants", 403, {"id": 1, "name": "No"}, token=token)
    assert_limited(response, 5, 4)
    assert "Retry-After" not in response.headers


def test_failed_authentication_is_limited_by_the_address_the_proxy_gives(limited, owned):
    token = issue(limited, f"client-{owned}")
    here, elsewhere = address(owned, 1), address(owned, 2)
    failures = [
        {},
        {"Authorization": "Basic dXNlcjpwYXNz"},
        {"Authorization": "Bearer not-a-token-of-this-service-0123456789"},
    ]
    for remaining, headers in zip((2, 1, 0), failures, strict=True):
        response = ask(limited, "GET", "/plants", 401, headers={**here, **headers}, token="")
        assert_limited(response, 3, remaining)
        assert "Retry-After" not in response.headers
    for headers in failures:
        refused = ask(limited, "GET", "/plants", 429, headers={**here, **headers}, token="")
        assert_refused(refused)
        assert_limited(refused, 3, 0)
    ask(limited, "GET", "/plants", 401, headers=elsewhere, token="")
    # A valid token from the refused address is served, from its own bucket.
    assert_limited(ask(limited, "GET", "/plants", 200, headers=here, token=token), 5, 4)


def test_exempt_paths_are_never_limited_and_never_carry_the_headers(limited, owned):
    token = issue(limited, f"client-{owned}")
    here = address(owned, 1)
    for _ in range(5):
        ask(limited, "GET", "/plants", 200, token=token)
    for _ in range(3):
        ask(limited, "GET", "/plants", 401, headers=here, token="")
    assert_refused(ask(limited, "GET", "/plants", 429, token=token))
    assert_refused(ask(limited, "GET", "/plants", 429, headers=here, token=""))
    for path in EXEMPT:
        for headers in ({"Authorization": f"Bearer {token}"}, here):
            response = ask(limited, "GET", path, 200, headers=headers, token="")
            assert not rate(response) and "Retry-After" not in response.headers


def test_refusals_are_counted_in_metrics_summed_over_the_workers(limited, owned):
    token = issue(limited, f"client-{owned}")
    before = counter(limited, "plantstore_rate_limited_total")
    for _ in range(5):
        ask(limited, "GET", "/plants", 200, token=token)
    for _ in range(12):  # a new connection each: both workers refuse some
        ask(limited, "GET", "/plants", 429, token=token)
    assert counter(limited, "plantstore_rate_limited_total") == before + 12


def test_two_instances_sharing_redis_count_each_token_exactly(redis_url, owned, tmp_path):
    settings = {"RATE_LIMIT": "40 per day", "RATE_LIMIT_STORAGE_URL": redis_url}
    servers = []
    try:
        for name in ("first", "second"):  # on one database
            servers.append(start_server(tmp_path, name, **settings))
        first, second = servers
        token = issue(first, f"shared-{owned}")
        statuses, durations = [], []

        def send(server):
            for _ in range(10):
                response, seconds = timed(server, "GET", "/plants", token=token)
                statuses.append(response.status)
                durations.append(seconds)

        threads = [threading.Thread(target=send, args=((first, second)[n % 2],)) for n in range(7)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        for server in servers:
            server.stop()
    assert sorted(statuses) == [200] * 40 + [429] * 30
    assert max(durations) < BOUND * 2  # seven clients at once on two cores


def fault_server(tmp_path, private_redis, **env):
    """An instance counting 3 a day per token in the private Redis, waiting STORE_TIMEOUT."""
    return start_server(
        tmp_path,
        "faults",
        RATE_LIMIT="3 per day",
        RATE_LIMIT_STORAGE_URL=private_redis.url,
        RATE_LIMIT_STORAGE_TIMEOUT=str(STORE_TIMEOUT),
        **env,
    )


def test_stopped_redis_fails_open_and_is_used_again_once_started(tmp_path, private_redis):
    server = fault_server(tmp_path, private_redis)
    try:
        assert_limited(ask(server, "GET", "/plants", 200), 3, 2)
        private_redis.stop()
        for _ in range(6):
            response = ask(server, "GET", "/plants", 200, bound=STORE_TIMEOUT + SLACK)
            assert not rate(response) and "Retry-After" not in response.headers
        assert counter(server, "plantstore_rate_limit_storage_errors_total") == 6
        # At most once a minute per worker.
        assert 1 <= server.log().count(WARNING) <= 2
        private_redis.start()  # empty: the count starts again
        wait_for(lambda: rate(server.request("GET", "/plants")), 10, "the limit to apply again")
        # That request was the first in the new store: 2 more, then refusals.
        answers = [ask(server, "GET", "/plants", status) for status in (200, 200, 429)]
        assert_limited(answers[1], 3, 0)
        assert_refused(answers[2])
    finally:
        server.stop()


def test_redis_that_never_answers_costs_a_request_only_the_timeout(tmp_path, private_redis):
    server = fault_server(tmp_path, private_redis)
    try:
        ask(server, "GET", "/plants", 200)
        private_redis.freeze()
        for _ in range(4):  # pooled connections, then new ones the kernel accepts
            response, seconds = timed(server, "GET", "/plants")
            assert response.status == 200 and not rate(response)
            assert STORE_TIMEOUT <= seconds < STORE_TIMEOUT + SLACK
    finally:
        private_redis.thaw()
        server.stop()


def test_fail_closed_answers_503_within_the_timeout(tmp_path, private_redis):
    server = fault_server(tmp_path, private_redis, RATE_LIMIT_FAIL="closed")
    try:
        ask(server, "GET", "/plants", 200)
        private_redis.freeze()
        frozen, seconds = timed(server, "POST", "/plants", {"id": 7, "name": "Not stored"})
        assert STORE_TIMEOUT <= seconds < STORE_TIMEOUT + SLACK
        private_redis.thaw()
        private_redis.stop()
        stopped = ask(server, "DELETE", "/plants/7", 503, bound=STORE_TIMEOUT + SLACK)
        for response in (frozen, stopped):
            assert response.status == 503
            assert response.json() == {
                "error": 503,
                "message": "The rate limit store is unavailable.",
            }
            assert int(response.headers["Retry-After"]) >= 1
        assert counter(server, "plantstore_rate_limit_storage_errors_total") == 2
        private_redis.start()
        wait_for(lambda: server.request("GET", "/plants").status == 200, 10, "Redis again")
        ask(server, "GET", "/plants/7", 404)  # the refused POST stored nothing
    finally:
        server.stop()


def test_memory_storage_counts_per_worker_and_says_so_at_start(tmp_path):
    server = start_server(tmp_path, "memory", RATE_LIMIT="2 per day")
    try:
        answers = [timed(server, "GET", "/plants") for _ in range(10)]
    finally:
        server.stop()
    assert "each of the 2 workers counts alone" in server.log()
    statuses = [response.status for response, _ in answers]
    # Each of the two workers allows 2, whichever worker each request reached.
    assert 2 <= statuses.count(200) <= 4 and statuses.count(429) >= 6
    assert max(seconds for _, seconds in answers) < BOUND
