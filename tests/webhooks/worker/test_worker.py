"""The webhook worker: what it delivers beside the API, in process; and as a process where the
process is the point: killed with -9, outliving its database, idling at next to no CPU."""

import itertools
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest
from sqlalchemy import create_engine, select, text

from app import create_app, database
from app.database import migrate
from app.plants.store import plants
from harness.processes import cpu_ticks, wait_for
from harness.receivers import TricklingReceiver
from harness.worker import start_worker
from support.in_process import AppServer, RunningWorker, running
from support.live_servers import create_until_killed, environment, settings_of
from support.tokens import TOKEN
from support.webhooks import create, create_many, no_pending, status_of


def test_creates_do_not_wait_for_the_worker_and_events_flow_once_it_starts(hooked, receiver):
    app, client, cli = hooked
    for plant_id in range(20):
        assert create(client, plant_id).status_code == 200
    assert status_of(cli).startswith("pending: 20\n")
    with running(app):
        wait_for(lambda: len(receiver.requests) >= 20, 30, "20 deliveries")
    bodies = sorted(json.loads(body)["id"] for _, body in receiver.requests)
    assert bodies == list(range(20))


def test_a_stopped_worker_finishes_its_delivery_in_flight(hooked, receiver):
    """stop() is what SIGTERM calls; the signal itself: test_pace.py, on a process."""
    app, client, cli = hooked
    receiver.delay = 0.5  # long enough to stop mid-send, well within the 1 s timeout
    assert create(client, 1).status_code == 200
    worker = RunningWorker(app)
    wait_for(lambda: receiver.requests, 15, "the delivery to start")
    stopped = time.monotonic()
    worker.stop()
    assert time.monotonic() - stopped < 15
    assert "delivered: 1" in status_of(cli)
    assert len(receiver.requests) == 1


@pytest.mark.e2e
def test_kill_9_of_the_worker_loses_no_event(
    hooked, hooked_settings, database_url, receiver, start_workers
):
    _, client, cli = hooked
    receiver.delay = 0.1
    for plant_id in range(40):  # the API in process: the worker's process is the point
        assert create(client, plant_id).status_code == 200
    # A claim's lease is 2 timeouts, the database's and a margin: a short one ends it sooner.
    settings = {**hooked_settings, "DATABASE_TIMEOUT": 2}
    env = {"PLANTSTORE_DATABASE_URL": database_url, **environment(settings)}
    process, _ = start_workers(env)
    wait_for(lambda: len(receiver.requests) >= 10, 30, "some deliveries")
    process.kill()
    process.wait()
    unrecorded = claimed_at_the_kill(database_url)
    start_workers(env)
    expected = set(range(40))
    wait_for(
        lambda: {json.loads(body)["id"] for _, body in receiver.requests} >= expected,
        60,
        "every event after the restart",
    )
    # At least once: a delivery claimed but not recorded at the kill (sent, or queued for its
    # slot) is sent again once its claim runs out; one recorded as delivered never is.
    wait_for(lambda: status_of(cli).startswith("pending: 0\n"), 30, "no pending delivery")
    deliveries = receiver.deliveries()
    repeated = {delivery for delivery in deliveries if deliveries.count(delivery) > 1}
    assert repeated <= unrecorded
    assert all(deliveries.count(delivery) == 2 for delivery in repeated)


def claimed_at_the_kill(database_url):
    """The ids of the deliveries a worker had claimed and not yet recorded."""
    engine = create_engine(database_url)
    with engine.connect() as conn:
        claimed = conn.execute(
            text("SELECT id FROM deliveries WHERE status = 'pending' AND claimed_until IS NOT NULL")
        )
        ids = {row[0] for row in claimed}
    engine.dispose()
    return ids


def test_two_workers_deliver_each_event_once(app_stack, hooked_settings, receiver):
    server, _, start = app_stack(**hooked_settings)
    receiver.delay = 0.02
    create_many(server, 40)
    start(count=2)
    wait_for(lambda: len(receiver.requests) >= 40, 60, "40 deliveries")
    wait_for(lambda: no_pending(server), 30, "no pending delivery")
    deliveries = receiver.deliveries()
    assert len(deliveries) == len(set(deliveries)) == 40


@pytest.mark.e2e
def test_kill_9_of_the_web_server_leaves_one_event_per_stored_plant(
    live_server, database_url, make_app, hooked_settings, receiver
):
    server = live_server(database_url, **environment(hooked_settings))
    acknowledged = create_until_killed(server, 100)
    engine = create_engine(database_url)
    with engine.connect() as conn:
        stored = set(conn.execute(select(plants.c.id)).scalars())
    engine.dispose()
    assert set(acknowledged) <= stored
    with running(make_app(**hooked_settings)):
        wait_for(lambda: no_pending(server), 60, "no pending delivery")
    # The plant and its delivery commit together: the kill left no plant without its event.
    status = server.cli("webhooks", "status")
    assert f"delivered: {len(stored)}\n" in status, status
    assert sorted(json.loads(body)["id"] for _, body in receiver.requests) == sorted(stored)


@pytest.fixture
def app_on():
    """app_on(database_url, settings): an AppServer on that database, its schema made, whose
    env a worker process is started with; its engine is disposed afterwards."""
    made = []

    def make(database_url, settings):
        env = {"PLANTSTORE_DATABASE_URL": database_url, **environment(settings)}
        app = create_app({"TESTING": True, "API_TOKENS": TOKEN, **settings_of(env)})
        migrate.upgrade(database.of(app))
        made.append(app)
        return AppServer(app, env, TOKEN)

    yield make
    for app in made:
        database.of(app).dispose()


def worker_survives(server, start_workers, receiver, outage, recovery):
    """Start a worker process, cause an outage until it has paused twice, end it; the worker
    goes on, and delivers what the API (in process) writes afterwards."""
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
    app_on, tmp_path, hooked_settings, receiver, start_workers
):
    database_path = tmp_path / "held.sqlite"
    server = app_on(f"sqlite:///{database_path}", {**hooked_settings, "DATABASE_TIMEOUT": 1})
    holder = sqlite3.connect(database_path, isolation_level=None)
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
    app_on, private_postgres, hooked_settings, receiver, start_workers
):
    server = app_on(private_postgres.url, {**hooked_settings, "DATABASE_TIMEOUT": 2})
    worker_survives(server, start_workers, receiver, private_postgres.stop, private_postgres.start)


@pytest.fixture
def trickler():
    """A receiver that answers one byte every half second, for ever."""
    server = TricklingReceiver(interval=0.5)
    yield server
    server.close()


def test_a_trickling_answer_ends_each_attempt_at_the_timeout(app_stack, hooked_settings, trickler):
    timeout = 2
    settings = {**hooked_settings, "WEBHOOK_URLS": trickler.url, "WEBHOOK_TIMEOUT": timeout}
    server, _, start = app_stack(**settings)
    start(count=2)
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


def test_worker_without_operators_receivers_serves_endpoints_idling_cheaply(app_on, tmp_path):
    server = app_on(f"sqlite:///{tmp_path / 'plantstore.sqlite'}", {"WEBHOOK_URLS": ""})
    log_path = tmp_path / "worker.log"
    with open(log_path, "ab") as log:
        process = start_worker({**os.environ, **server.env}, log)
    try:
        wait_for(lambda: "registered through the API" in log_path.read_text(), 30, "its start")
        # Idle means asleep between polls: a second costs next to no CPU time.
        ticks = cpu_ticks(process.pid)
        with pytest.raises(subprocess.TimeoutExpired):
            process.wait(timeout=1)
        assert (cpu_ticks(process.pid) - ticks) / os.sysconf("SC_CLK_TCK") < 0.1
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    # No endpoint, no secret to seal: no warning (tests/webhooks/security/test_endpoint_secrets.py).
    assert "webhook endpoint secrets are stored unencrypted" not in log_path.read_text()
