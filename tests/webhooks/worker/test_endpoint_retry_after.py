"""Retry-After on a 503 or a 429, delivered by workers in the test's process: the next attempt
waits for it, an hour past the backoff at most, and for the backoff alone when it cannot be read."""

import datetime
import email.utils
import time

import pytest

from harness.processes import wait_for

UNREADABLE = [
    # A digit to str.isdigit() that float() refuses; sent as UTF-8, as a receiver's server would.
    pytest.param("²".encode().decode("latin-1"), id="superscript two"),
    pytest.param("Mon, 01 Jan 99999999999999999999 00:00:00 GMT", id="year past datetime"),
]


@pytest.mark.parametrize("form", ["seconds", "HTTP date"])
def test_retry_after_on_a_503_puts_the_next_attempt_off(app_stack, make_receiver, form):
    receiver = make_receiver()
    wait = 2
    value = str(wait) if form == "seconds" else None
    server, admin, start = app_stack()
    endpoint = admin.subscribe(receiver)
    start()
    due = None  # when an HTTP date falls, on the receiver's monotonic clock
    if value is None:  # an HTTP date has whole seconds: one more, so it is at least wait away
        value = email.utils.formatdate(time.time() + wait + 1, usegmt=True)
        due = email.utils.parsedate_to_datetime(value).timestamp() - time.time() + time.monotonic()
    receiver.script = [(503, {"Retry-After": value})]
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "delivered", 30, "the retry")
    first, second = receiver.arrivals
    # The date counts from when it was written, not from the first attempt, which came later.
    assert second >= (first + wait if due is None else due - 0.05)
    assert second - first < wait + 5  # the backoff alone was 0.1 s at most
    assert admin.newest(endpoint["id"])["attempts"] == 2


def test_retry_after_is_capped_an_hour_past_the_backoff(app_stack, make_receiver):
    receiver = make_receiver()
    receiver.script = [(429, {"Retry-After": str(10 * 3600)})]
    server, admin, start = app_stack()
    endpoint = admin.subscribe(receiver)
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("last_attempt_at"), 30, "an attempt")
    delivery = admin.newest(endpoint["id"])
    assert delivery["response_status"] == 429
    after = _seconds(delivery["next_attempt_at"]) - _seconds(delivery["last_attempt_at"])
    # An hour and the backoff (0.1 s at most) after the attempt, recorded a moment after it.
    assert 3599 < after < 3601


def _seconds(rfc3339):
    return datetime.datetime.fromisoformat(rfc3339).timestamp()


# Read by the sender: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("value", UNREADABLE)
def test_a_503_with_an_unreadable_retry_after_is_retried_by_the_backoff(
    app_stack, make_receiver, value
):
    receiver = make_receiver()
    receiver.script = [(503, {"Retry-After": value})]
    server, admin, start = app_stack()
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
