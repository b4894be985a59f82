"""Webhooks: the contract's 'Events' section, with a real receiver over HTTP."""

import hashlib
import hmac
import json
import os
import re
import signal
import subprocess
import sys

import pytest
from receiver import Receiver
from sqlalchemy import create_engine, select

from app.config import ConfigError
from app.db import plants
from app.webhooks import Worker
from conftest import TOKEN
from liveserver import ROOT, create_until_killed, wait_for

SECRET = "webhook-test-secret"


@pytest.fixture
def receiver():
    """A subscriber listening on a local port."""
    server = Receiver()
    yield server
    server.close()


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
    }


@pytest.fixture
def hooked(make_app, hooked_settings):
    """An app with webhooks on, its client, and a worker to drive by hand."""
    app = make_app(**hooked_settings)
    return app, app.test_client(), Worker(app)


def create(client, plant_id, name="Fern", **extra):
    body = {"id": plant_id, "name": name, **extra}
    return client.post("/plants", json=body, headers={"Authorization": f"Bearer {TOKEN}"})


def drain(worker, until, timeout=10):
    """Let the worker deliver whatever is due until the condition holds."""

    def step():
        worker.deliver_one()
        return until()

    wait_for(step, timeout, "deliveries")


def test_new_plant_is_posted_once_signed_with_the_exact_body(hooked, receiver):
    _, client, worker = hooked
    assert create(client, 7, "Aloe", tag="succulent", colour="green").status_code == 200
    drain(worker, lambda: len(receiver.requests) >= 1)
    assert not worker.deliver_one()
    ((headers, body),) = receiver.requests
    assert json.loads(body) == {"id": 7, "name": "Aloe", "tag": "succulent"}
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Plantstore-Event"] == "plant.created"
    assert len(headers["X-Plantstore-Delivery"]) == 32
    expected = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    assert headers["X-Plantstore-Signature"] == f"sha256={expected}"


def test_every_receiver_gets_its_own_delivery(make_app, hooked_settings, receiver):
    other = Receiver()
    try:
        app = make_app(**{**hooked_settings, "WEBHOOK_URLS": f"{receiver.url},{other.url}"})
        worker = Worker(app)
        create(app.test_client(), 1)
        drain(worker, lambda: receiver.requests and other.requests)
        assert receiver.deliveries() != other.deliveries()
    finally:
        other.close()


@pytest.mark.parametrize(
    "second",
    [
        pytest.param({"name": "Fern"}, id="idempotent replay"),
        pytest.param({"name": "Other"}, id="conflict"),
    ],
)
def test_no_event_unless_a_plant_is_created(hooked, receiver, second):
    _, client, worker = hooked
    create(client, 1, "Fern")
    create(client, 1, **second)
    create(client, 2, "")
    drain(worker, lambda: len(receiver.requests) >= 1)
    assert not worker.deliver_one()
    assert len(receiver.requests) == 1


def test_failed_attempts_are_retried_with_the_same_delivery_id(hooked, receiver):
    app, client, worker = hooked
    receiver.script = [500, 503]
    create(client, 1)
    drain(worker, lambda: len(receiver.requests) == 3)
    assert len(set(receiver.deliveries())) == 1
    assert not worker.deliver_one()
    status = app.test_cli_runner().invoke(args=["webhooks", "status"]).output
    assert "delivered: 1" in status and "pending: 0" in status


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
    make_app, hooked_settings, receiver, failure
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
    worker, cli = Worker(app), app.test_cli_runner()
    create(app.test_client(), 1)
    drain(worker, lambda: "failed: 1" in cli.invoke(args=["webhooks", "status"]).output)
    status = cli.invoke(args=["webhooks", "status"]).output
    assert "after 3 attempts" in status
    if failure != "refused":
        assert len(receiver.requests) == 3
        assert len(set(receiver.deliveries())) == 1
    receiver.delay = 0
    assert "Retrying 1" in cli.invoke(args=["webhooks", "retry-failed"]).output
    if failure == "refused":
        assert "pending: 1" in cli.invoke(args=["webhooks", "status"]).output
        return
    drain(worker, lambda: "delivered: 1" in cli.invoke(args=["webhooks", "status"]).output)
    assert receiver.deliveries()[-1] == receiver.deliveries()[0]


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        pytest.param({"WEBHOOK_URLS": "ftp://example.com/hook"}, "http(s)", id="not http"),
        pytest.param({"WEBHOOK_URLS": "http:///hook"}, "http(s)", id="no host"),
        pytest.param({"WEBHOOK_URLS": "example.com/hook"}, "http(s)", id="no scheme"),
        pytest.param({"WEBHOOK_SECRET": ""}, "WEBHOOK_SECRET", id="no secret"),
        pytest.param({"WEBHOOK_MAX_ATTEMPTS": 0}, "MAX_ATTEMPTS", id="zero attempts"),
        pytest.param({"WEBHOOK_TIMEOUT": -1}, "TIMEOUT", id="negative timeout"),
    ],
)
def test_bad_webhook_settings_stop_the_start(make_app, hooked_settings, settings, says):
    with pytest.raises(ConfigError, match=re.escape(says)):
        make_app(**{**hooked_settings, **settings})


def start_worker(env, log):
    return subprocess.Popen(
        [sys.executable, "-m", "flask", "--app", "wsgi", "webhooks", "run"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


@pytest.fixture
def hooked_server(live_server, database_url, hooked_settings, tmp_path):
    """gunicorn with webhooks on, and a way to start `flask webhooks run` workers beside it."""
    env = {f"PLANTSTORE_{key}": str(value) for key, value in hooked_settings.items()}
    server = live_server(database_url, **env)
    workers = []

    def worker():
        with open(tmp_path / f"worker-{len(workers)}.log", "ab") as log:
            process = start_worker({**os.environ, **server.env}, log)
        workers.append(process)
        return process

    yield server, worker
    for process in workers:
        if process.poll() is None:
            process.kill()
            process.wait()


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
def test_kill_9_of_the_worker_loses_no_event(hooked_server, receiver):
    server, worker = hooked_server
    receiver.delay = 0.05
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
    # The delivery in flight at the kill is sent again once its claim runs out: at least once.
    wait_for(lambda: "pending: 0" in server.cli("webhooks", "status"), 30, "no pending delivery")
    deliveries = receiver.deliveries()
    assert len(deliveries) - len(set(deliveries)) <= 1


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
    _, client, worker = hooked
    document = client.get("/openapi.json").get_json()
    webhook = document["webhooks"]["plant.created"]["post"]
    new_plant = document["components"]["schemas"]["NewPlant"]
    assert create(client, 8, "Aloe", tag="succulent").status_code == 200
    drain(worker, lambda: len(receiver.requests) >= 1)
    ((headers, body),) = receiver.requests
    for parameter in webhook["parameters"]:
        value = headers[parameter["name"]]
        assert re.fullmatch(parameter["schema"].get("pattern", ".+"), value)
        assert value in parameter["schema"].get("enum", [value])
    assert set(json.loads(body)) == set(new_plant["properties"])
