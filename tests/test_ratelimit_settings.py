"""Rate limit settings: a bad one stops every command and gunicorn in one line; no limit, no
headers; which limit the headers describe (through the test client, on memory storage)."""

import sys
import time

import pytest
from test_config import FLASK, assert_one_line, run

from liveserver import free_port

# Each bad setting, and the value its one line must show.
BAD_SETTINGS = [
    pytest.param("RATE_LIMIT", "5 per fortnight", "'5 per fortnight'", id="limit"),
    pytest.param("RATE_LIMIT_UNAUTHENTICATED", "many", "'many'", id="unauthenticated limit"),
    pytest.param(
        "RATE_LIMIT_STORAGE_URL", "memcached://h:11211", "'memcached://h:11211'", id="scheme"
    ),
    pytest.param("RATE_LIMIT_STORAGE_URL", "redis://h:port/0", "'redis://h:port/0'", id="port"),
    pytest.param(
        "RATE_LIMIT_STORAGE_URL", "redis://:secret@h:6379/x", "'redis://:***@h:6379/x'", id="db"
    ),
    pytest.param("RATE_LIMIT_STORAGE_TIMEOUT", "0", "0", id="timeout zero"),
    pytest.param("RATE_LIMIT_STORAGE_TIMEOUT", "soon", "'soon'", id="timeout word"),
    pytest.param("RATE_LIMIT_FAIL", "Maybe", "'Maybe'", id="fail"),
]
# A command or gunicorn refusing a setting does so at once.
REFUSAL_BOUND = 20


@pytest.mark.parametrize(("key", "value", "shown"), BAD_SETTINGS)
def test_bad_setting_stops_a_command_with_one_line(environment, key, value, shown):
    started = time.monotonic()
    result = run([*FLASK, "tokens", "list"], {**environment, f"PLANTSTORE_{key}": value})
    assert time.monotonic() - started < REFUSAL_BOUND
    line = assert_one_line(result, f"PLANTSTORE_{key}", shown)
    assert "secret" not in line


@pytest.mark.parametrize(("key", "value", "shown"), BAD_SETTINGS)
def test_bad_setting_stops_gunicorn_with_one_line(environment, key, value, shown):
    env = {**environment, f"PLANTSTORE_{key}": value, "PORT": str(free_port())}
    started = time.monotonic()
    result = run([sys.executable, "-m", "gunicorn", "wsgi:app"], env, timeout=REFUSAL_BOUND)
    assert time.monotonic() - started < REFUSAL_BOUND
    result.stderr, result.stdout = result.stdout + result.stderr, ""
    assert_one_line(result, f"PLANTSTORE_{key}", shown)


@pytest.mark.parametrize(
    "url", ["memory://", "redis://127.0.0.1:6379/0", "redis://:pw@cache.internal:6380/15"]
)
def test_storage_urls_of_both_kinds_are_accepted(make_app, url):
    app = make_app(RATE_LIMIT="10/second", RATE_LIMIT_STORAGE_URL=url)
    assert app.config["RATE_LIMIT_STORAGE_URL"] == url


def test_without_a_limit_no_answer_has_the_headers(client, auth_headers):
    answers = [
        client.get("/plants", headers=auth_headers),
        client.get("/plants/1", headers=auth_headers),
        client.get("/plants"),
    ]
    assert [response.status_code for response in answers] == [200, 404, 401]
    for response in answers:
        assert not any(name.startswith("X-RateLimit") for name, _ in response.headers.items())


def test_headers_describe_the_limit_closest_to_refusing_the_shorter_on_a_tie(
    make_app, auth_headers
):
    client = make_app(RATE_LIMIT="3 per day; 3 per minute; 10 per second").test_client()
    response = client.get("/plants", headers=auth_headers)
    assert response.status_code == 200
    # The day and the minute both have 2 left: the minute's window ends first.
    assert (response.headers["X-RateLimit-Limit"], response.headers["X-RateLimit-Remaining"]) == (
        "3",
        "2",
    )
    assert int(response.headers["X-RateLimit-Reset"]) <= time.time() + 61
