"""A receiver removed from PLANTSTORE_WEBHOOK_URLS while it still has deliveries pending: they
are still sent, as the docs say, or fail at once when no secret is left to sign them with; none
stays pending for good."""

import signal
import time

import pytest

from app.database import utcnow
from app.webhooks.worker.loop import UNSIGNED
from endpoint_helpers import add_delivery
from harness.processes import wait_for
from liveserver import environment
from receiver import Receiver
from webhook_helpers import SECRET, running, settled, status_of


def pending(server, url):
    """The receiver's pending deliveries, as `webhooks status` counts them."""
    for line in server.cli("webhooks", "status").splitlines():
        if line.startswith(f"receiver {url}: "):
            return int(line.split("pending ")[1].split(",")[0])
    return None


# Which receivers the worker sends to: the database plays no part, so SQLite alone.
@pytest.mark.e2e
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_removed_receivers_pending_delivery_is_still_sent(
    live_server, database_url, receiver, start_workers
):
    settings = {
        "WEBHOOK_URLS": receiver.url,
        "WEBHOOK_SECRET": SECRET,
        "WEBHOOK_MAX_ATTEMPTS": 3,
        # The second attempt comes 1 to 2 s after the first: after the restart below.
        "WEBHOOK_RETRY_DELAY": 2,
        "WEBHOOK_TIMEOUT": 1,
        "WEBHOOK_POLL_INTERVAL": 0.05,
    }
    server = live_server(database_url, **environment(settings))
    other = Receiver(SECRET)
    try:
        receiver.status = 500
        process, _ = start_workers(server.env)
        server.request("POST", "/plants", {"id": 1, "name": "Fern"})
        wait_for(lambda: receiver.requests, 15, "the first attempt")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=15) == 0
        assert pending(server, receiver.url) == 1
        receiver.status = 200
        restarted = time.monotonic()
        start_workers({**server.env, **environment({"WEBHOOK_URLS": other.url})})
        wait_for(lambda: len(receiver.requests) == 2, 15, "the removed receiver's retry")
        wait_for(lambda: pending(server, receiver.url) == 0, 10, "nothing pending")
        assert time.monotonic() - restarted < 10
        assert "pending: 0\ndelivered: 1\nfailed: 0" in server.cli("webhooks", "status")
        assert other.requests == []
    finally:
        other.close()
    assert other.unverified == []


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_removed_receivers_pending_delivery_fails_at_once_with_no_secret_to_sign_it(
    make_app, receiver
):
    app = make_app(WEBHOOK_POLL_INTERVAL=0.05)  # no receiver configured, and so no secret
    add_delivery(app, receiver.url, status="pending", attempts=1, next_attempt_at=utcnow())
    cli = app.test_cli_runner()
    with running(app):
        started = time.monotonic()
        wait_for(lambda: settled(cli, delivered=0, failed=1), 10, lambda: status_of(cli))
        assert time.monotonic() - started < 5
    assert UNSIGNED in status_of(cli)
    assert receiver.requests == []  # never signed with an empty secret
