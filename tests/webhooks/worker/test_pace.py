"""Webhooks at the API's pace: isolation, retention, signatures and per-receiver views, with
the API and a worker in process (Stack); SIGTERM and a bad setting on the worker process
(`flask webhooks run`), where the process is the point; real local receivers throughout."""

import base64
import collections
import datetime
import re
import signal
import subprocess
import sys
import time

import pytest
from sqlalchemy import create_engine, text
from standardwebhooks import webhooks as standard
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from harness.processes import ROOT, wait_for
from harness.receivers import SilentReceiver
from support.in_process import Stack
from support.live_servers import environment
from support.receivers import Receiver
from support.tokens import TOKEN
from support.webhooks import published, receiver_settings

SECRET = "pace-test-secret-ü"


@pytest.fixture
def receivers():
    """A receiver that never answers, one that answers 500 and a healthy one; every request
    the answering two got must verify with the standardwebhooks library."""
    hung, failing, healthy = SilentReceiver(), Receiver(SECRET, status=500), Receiver(SECRET)
    yield hung, failing, healthy
    for server in (hung, failing, healthy):
        server.close()
    assert failing.unverified == healthy.unverified == []


def settings(*urls, **extra):
    """Webhook settings for these receivers, retrying fast."""
    return receiver_settings(SECRET, *urls, **extra)


@pytest.fixture
def outbox(database_url):
    """Counts of the deliveries table by receiver URL and status, read straight from it."""
    engine = create_engine(database_url)

    def counts(column="COUNT(*)", where="1 = 1"):
        query = (
            f"SELECT receiver, status, {column} FROM deliveries WHERE {where} "
            "GROUP BY receiver, status"
        )
        with engine.connect() as conn:
            return {(url, status): value for url, status, value in conn.execute(text(query))}

    yield counts
    engine.dispose()


@pytest.fixture
def stack(make_app):
    """The webhook stack in process on the test database; its workers stopped afterwards."""
    made = Stack(make_app)
    yield made
    made.stop()


def serve(stack, config):
    """An AppServer with config: the API through the test client."""
    return stack.server(environment(config), TOKEN)


def create(server, plant_id):
    """Create a plant; when its 200 answer came (time.monotonic())."""
    assert server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status == 200
    return time.monotonic()


def test_a_healthy_receiver_gets_each_event_within_2_s_beside_a_hung_and_a_failing_one(
    stack, receivers, outbox
):
    hung, failing, healthy = receivers
    timeout, attempts, plants = 0.5, 3, 8
    # The failing receivers come first, and the worker polls at the default interval.
    config = settings(hung.url, failing.url, healthy.url, WEBHOOK_RECEIVER_CONCURRENCY=2)
    server = serve(stack, config)
    stack.start(server.env, 1)  # a worker in a thread
    answered = {plant_id: create(server, plant_id) for plant_id in range(plants)}
    wait_for(lambda: len(healthy.arrived()) == plants, 10, "every event at the healthy receiver")
    delays = [healthy.arrived()[plant_id] - at for plant_id, at in answered.items()]
    assert max(delays) <= 2, delays
    # The failing ones are still tried on their schedule, each delivery exactly 3 times.
    wait_for(
        lambda: (
            outbox()
            == {
                (hung.url, "failed"): plants,
                (failing.url, "failed"): plants,
                (healthy.url, "delivered"): plants,
            }
        ),
        30,
        lambda: f"the failing receivers' deliveries to fail: {outbox()}",
    )
    assert outbox("MAX(attempts)", "status = 'failed'") == {
        (hung.url, "failed"): attempts,
        (failing.url, "failed"): attempts,
    }
    assert sorted(collections.Counter(failing.deliveries()).values()) == [attempts] * plants
    assert len(hung.attempts) == attempts * plants
    # Each hung attempt ended at the timeout: it held only the hung receiver's own slots.
    assert all(closed - opened < timeout + 0.5 for opened, closed in hung.attempts)
    assert len(healthy.requests) == plants


@pytest.mark.e2e
def test_sigterm_lets_attempts_in_flight_end_records_them_and_leaves_nothing_claimed(
    make_app, database_url, receivers, start_workers, outbox
):
    hung, _, healthy = receivers
    timeout = 2
    healthy.delay = 0.3
    config = settings(hung.url, healthy.url, WEBHOOK_TIMEOUT=timeout)
    published(make_app, config, 12)  # the API in process: the worker's process is the point
    process, log = start_workers({"PLANTSTORE_DATABASE_URL": database_url, **environment(config)})
    wait_for(lambda: "Delivering webhooks" in log.read_text(), 30, "the worker to start")
    wait_for(lambda: len(hung.attempts) >= 4 and healthy.requests, 10, "attempts in flight")
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=timeout + 10) == 0, log.read_text()
    # Attempts in flight end by their timeout, and are recorded at once: the rest is the
    # process's exit, which a loaded machine slows, far short of a lease (19 s here).
    assert time.monotonic() - signalled < timeout + 3, log.read_text()
    assert "Webhook worker stopped." in log.read_text()
    assert outbox(where="claimed_until IS NOT NULL") == {}
    # Every attempt a receiver saw is counted, and none that it did not see.
    sent = outbox("SUM(attempts)")
    assert sum(count for (url, _), count in sent.items() if url == hung.url) == len(hung.attempts)
    assert sum(count for (url, _), count in sent.items() if url == healthy.url) == len(
        healthy.requests
    )
    assert all(closed is not None for _, closed in hung.attempts)


def test_delivered_rows_go_after_the_retention_and_failed_ones_stay_until_purged(
    stack, receivers, outbox
):
    _, failing, healthy = receivers
    retention, plants = 2, 5
    config = settings(
        failing.url,
        healthy.url,
        WEBHOOK_MAX_ATTEMPTS=1,
        WEBHOOK_RETENTION=retention,
        WEBHOOK_RETENTION_BATCH=2,
        WEBHOOK_POLL_INTERVAL=0.05,
    )
    server = serve(stack, config)
    stack.start(server.env, 1)  # a worker in a thread
    for plant_id in range(plants):
        create(server, plant_id)
    wait_for(
        lambda: outbox() == {(failing.url, "failed"): plants, (healthy.url, "delivered"): plants},
        10,
        lambda: f"every delivery done: {outbox()}",
    )
    done = time.monotonic()
    wait_for(lambda: (healthy.url, "delivered") not in outbox(), retention + 5, "the deletion")
    # Deleted a batch of 2 at a time, within seconds of becoming old, and not before.
    assert retention - 0.5 < time.monotonic() - done < retention + 3
    assert outbox() == {(failing.url, "failed"): plants}
    assert f"Deleted {plants} failed" in server.cli("webhooks", "purge-failed")
    assert outbox() == {}
    assert "failed: 0" in server.cli("webhooks", "status")


def test_secret_is_printed_for_standard_webhooks_and_an_old_replay_is_refused(
    stack, receivers, monkeypatch
):
    _, _, healthy = receivers
    server = serve(stack, settings(healthy.url))
    stack.start(server.env, 1)  # a worker in a thread
    create(server, 7)
    wait_for(lambda: healthy.requests, 10, "the delivery")
    printed = server.cli("webhooks", "secret").strip()
    assert printed == "whsec_" + base64.b64encode(SECRET.encode()).decode()
    ((headers, body),) = healthy.requests
    verifier = Webhook(printed)
    assert verifier.verify(body, headers) == {"id": 7, "name": "Fern"}
    with pytest.raises(WebhookVerificationError, match="No matching signature"):
        verifier.verify(body.replace(b"Fern", b"Fake"), headers)
    # The same capture replayed six minutes later is refused: its signed time is too old.
    later = datetime.datetime.now(datetime.UTC) + datetime.timedelta(minutes=6)

    class Later(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return later

    monkeypatch.setattr(standard, "datetime", Later)
    with pytest.raises(WebhookVerificationError, match="too old"):
        verifier.verify(body, headers)


def metric_samples(server):
    page = server.request("GET", "/metrics").body.decode()
    pattern = r"^(plantstore_webhook_\w+)\{(.*)\} (\S+)$"
    return page, {
        (name, labels): float(value) for name, labels, value in re.findall(pattern, page, re.M)
    }


def deliveries_of(receiver, status):
    """The key of a plantstore_webhook_deliveries sample in metric_samples' answer."""
    return ("plantstore_webhook_deliveries", f'receiver="{receiver}",status="{status}"')


def test_status_and_metrics_per_receiver_never_show_a_secret_of_its_url(stack, receivers):
    _, _, healthy = receivers
    port = healthy.url.split(":")[2].split("/")[0]
    secrets = ("alice", "pa55word", "t0ps3cret", "bob", "hunter2", "k3y")
    good = f"http://alice:pa55word@127.0.0.1:{port}/hook?token=t0ps3cret"
    refused = "http://bob:hunter2@127.0.0.1:9/hook?key=k3y"
    server = serve(stack, settings(good, refused))
    for plant_id in range(3):
        create(server, plant_id)
    # Before any worker: both receivers hold 3 pending deliveries, aging.
    named_good, named_refused = f"http://127.0.0.1:{port}/hook", "http://127.0.0.1:9/hook"
    oldest = ("plantstore_webhook_oldest_pending_seconds", f'receiver="{named_refused}"')
    wait_for(lambda: metric_samples(server)[1].get(oldest, 0) >= 1, 10, "the oldest to age")
    _, samples = metric_samples(server)
    for name in (named_good, named_refused):
        assert samples[deliveries_of(name, "pending")] == 3
    status = server.cli("webhooks", "status")
    assert re.search(
        rf"receiver {re.escape(named_refused)}: pending 3, failed 0, oldest pending [1-9]", status
    )
    stack.start(server.env, 1)  # a worker in a thread
    wait_for(lambda: len(healthy.requests) == 3, 10, "the healthy receiver's deliveries")
    wait_for(lambda: "failed: 3" in server.cli("webhooks", "status"), 10, "the refused ones")
    page, samples = metric_samples(server)
    assert samples[deliveries_of(named_refused, "failed")] == 3
    assert samples[deliveries_of(named_good, "pending")] == 0
    status = server.cli("webhooks", "status")
    assert f"receiver {named_good}: pending 0, failed 0" in status
    assert f"receiver {named_refused}: pending 0, failed 3" in status
    # The log: the lines of the API's app and of the worker's.
    for shown in (status, page, stack.lines.read_text()):
        assert not [secret for secret in secrets if secret in shown], shown


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("PLANTSTORE_WEBHOOK_CONCURRENCY", "0"),
        ("PLANTSTORE_WEBHOOK_RECEIVER_CONCURRENCY", "x"),
        ("PLANTSTORE_WEBHOOK_RETENTION", "x"),
        ("PLANTSTORE_WEBHOOK_RETENTION_BATCH", "-1"),
    ],
)
def test_a_bad_setting_stops_the_worker_in_one_line(tmp_path, variable, value):
    env = {
        "PLANTSTORE_DATABASE_URL": f"sqlite:///{tmp_path / 'plantstore.sqlite'}",
        "PLANTSTORE_WEBHOOK_URLS": "http://127.0.0.1:9/hook",
        "PLANTSTORE_WEBHOOK_SECRET": SECRET,
        variable: value,
    }
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "flask", "--app", "wsgi", "webhooks", "run"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode != 0
    assert time.monotonic() - started < 10
    (line,) = result.stderr.strip().splitlines()
    assert variable in line and repr(value if value == "x" else int(value)) in line, line
