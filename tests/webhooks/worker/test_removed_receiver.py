"""A receiver removed from PLANTSTORE_WEBHOOK_URLS while it still has deliveries pending: they
are still sent, as the docs say, or fail at once when no secret is left to sign them with; none
stays pending for good, not even those that retry-failed makes pending again while a worker runs."""

import time

import pytest

from app.database import utcnow
from app.webhooks.worker.loop import UNSIGNED
from harness.processes import wait_for
from support.endpoints import add_delivery, delivery_rows
from support.in_process import running
from support.receivers import Receiver
from support.webhooks import SECRET, create, settled, status_of


def pending(server, url):
    """The receiver's pending deliveries, as `webhooks status` counts them."""
    for line in server.cli("webhooks", "status").splitlines():
        if line.startswith(f"receiver {url}: "):
            return int(line.split("pending ")[1].split(",")[0])
    return None


def retention_pass(app, receiver):
    """Wait for a running worker's retention to pass again: it deletes an old delivered row of
    receiver, written now."""
    old = add_delivery(app, receiver, status="delivered")
    wait_for(lambda: old not in delivery_rows(app), 10, "a retention pass")


# Which receivers the worker sends to: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_removed_receivers_pending_delivery_is_still_sent(app_stack, receiver):
    server, _, start = app_stack(
        WEBHOOK_URLS=receiver.url,
        WEBHOOK_SECRET=SECRET,
        # The second attempt comes 1 to 2 s after the first: after the restart below.
        WEBHOOK_RETRY_DELAY=2,
        WEBHOOK_RETRY_MAX_DELAY=2,
    )
    other = Receiver(SECRET)
    try:
        receiver.status = 500
        [(worker, _)] = start()
        server.request("POST", "/plants", {"id": 1, "name": "Fern"})
        wait_for(lambda: receiver.requests, 15, "the first attempt")
        worker.stop()  # as SIGTERM does: the attempt is recorded, and the worker ends
        assert worker.poll() == 0
        assert pending(server, receiver.url) == 1
        receiver.status = 200
        restarted = time.monotonic()
        start(WEBHOOK_URLS=other.url)
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


def test_a_removed_receivers_delivery_retried_while_the_worker_runs_is_sent(make_app, receiver):
    other = Receiver(SECRET)
    try:
        app = make_app(
            WEBHOOK_URLS=other.url,
            WEBHOOK_SECRET=SECRET,
            WEBHOOK_TIMEOUT=1,
            WEBHOOK_POLL_INTERVAL=0.05,
        )
        cli = app.test_cli_runner()
        with running(app):
            create(app.test_client(), 1)
            wait_for(lambda: other.requests, 10, "a delivery: the worker is past its start")
            # Failed by a host that still had the URL, after this worker started: only a look
            # made while it runs can find the URL.
            add_delivery(app, receiver.url, created_at=utcnow(), last_error="HTTP 500")
            assert "Retrying 1" in cli.invoke(args=["webhooks", "retry-failed"]).output
            retried = time.monotonic()
            wait_for(lambda: receiver.requests, 10, lambda: status_of(cli))
            assert time.monotonic() - retried < 5
            wait_for(lambda: settled(cli, delivered=2), 10, lambda: status_of(cli))
        assert len(receiver.requests) == len(other.requests) == 1
    finally:
        other.close()
    assert other.unverified == []


def test_a_removed_receivers_retried_delivery_with_no_secret_fails_again_warned_once_each_time(
    make_app, receiver, caplog
):
    app = make_app(WEBHOOK_POLL_INTERVAL=0.05)  # no receiver configured, and so no secret
    cli = app.test_cli_runner()
    add_delivery(app, receiver.url, status="pending", attempts=1, next_attempt_at=utcnow())

    def warned():
        return [each for each in caplog.records if UNSIGNED in each.getMessage()]

    with running(app):
        wait_for(lambda: settled(cli, delivered=0, failed=1), 10, lambda: status_of(cli))
        # Two later passes: the first has looked at the failed row again once the second deletes.
        retention_pass(app, receiver.url)
        retention_pass(app, receiver.url)
        assert len(warned()) == 1
        assert "Retrying 1" in cli.invoke(args=["webhooks", "retry-failed"]).output
        retried = time.monotonic()
        wait_for(lambda: settled(cli, delivered=0, failed=1), 10, lambda: status_of(cli))
        assert time.monotonic() - retried < 5
    assert len(warned()) == 2
    assert receiver.requests == []  # never signed with an empty secret
