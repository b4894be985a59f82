"""The webhook worker as a process: started, stopped, killed, and outliving its database."""

import itertools
import json
import os
import re
import signal
import sqlite3
import subprocess
import time

import pytest
from sqlalchemy import create_engine, select, text

from app.plants.store import plants
from harness.processes import ROOT, cpu_ticks, wait_for
from harness.receivers import TricklingReceiver
from harness.worker import COMMAND, start_worker
from liveserver import create_until_killed, environment
from webhook_helpers import create_many, no_pending


@pytest.mark.e2e
def test_creates_do_not_wait_for_the_worker_and_events_flow_once_it_starts(hooked_server, receiver):
    server, worker = hooked_server
    create_many(server, 20)
    assert server.cli("webhooks", "status").startswith("pending: 20\n")
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
def test_kill_9_of_the_worker_loses_no_event(hooked_server, receiver):
    server, worker = hooked_server
    receiver.delay = 0.1
    create_many(server, 40)
    process = worker()
    wait_for(lambda: len(receiver.requests) >= 10, 30, "some deliveries")
    process.kill()
    process.wait()
    unrecorded = claimed_at_the_kill(server.env["PLANTSTORE_DATABASE_URL"])
    worker()
    expected = set(range(40))
    wait_for(
        lambda: {json.loads(body)["id"] for _, body in receiver.requests} >= expected,
        60,
        "every event after the restart",
    )
    # At least once: a delivery claimed but not recorded at the kill (sent, or queued for its
    # slot) is sent again once its claim runs out; one recorded as delivered never is.
    wait_for(lambda: no_pending(server), 30, "no pending delivery")
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


@pytest.mark.e2e
def test_two_workers_deliver_each_event_once(hooked_server, receiver):
    server, worker = hooked_server
    receiver.delay = 0.02
    create_many(server, 40)
    worker()
    worker()
    wait_for(lambda: len(receiver.requests) >= 40, 60, "40 deliveries")
    wait_for(lambda: no_pending(server), 30, "no pending delivery")
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
    wait_for(lambda: no_pending(server), 60, "no pending delivery")
    # The plant and its delivery commit together: the kill left no plant without its event.
    delivered = re.search(r"delivered: (\d+)", server.cli("webhooks", "status"))
    assert int(delivered.group(1)) == len(stored)
    assert sorted(json.loads(body)["id"] for _, body in receiver.requests) == sorted(stored)


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


def test_worker_without_operators_receivers_serves_endpoints_idling_cheaply(tmp_path):
    database = f"sqlite:///{tmp_path / 'plantstore.sqlite'}"
    env = {**os.environ, "PLANTSTORE_DATABASE_URL": database, "PLANTSTORE_WEBHOOK_URLS": ""}
    init_db = [*COMMAND[: COMMAND.index("webhooks")], "init-db"]
    assert subprocess.run(init_db, env=env, cwd=ROOT, capture_output=True).returncode == 0
    log_path = tmp_path / "worker.log"
    with open(log_path, "ab") as log:
        process = start_worker(env, log)
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
    # No endpoint, no secret to seal: no warning (test_unsealed_warning.py).
    assert "webhook endpoint secrets are stored unencrypted" not in log_path.read_text()
