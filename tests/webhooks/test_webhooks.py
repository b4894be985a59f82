"""Webhooks: the contract's 'Events' section, with a real receiver over HTTP."""

import asyncio
import contextlib
import datetime
import hashlib
import hmac
import itertools
import json
import logging
import os
import pathlib
import re
import signal
import sqlite3
import subprocess
import threading
import time

import pytest
from sqlalchemy import create_engine, select

from app.config import ConfigError
from app.plants.store import plants
from app.webhooks import store as delivery_store
from app.webhooks.worker import Worker
from helpers import TOKEN
from liveserver import create_until_killed, environment, start_worker, wait_for
from receiver import Receiver, TricklingReceiver

SECRET = "webhook-test-secret"


@pytest.fixture
def receiver():
    """A subscriber listening on a local port; every delivery it got must verify."""
    server = Receiver(SECRET)
    yield server
    server.close()
    assert server.unverified == []


@pytest.fixture
def hooked_settings(receiver):
    """Settings that send every event to the receiver, retrying fast."""
    return {
        "WEBHOOK_URLS": receiver.url,
        "WEBHOOK_SECRET": SECRET,
        "WEBHOOK_MAX_ATTEMPTS": 3,
        "WEBHOOK_RETRY_DELAY": 0.05,
        "WEBHOOK_RETRY_MAX_DELAY": 0.2,
        "WEBHOOK_TIMEOUT": 1,
        "WEBHOOK_POLL_INTERVAL": 0.05,
        "WEBHOOK_RECEIVER_CONCURRENCY": 2,
    }


@contextlib.contextmanager
def running(app):
    """The app's worker, delivering on its own event loop in a thread until the block ends."""
    worker = Worker(app)
    thread = threading.Thread(target=asyncio.run, args=(worker.run(),))
    thread.start()
    try:
        wait_for(lambda: worker.loop is not None, 10, "the worker's loop")
        yield worker
    finally:
        if worker.loop is not None:
            worker.loop.call_soon_threadsafe(worker.stop)
        thread.join(timeout=30)
        assert not thread.is_alive()


@pytest.fixture
def hooked(make_app, hooked_settings):
    """An app with webhooks on, its client, and its CLI."""
    app = make_app(**hooked_settings)
    return app, app.test_client(), app.test_cli_runner()


def create(client, plant_id, name="Fern", **extra):
    body = {"id": plant_id, "name": name, **extra}
    return client.post("/plants", json=body, headers={"Authorization": f"Bearer {TOKEN}"})


def status_of(cli):
    return cli.invoke(args=["webhooks", "status"]).output


def settled(cli, delivered, failed=0):
    """Whether status shows nothing pending, and so many delivered and failed."""
    status = status_of(cli)
    return all(
        f"{word}: {count}\n" in status
        for word, count in (("pending", 0), ("delivered", delivered), ("failed", failed))
    )


def test_new_plant_is_posted_once_signed_with_the_exact_body(hooked, receiver):
    app, client, cli = hooked
    assert create(client, 7, "Aloe", tag="succulent", colour="green").status_code == 200
    with running(app):
        wait_for(lambda: settled(cli, delivered=1), 10, "the delivery")
    ((headers, body),) = receiver.requests
    assert json.loads(body) == {"id": 7, "name": "Aloe", "tag": "succulent"}
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Plantstore-Event"] == "plant.created"
    assert len(headers["X-Plantstore-Delivery"]) == 32
    expected = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert headers["X-Plantstore-Signature"] == f"sha256={expected}"
    assert headers["webhook-id"] == headers["X-Plantstore-Delivery"]
    assert abs(int(headers["webhook-timestamp"]) - time.time()) < 5


def test_every_receiver_gets_its_own_delivery(make_app, hooked_settings, receiver):
    other = Receiver(SECRET)
    try:
        app = make_app(**{**hooked_settings, "WEBHOOK_URLS": f"{receiver.url},{other.url}"})
        create(app.test_client(), 1)
        with running(app):
            wait_for(lambda: receiver.requests and other.requests, 10, "both deliveries")
        assert receiver.deliveries() != other.deliveries()
    finally:
        other.close()
    assert other.unverified == []


@pytest.mark.parametrize(
    "second",
    [
        pytest.param({"name": "Fern"}, id="idempotent replay"),
        pytest.param({"name": "Other"}, id="conflict"),
    ],
)
def test_no_event_unless_a_plant_is_created(hooked, receiver, second):
    app, client, cli = hooked
    create(client, 1, "Fern")
    create(client, 1, **second)
    create(client, 2, "")
    with running(app):
        wait_for(lambda: settled(cli, delivered=1), 10, "the delivery")
    assert len(receiver.requests) == 1


def test_failed_attempts_are_retried_with_the_same_delivery_id(hooked, receiver):
    app, client, cli = hooked
    receiver.script = [500, 503]
    create(client, 1)
    with running(app):
        wait_for(lambda: settled(cli, delivered=1), 10, "the third attempt")
    assert len(receiver.requests) == 3
    assert len(set(receiver.deliveries())) == 1


def test_status_gives_the_age_of_the_oldest_pending_delivery(
    make_app, hooked_settings, far_zone_url
):
    app = make_app(**hooked_settings, DATABASE_URL=far_zone_url)
    create(app.test_client(), 1)
    status = app.test_cli_runner().invoke(args=["webhooks", "status"]).output
    assert "pending: 1" in status
    age = re.search(r"oldest pending: (-?\d+)s", status)
    assert 0 <= int(age.group(1)) < 60, status


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param("status 500", id="server error"),
        pytest.param("redirect", id="redirect, not followed"),
        pytest.param("timeout", id="timeout"),
        pytest.param("refused", id="refused connection"),
    ],
)
def test_delivery_fails_after_the_last_attempt_then_retry_failed(
    make_app, hooked_settings, receiver, failure, caplog
):
    settings = dict(hooked_settings)
    if failure == "status 500":
        receiver.script = [500] * 3
    elif failure == "redirect":
        receiver.script = [302] * 3
    elif failure == "timeout":
        receiver.delay, settings["WEBHOOK_TIMEOUT"] = 0.5, 0.1
    else:
        settings["WEBHOOK_URLS"] = "http://127.0.0.1:9/hook"
    app = make_app(**settings)
    cli = app.test_cli_runner()
    create(app.test_client(), 1)
    with running(app):
        wait_for(lambda: settled(cli, delivered=0, failed=1), 10, "the delivery to fail")
    status = status_of(cli)
    assert "after 3 attempts" in status
    # Only the attempt that gives up is a warning, naming the delivery, receiver and last error.
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert len(warnings) == 1
    delivery_id = re.search(r"failed (\w+) ", status).group(1)
    last_error = status.rsplit(": ", 1)[1].strip()
    assert delivery_id in warnings[0].getMessage()
    assert settings["WEBHOOK_URLS"] in warnings[0].getMessage()
    assert last_error in warnings[0].getMessage()
    if failure != "refused":
        assert len(receiver.requests) == 3
        assert len(set(receiver.deliveries())) == 1
    receiver.delay = 0
    assert "Retrying 1" in cli.invoke(args=["webhooks", "retry-failed"]).output
    if failure == "refused":
        assert "pending: 1" in cli.invoke(args=["webhooks", "status"]).output
        return
    with running(app):
        wait_for(lambda: settled(cli, delivered=1), 10, "the retried delivery")
    assert receiver.deliveries()[-1] == receiver.deliveries()[0]


def test_a_delivery_whose_worker_was_lost_on_its_last_attempt_fails(hooked, receiver):
    app, client, cli = hooked
    create(client, 1)
    db = app.extensions["plantstore.db"]
    # Leases that have run out already: three workers that died mid-attempt.
    for _ in range(3):
        with db.transaction() as cursor:
            wants = {receiver.url: 1}
            assert delivery_store.claim(db, cursor, wants, datetime.timedelta(seconds=-1), 3)
    with running(app):
        wait_for(lambda: settled(cli, delivered=0, failed=1), 10, "the delivery to fail")
    status = status_of(cli)
    assert "failed: 1" in status
    assert "after 3 attempts: worker lost during the last attempt" in status
    assert receiver.requests == []


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        pytest.param({"WEBHOOK_URLS": "ftp://example.com/hook"}, "http(s)", id="not http"),
        pytest.param({"WEBHOOK_URLS": "http:///hook"}, "http(s)", id="no host"),
        pytest.param({"WEBHOOK_URLS": "example.com/hook"}, "http(s)", id="no scheme"),
        pytest.param({"WEBHOOK_SECRET": ""}, "WEBHOOK_SECRET", id="no secret"),
        pytest.param({"WEBHOOK_MAX_ATTEMPTS": 0}, "MAX_ATTEMPTS", id="zero attempts"),
        pytest.param({"WEBHOOK_TIMEOUT": -1}, "TIMEOUT", id="negative timeout"),
        pytest.param({"WEBHOOK_CONCURRENCY": 0}, "CONCURRENCY", id="no concurrency"),
        pytest.param({"WEBHOOK_RECEIVER_CONCURRENCY": "x"}, "RECEIVER", id="receivers' x"),
        pytest.param({"WEBHOOK_RETENTION": "x"}, "RETENTION", id="retention x"),
        pytest.param({"WEBHOOK_RETENTION_BATCH": 0}, "RETENTION_BATCH", id="no batch"),
        pytest.param({"WEBHOOK_CLAIM_BATCH": "x"}, "CLAIM_BATCH", id="claim batch x"),
    ],
)
def test_bad_webhook_settings_stop_the_start(make_app, hooked_settings, settings, says):
    with pytest.raises(ConfigError, match=re.escape(says)):
        make_app(**{**hooked_settings, **settings})


def test_a_bad_receiver_url_is_shown_without_its_secrets(make_app, hooked_settings):
    urls = f"{hooked_settings['WEBHOOK_URLS']},ftp://user:s3cr3t@example.com/hook?token=t0k3n"
    with pytest.raises(ConfigError, match=re.escape("ftp://user:***@example.com/hook'")) as refused:
        make_app(**{**hooked_settings, "WEBHOOK_URLS": urls})
    assert "s3cr3t" not in str(refused.value) and "t0k3n" not in str(refused.value)


@pytest.fixture
def hooked_server(live_server, database_url, hooked_settings, start_workers):
    """gunicorn with webhooks on, and a way to start `flask webhooks run` workers beside it."""
    server = live_server(database_url, **environment(hooked_settings))
    return server, lambda: start_workers(server.env)[0]


def create_many(server, count):
    """Create plants 0 .. count-1 through the server; every one must be a 200."""
    for plant_id in range(count):
        assert server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status == 200


@pytest.mark.e2e
def test_creates_do_not_wait_for_the_worker_and_events_flow_once_it_starts(hooked_server, receiver):
    server, worker = hooked_server
    create_many(server, 20)
    assert "pending: 20" in server.cli("webhooks", "status")
    worker()
    wait_for(lambda: len(receiver.requests) >= 20, 30, "20 deliveries")
    bodies = sorted(json.loads(body)["id"] for _, body in receiver.requests)
    assert bodies == list(range(20))


@pytest.mark.e2e
def test_worker_stops_cleanly_on_sigterm_finishing_its_delivery(hooked_server, receiver):
    server, worker = hooked_server
    receiver.delay = 0.5  # long enough to signal mid-send, well within the 1 s timeout
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    process = worker()
    wait_for(lambda: receiver.requests, 15, "the delivery to start")
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=15) == 0
    assert "delivered: 1" in server.cli("webhooks", "status")
    assert len(receiver.requests) == 1


@pytest.mark.e2e
def test_kill_9_of_the_worker_loses_no_event(hooked_server, hooked_settings, receiver):
    server, worker = hooked_server
    receiver.delay = 0.1
    create_many(server, 40)
    process = worker()
    wait_for(lambda: len(receiver.requests) >= 10, 30, "some deliveries")
    process.kill()
    process.wait()
    worker()
    expected = set(range(40))
    wait_for(
        lambda: {json.loads(body)["id"] for _, body in receiver.requests} >= expected,
        60,
        "every event after the restart",
    )
    # A delivery sent but not yet recorded at the kill is sent again once its claim runs out:
    # at least once. Each of the receiver's slots holds one attempt in flight and, since
    # outcomes are recorded every 50 ms and an answer here takes 100, at most one answered
    # attempt waiting to be recorded.
    wait_for(lambda: "pending: 0" in server.cli("webhooks", "status"), 30, "no pending delivery")
    deliveries = receiver.deliveries()
    slots = hooked_settings["WEBHOOK_RECEIVER_CONCURRENCY"]
    assert len(deliveries) - len(set(deliveries)) <= 2 * slots


@pytest.mark.e2e
def test_two_workers_deliver_each_event_once(hooked_server, receiver):
    server, worker = hooked_server
    receiver.delay = 0.02
    create_many(server, 40)
    worker()
    worker()
    wait_for(lambda: len(receiver.requests) >= 40, 60, "40 deliveries")
    wait_for(lambda: "pending: 0" in server.cli("webhooks", "status"), 30, "no pending delivery")
    deliveries = receiver.deliveries()
    assert len(deliveries) == len(set(deliveries)) == 40


@pytest.mark.e2e
def test_kill_9_of_the_web_server_leaves_one_event_per_stored_plant(
    hooked_server, receiver, database_url
):
    server, worker = hooked_server
    acknowledged = create_until_killed(server, 100)
    engine = create_engine(database_url)
    with engine.connect() as conn:
        stored = set(conn.execute(select(plants.c.id)).scalars())
    engine.dispose()
    assert set(acknowledged) <= stored
    worker()
    wait_for(lambda: "pending: 0" in server.cli("webhooks", "status"), 60, "no pending delivery")
    # The plant and its delivery commit together: the kill left no plant without its event.
    delivered = re.search(r"delivered: (\d+)", server.cli("webhooks", "status"))
    assert int(delivered.group(1)) == len(stored)
    assert sorted(json.loads(body)["id"] for _, body in receiver.requests) == sorted(stored)


def test_a_delivery_is_what_the_document_describes(hooked, receiver):
    app, client, cli = hooked
    document = client.get("/openapi.json").get_json()
    webhook = document["webhooks"]["plant.created"]["post"]
    new_plant = document["components"]["schemas"]["NewPlant"]
    assert create(client, 8, "Aloe", tag="succulent").status_code == 200
    with running(app):
        wait_for(lambda: settled(cli, delivered=1), 10, "the delivery")
    ((headers, body),) = receiver.requests
    for parameter in webhook["parameters"]:
        value = headers[parameter["name"]]
        assert re.fullmatch(parameter["schema"].get("pattern", ".+"), value)
        assert value in parameter["schema"].get("enum", [value])
    assert set(json.loads(body)) == set(new_plant["properties"])


def worker_survives(server, start_workers, receiver, outage, recovery):
    """Start a worker, cause an outage until it has paused twice, end it; the worker goes on."""
    process, log_path = start_workers(server.env)
    wait_for(lambda: "Delivering webhooks" in log_path.read_text(), 30, "the worker to start")
    outage()
    wait_for(
        lambda: log_path.read_text().count("database unavailable, trying again") >= 2,
        30,
        lambda: f"two pauses in the worker's log:\n{log_path.read_text()}",
    )
    recovery()
    assert process.poll() is None, log_path.read_text()
    wait_for(lambda: server.request("GET", "/healthz").status == 200, 30, "the database back")
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    started = time.monotonic()
    wait_for(lambda: receiver.requests, 40, lambda: f"a delivery; log:\n{log_path.read_text()}")
    # The pause after an outage is at most 30 s, plus one database timeout.
    assert time.monotonic() - started < 40
    assert process.poll() is None
    assert "Traceback" not in log_path.read_text()


@pytest.mark.e2e
def test_worker_outlives_a_write_lock_held_by_another_program(
    live_server, tmp_path, hooked_settings, receiver, start_workers
):
    database = tmp_path / "held.sqlite"
    env = environment({**hooked_settings, "DATABASE_TIMEOUT": 1})
    server = live_server(f"sqlite:///{database}", **env)
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        worker_survives(
            server,
            start_workers,
            receiver,
            outage=lambda: holder.execute("BEGIN IMMEDIATE"),
            recovery=lambda: holder.execute("ROLLBACK"),
        )
    finally:
        holder.close()


@pytest.mark.e2e
def test_worker_outlives_a_postgresql_restart(
    live_server, private_postgres, hooked_settings, receiver, start_workers
):
    env = environment({**hooked_settings, "DATABASE_TIMEOUT": 2})
    server = live_server(private_postgres.url, **env)
    worker_survives(server, start_workers, receiver, private_postgres.stop, private_postgres.start)


@pytest.fixture
def trickler():
    """A receiver that answers one byte every half second, for ever."""
    server = TricklingReceiver(interval=0.5)
    yield server
    server.close()


@pytest.mark.e2e
def test_a_trickling_answer_ends_each_attempt_at_the_timeout(
    live_server, database_url, hooked_settings, trickler, start_workers
):
    timeout = 2
    settings = {**hooked_settings, "WEBHOOK_URLS": trickler.url, "WEBHOOK_TIMEOUT": timeout}
    server = live_server(database_url, **environment(settings))
    start_workers(server.env)
    start_workers(server.env)
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    wait_for(lambda: "failed: 1" in server.cli("webhooks", "status"), 60, "the delivery to fail")
    assert "after 3 attempts: timeout" in server.cli("webhooks", "status")
    assert len(trickler.attempts) == 3
    attempts = sorted(trickler.attempts)
    for opened, closed in attempts:
        assert closed is not None
        assert closed - opened < timeout + 1.5
    # The two workers never sent the delivery at the same time.
    for (_, closed), (opened, _) in itertools.pairwise(attempts):
        assert closed <= opened


def test_worker_without_receivers_idles_until_stopped_and_says_why(tmp_path):
    database = f"sqlite:///{tmp_path / 'plantstore.sqlite'}"
    env = {**os.environ, "PLANTSTORE_DATABASE_URL": database, "PLANTSTORE_WEBHOOK_URLS": ""}
    log_path = tmp_path / "worker.log"
    with open(log_path, "ab") as log:
        process = start_worker(env, log)
    try:
        wait_for(lambda: "idle until stopped" in log_path.read_text(), 30, "the idle line")
        assert process.poll() is None, "a Procfile runner would stop every process"
        # Idle means asleep: a second without exiting costs next to no CPU time.
        cpu = _cpu_seconds(process.pid)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=1)
        assert _cpu_seconds(process.pid) - cpu < 0.1
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert "PLANTSTORE_WEBHOOK_URLS is empty" in log_path.read_text()


def _cpu_seconds(pid):
    stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
