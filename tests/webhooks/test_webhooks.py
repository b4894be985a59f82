"""Webhooks: the contract's 'Events' section, with a real receiver over HTTP."""

import hashlib
import hmac
import json
import logging
import re
import time

import pytest

from app import database
from app.config import ConfigError
from app.webhooks import settings as webhook_settings
from app.webhooks.tables.deliveries import queue as delivery_store
from app.webhooks.worker import fanout
from app.webhooks.worker.retries import Retries
from harness.processes import wait_for
from support.in_process import running
from support.receivers import Receiver
from support.webhooks import SECRET, create, settled, status_of


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
    db, retries = database.of(app), Retries(webhook_settings.of(app))
    with db.transaction() as cursor:
        lease = database.Later(db, cursor, 60)
        rows = fanout.waiting(db, cursor, 1)
        fanout.fan_out(cursor, rows, {}, [receiver.url], {"plant.created"}, {}, lease)
    # Leases that have run out already: three workers that died mid-attempt.
    for _ in range(retries.max_attempts):
        with db.transaction() as cursor:
            wants = {receiver.url: 1}
            past = database.Later(db, cursor, -1)
            assert delivery_store.claim(cursor, wants, past, retries)
    with running(app):
        wait_for(lambda: settled(cli, delivered=0, failed=1), 10, "the delivery to fail")
    status = status_of(cli)
    assert "failed: 1" in status
    assert "after 3 attempts: worker lost during the last attempt" in status
    assert receiver.requests == []


@pytest.mark.backend_independent
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
    ],
)
def test_bad_webhook_settings_stop_the_start(make_app, hooked_settings, settings, says):
    with pytest.raises(ConfigError, match=re.escape(says)):
        make_app(**{**hooked_settings, **settings})


@pytest.mark.backend_independent
def test_a_bad_receiver_url_is_shown_without_its_secrets(make_app, hooked_settings):
    urls = f"{hooked_settings['WEBHOOK_URLS']},ftp://user:s3cr3t@example.com/hook?token=t0k3n"
    with pytest.raises(ConfigError, match=re.escape("ftp://user:***@example.com/hook'")) as refused:
        make_app(**{**hooked_settings, "WEBHOOK_URLS": urls})
    assert "s3cr3t" not in str(refused.value) and "t0k3n" not in str(refused.value)


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
