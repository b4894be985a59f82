"""Rate limits on real gunicorn (2 workers) over the machine's Redis: one instance that the
module's cases share, and a second one beside it on the same database and Redis.

Every test owns its buckets: tokens issued under a fresh name, client addresses made up for it.
"""

import os
import threading
import uuid

import pytest
import redis
from pytest_redis import factories

from support.live_servers import LiveServer
from support.local_servers import REDIS_URL_VARIABLE, redis_server, redis_server_or_skip
from support.rate_limits import (
    BOUND,
    EXEMPT,
    address,
    address_prefix,
    ask,
    assert_limited,
    assert_refused,
    counter,
    issue,
    rate,
    start_server,
    timed,
)
from support.tokens import TOKEN

# This pytest-xdist worker's Redis, when PLANTSTORE_TEST_REDIS_URL names none.
worker_redis = factories.redis_proc(executable=redis_server())


@pytest.fixture(scope="module")
def redis_url(request):
    """The Redis that PLANTSTORE_TEST_REDIS_URL names (a set URL that does not answer fails),
    else this pytest-xdist worker's own."""
    url = os.environ.get(REDIS_URL_VARIABLE)
    if not url:
        redis_server_or_skip(f"needs {REDIS_URL_VARIABLE} or redis-server")
        server = request.getfixturevalue("worker_redis")
        url = f"redis://{server.host}:{server.port}/0"
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
    for pattern in (f"*{name}*", f"*{address_prefix(name)}*"):
        for key in client.scan_iter(match=pattern):
            client.delete(key)
    client.close()


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


@pytest.fixture(scope="module")
def twin(limited, tmp_path_factory):
    """A second instance with the settings, database and Redis of limited."""
    server = LiveServer(tmp_path_factory.mktemp("twin") / "twin.log", limited.env, TOKEN)
    server.start()
    yield server
    server.stop()


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


def test_two_instances_sharing_redis_count_each_token_exactly(limited, twin, owned):
    token = issue(limited, f"shared-{owned}")
    statuses, durations = [], []

    def send(server):
        for _ in range(10):
            response, seconds = timed(server, "GET", "/plants", token=token)
            statuses.append(response.status)
            durations.append(seconds)

    threads = [threading.Thread(target=send, args=((limited, twin)[n % 2],)) for n in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 5 a day in all, whichever instance and worker each request reached.
    assert sorted(statuses) == [200] * 5 + [429] * 65
    assert max(durations) < BOUND * 2  # seven clients at once on two cores
