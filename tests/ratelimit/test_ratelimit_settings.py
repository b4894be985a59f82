"""Rate limit settings through the test client, on memory storage: both kinds of storage URL;
no limit, no headers; which limit the headers describe. (A bad setting's one line: test_config.)
"""

import time

import pytest

pytestmark = pytest.mark.backend_independent


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
