"""Each receiver's window, the worker in the test's process: it opens as TCP's does for a
receiver far away, beside a black hole held to its few slots, and falls back at the first
timeout; /metrics shows it (plantstore_webhook_window)."""

import re
import time

import pytest

from harness.processes import wait_for
from harness.receivers import SilentReceiver
from support.receivers import Receiver
from support.webhooks import (
    SECRET,
    answered_by,
    create_many,
    first_in_flight,
    most_in_flight,
    receiver_settings,
)

BASE = 4  # PLANTSTORE_WEBHOOK_RECEIVER_CONCURRENCY's default
FAR = 0.05  # seconds a receiver far away takes to answer
# The answers before 64 are open at once: 91 to 119 on a quiet machine, 343 beside four busy
# processes; a window growing by 1/window a 2xx holds 45 after 1,000.
SLOW_START_MOST = 1000


@pytest.fixture
def far():
    """A receiver that answers 204 after 50 ms; every request must verify."""
    server = Receiver(SECRET, status=204)
    server.delay = FAR
    yield server
    server.close()
    assert server.unverified == []


def window_of(server, receiver):
    """plantstore_webhook_window of receiver (its URL) on server's /metrics; 0 when absent."""
    page = server.request("GET", "/metrics").body.decode()
    found = re.search(rf'^plantstore_webhook_window\{{receiver="{receiver}"\}} (\S+)$', page, re.M)
    return float(found.group(1)) if found else 0.0


def backlog_sent(app_stack, backlog, *urls, **extra):
    """backlog events for urls, waiting, then one worker sending them (the window is summed
    over the workers): the server and the worker."""
    settings = receiver_settings(SECRET, *urls, WEBHOOK_POLL_INTERVAL=0.1, **extra)
    server, _, start = app_stack(**settings)
    create_many(server, backlog)
    ((worker, _),) = start(count=1)
    return server, worker


def test_a_receiver_50_ms_away_opens_to_64_in_slow_start_beside_a_black_hole(app_stack, far):
    hole = SilentReceiver()
    try:
        server, _ = backlog_sent(app_stack, 2000, hole.url, far.url, WEBHOOK_TIMEOUT=2)
        wait_for(lambda: far.arrivals, 30, "the first delivery to the far receiver")
        # Timed at the receiver, 64 attempts open at once: /metrics shows a size up to
        # WINDOWS_INTERVAL later (ledger.py), which is not the window's to spend.
        wait_for(lambda: first_in_flight(far.attempts, 64), 10, "64 attempts at once")
        # Counted in answers, which a loaded machine does not stretch as it does the round
        # trip: slow start opens 64 after about 60 2xx, one slot a round trip after ~2,000.
        assert answered_by(far.attempts, first_in_flight(far.attempts, 64)) <= SLOW_START_MOST
        wait_for(lambda: window_of(server, far.url) >= 64, 10, "the far receiver's window at 64")
        assert window_of(server, hole.url) <= BASE
        assert most_in_flight(hole.attempts) <= BASE
    finally:
        hole.close()


def test_a_receiver_that_answers_then_times_out_falls_back_at_once(app_stack, far):
    timeout = 0.5
    server, worker = backlog_sent(app_stack, 3000, far.url, WEBHOOK_TIMEOUT=timeout)
    wait_for(lambda: window_of(server, far.url) >= 16, 10, "the window to open")
    far.delay = 4 * timeout  # from now on, every attempt times out
    switched = time.monotonic()
    wait_for(lambda: window_of(server, far.url) == BASE, 5, "the window back to its floor")
    fell = time.monotonic()
    assert fell - switched <= timeout + 1.5
    # Once the attempts sent before the fall-back have timed out, the worker holds no more than
    # the floor's in flight: read off its window, for the receiver's clock is the test
    # process's, whose threads a loaded machine pauses and then runs in a burst.
    window = worker.worker.windows.by_key[far.url]
    wait_for(lambda: window.in_flight <= BASE, timeout + 1.5, "the attempts from before it ended")
    seen = set()
    while time.monotonic() < fell + 4 * timeout:
        seen.add(window.in_flight)
        time.sleep(0.01)
    assert 0 < max(seen) <= BASE, seen
    assert far.arrivals[-1] > fell  # still tried, on its schedule


def test_a_deleted_endpoint_s_window_leaves_metrics(app_stack, make_receiver):
    receiver = make_receiver()
    server, admin, start = app_stack()
    endpoint = admin.subscribe(receiver)
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: window_of(server, endpoint["id"]) > 0, 30, "the endpoint's window")
    admin.delete(endpoint["id"])
    deleted = time.monotonic()
    # The workers forget a receiver that has nothing left, and /metrics its window in 5 s.
    wait_for(lambda: window_of(server, endpoint["id"]) == 0, 30, "the window gone")
    assert time.monotonic() - deleted < 5 + 2
