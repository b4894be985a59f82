"""A Retry-After that cannot be read, end to end: the backoff alone decides the next attempt."""

import time

import pytest

from harness.processes import wait_for

pytestmark = pytest.mark.e2e

UNREADABLE = [
    # A digit to str.isdigit() that float() refuses; sent as UTF-8, as a receiver's server would.
    pytest.param("²".encode().decode("latin-1"), id="superscript two"),
    pytest.param("Mon, 01 Jan 99999999999999999999 00:00:00 GMT", id="year past datetime"),
]


# Read by the sender: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("value", UNREADABLE)
def test_a_503_with_an_unreadable_retry_after_is_retried_by_the_backoff(
    endpoint_stack, make_receiver, value
):
    receiver = make_receiver()
    receiver.script = [(503, {"Retry-After": value})]
    server, admin, start = endpoint_stack()
    endpoint = admin.register(receiver.url, events=["plant.created"])
    receiver.verify_with(endpoint["secret"])
    start()
    created = time.monotonic()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "delivered", 30, "the retry")
    assert time.monotonic() - created < 5
    first, second = receiver.arrivals
    assert second - first < 2  # the backoff alone: 0.2 s at most; a lease would be 17 s
    delivery = admin.newest(endpoint["id"])
    assert (delivery["attempts"], delivery["response_status"]) == (2, 200)
