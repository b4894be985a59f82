"""Rate limits when their store fails (a private Redis stopped or frozen), and in memory."""

import pytest

from harness.processes import wait_for
from support.local_servers import PrivateRedis, redis_server_or_skip
from support.rate_limits import (
    BOUND,
    SLACK,
    STORE_TIMEOUT,
    WARNING,
    ask,
    assert_limited,
    assert_refused,
    counter,
    rate,
    start_server,
    timed,
)


@pytest.fixture
def private_redis(tmp_path):
    """A redis-server of the test's own, to stop, start and freeze; needs the program."""
    server = PrivateRedis(redis_server_or_skip("needs redis-server"), tmp_path)
    yield server
    server.destroy()


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
