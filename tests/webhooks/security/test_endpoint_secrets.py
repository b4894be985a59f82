"""Endpoint secrets, the API and workers in the test's process: a rotated secret signs beside the
old one, and a replaced one until its own overlap ends, newest first, three at most; secrets are
stored sealed with the first Fernet key and opened with any; with no key, the warning that they
are stored unencrypted is said once per app (a process has one) that stores or reads one, and
only once there is an endpoint, so that a first `make run` shows none."""

import re
import threading
import time

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import create_engine, text
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from harness.processes import wait_for

UNSEALED = "PLANTSTORE_WEBHOOK_KEYS is empty"


def test_a_rotated_secret_signs_beside_the_old_one_from_the_next_attempt(app_stack, make_receiver):
    receiver = make_receiver()
    server, admin, start = app_stack(WEBHOOK_SECRET_OVERLAP=3)
    endpoint = admin.register(receiver.url)
    old = endpoint["secret"]
    receiver.verify_with(old)
    receiver.script = [500]  # the first attempt fails: its retry comes after the rotation
    receiver.delay = 0.3
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: receiver.requests, 30, "the first attempt")
    new = admin.rotate(endpoint["id"])
    assert new.startswith("whsec_") and new != old
    wait_for(lambda: len(receiver.requests) >= 2, 30, "the retry")
    headers, body = receiver.requests[-1]
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (new, old):  # a receiver holding either secret verifies it
        Webhook(secret).verify(body, headers)
    # Once the overlap is over, the new secret alone signs.
    receiver.verify_with(new)
    plant_ids = iter(range(2, 1000))

    def signed_once():
        count = len(receiver.requests)  # before the create: its delivery may come at once
        server.request("POST", "/plants", {"id": next(plant_ids), "name": "Fern"})
        wait_for(lambda: len(receiver.requests) > count, 30, "a delivery")
        return " " not in receiver.requests[-1][0]["webhook-signature"]

    wait_for(signed_once, 30, "a delivery signed by the new secret alone")
    assert re.fullmatch(r"v1,[A-Za-z0-9+/]{43}=", receiver.requests[-1][0]["webhook-signature"])


def test_a_secret_replaced_twice_within_the_overlap_still_signs(app_stack, make_receiver):
    receiver = make_receiver()
    server, admin, start = app_stack()  # an overlap of a day
    endpoint = admin.register(receiver.url, events=["plant.created"])
    first = endpoint["secret"]
    receiver.verify_with(first)  # a receiver that has not switched yet
    second = admin.rotate(endpoint["id"])
    third = admin.rotate(endpoint["id"])
    start()

    def delivered(plant_id):
        count = len(receiver.requests)
        created = time.monotonic()
        server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})
        wait_for(lambda: len(receiver.requests) > count, 30, "a delivery")
        assert time.monotonic() - created < 5
        return receiver.requests[-1]

    headers, body = delivered(1)
    signatures = headers["webhook-signature"].split(" ")
    assert len(signatures) == 3
    for position, secret in enumerate((third, second, first)):  # newest first
        Webhook(secret).verify(body, {**headers, "webhook-signature": signatures[position]})
    # Past the bound of three, a fourth rotation within the overlap drops the oldest at once.
    receiver.verify_with(third)
    fourth = admin.rotate(endpoint["id"])
    headers, body = delivered(2)
    assert len(headers["webhook-signature"].split(" ")) == 3
    for secret in (fourth, third, second):
        Webhook(secret).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(first).verify(body, headers)


def test_secrets_are_stored_sealed_with_the_first_key_and_read_with_any(
    app_stack, make_receiver, database_url, caplog
):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    receiver = make_receiver()
    server, admin, start = app_stack(WEBHOOK_KEYS=old)
    endpoint = admin.subscribe(receiver)
    engine = create_engine(database_url)
    with engine.connect() as conn:
        stored = conn.execute(
            text("SELECT secret FROM webhook_endpoints WHERE id = :id"), {"id": endpoint["id"]}
        ).scalar_one()
    engine.dispose()
    assert stored.startswith("fernet:") and endpoint["secret"].removeprefix("whsec_") not in stored
    assert "stored unencrypted" not in caplog.text
    start(WEBHOOK_KEYS=f"{new},{old}")  # a new key first: the old one still opens
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: receiver.requests, 30, "a delivery signed with the opened secret")
    shown = server.cli("webhooks", "status") + server.request("GET", "/metrics").body.decode()
    assert endpoint["secret"] not in shown and endpoint["secret"][6:] not in shown


def warned(caplog):
    """How many times (the API's app, the worker's) said UNSEALED: every app logs to one logger,
    and the API answers in this thread, the worker in threads of its own."""
    said = [record for record in caplog.records if UNSEALED in record.getMessage()]
    by_api = sum(record.thread == threading.main_thread().ident for record in said)
    return by_api, len(said) - by_api


# Which app warns when: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_no_key_is_warned_of_once_per_app_and_only_with_an_endpoint(
    app_stack, make_receiver, caplog
):
    receiver = make_receiver()
    server, admin, start = app_stack()  # PLANTSTORE_WEBHOOK_KEYS empty
    start()
    assert server.request("GET", "/webhooks", token=admin.token).status == 200
    assert warned(caplog) == (0, 0)
    registered = time.monotonic()
    endpoint = admin.register(receiver.url, events=["plant.created"])
    receiver.verify_with(endpoint["secret"])
    assert warned(caplog)[0] == 1
    wait_for(lambda: warned(caplog)[1], 10, "the worker's warning")
    assert time.monotonic() - registered < 5
    receiver.verify_with(admin.rotate(endpoint["id"]))
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: receiver.requests, 10, "a delivery")
    assert warned(caplog) == (1, 1)  # once per app
