"""Webhook endpoints end to end: registered through the API on real gunicorn, delivered to by
real workers (two on PostgreSQL), verified by receivers with the standardwebhooks library."""

import json
import re
import time

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import create_engine, text
from standardwebhooks.webhooks import Webhook

from harness.processes import wait_for
from live_endpoints import statuses
from webhook_helpers import SECRET

pytestmark = pytest.mark.e2e


def events_of(receiver):
    """(event type, body) of every request the receiver got, in order."""
    return [
        (headers["X-Plantstore-Event"], json.loads(body)) for headers, body in receiver.requests
    ]


def test_each_endpoint_gets_the_events_it_chose_signed_with_its_own_secret(
    endpoint_stack, make_receiver
):
    operator, both, deletes = make_receiver(), make_receiver(), make_receiver()
    operator.verify_with(SECRET)
    server, admin, start = endpoint_stack(WEBHOOK_URLS=operator.url, WEBHOOK_SECRET=SECRET)
    first = admin.register(both.url)
    both.verify_with(first["secret"])
    second = admin.register(deletes.url, events=["plant.deleted"])
    deletes.verify_with(second["secret"])
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Monstera", "tag": "tropical"})
    server.request("POST", "/plants", {"id": 2, "name": "Fern"})
    assert server.request("DELETE", "/plants/2").status == 204
    wait_for(lambda: len(both.requests) == 3 and deletes.requests, 30, "the deliveries")
    assert sorted(events_of(both), key=lambda each: (each[0], each[1]["id"])) == [
        ("plant.created", {"id": 1, "name": "Monstera", "tag": "tropical"}),
        ("plant.created", {"id": 2, "name": "Fern"}),
        ("plant.deleted", {"id": 2, "name": "Fern"}),
    ]
    assert events_of(deletes) == [("plant.deleted", {"id": 2, "name": "Fern"})]
    wait_for(lambda: len(operator.requests) == 2, 30, "the operator's deliveries")
    assert {event for event, _ in events_of(operator)} == {"plant.created"}
    for headers, _ in both.requests:
        assert headers["webhook-id"] == headers["X-Plantstore-Delivery"]
    wait_for(lambda: statuses(admin.deliveries(first["id"])) == ["delivered"] * 3, 30, "the log")
    # Seen beside the operator's receivers, by id.
    status = server.cli("webhooks", "status")
    assert f"receiver {first['id']}: pending 0, failed 0" in status
    assert (
        f'receiver="{second["id"]}",status="pending"'
        in server.request("GET", "/metrics").body.decode()
    )


def test_a_change_is_announced_as_plant_updated_and_one_that_changes_nothing_is_not(
    endpoint_stack, make_receiver
):
    operator, receiver = make_receiver(), make_receiver()
    operator.verify_with(SECRET)
    server, admin, start = endpoint_stack(WEBHOOK_URLS=operator.url, WEBHOOK_SECRET=SECRET)
    endpoint = admin.register(receiver.url, events=["plant.updated"])
    receiver.verify_with(endpoint["secret"])
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern", "tag": "shade"})
    version = server.request("GET", "/plants/1").headers["ETag"]
    unchanged = server.request("PATCH", "/plants/1", {"name": "Fern"}, {"If-Match": version})
    assert (unchanged.status, unchanged.headers["ETag"]) == (200, version)
    assert server.request("PATCH", "/plants/1", {"tag": None}).status == 200
    assert server.request("PATCH", "/plants/1", {"name": "Ivy"}).status == 200
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"] * 2, 30, "both")
    assert sorted(events_of(receiver), key=lambda each: each[1]["name"]) == [
        ("plant.updated", {"id": 1, "name": "Fern"}),
        ("plant.updated", {"id": 1, "name": "Ivy"}),
    ]
    # The operator's receivers get plant.created alone.
    wait_for(lambda: operator.requests, 30, "the operator's delivery")
    assert events_of(operator) == [("plant.created", {"id": 1, "name": "Fern", "tag": "shade"})]


def test_an_endpoint_gets_only_the_changes_made_while_it_is_registered_and_enabled(
    endpoint_stack, make_receiver
):
    receiver = make_receiver()
    server, admin, start = endpoint_stack()
    server.request("POST", "/plants", {"id": 1, "name": "Before"})
    endpoint = admin.register(receiver.url)
    receiver.verify_with(endpoint["secret"])
    admin.patch(endpoint["id"], enabled=False)
    server.request("POST", "/plants", {"id": 2, "name": "While disabled"})
    admin.patch(endpoint["id"], enabled=True)
    server.request("POST", "/plants", {"id": 3, "name": "After"})
    start()
    wait_for(lambda: receiver.requests, 30, "a delivery")
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"], 30, "the log")
    assert [body["id"] for _, body in events_of(receiver)] == [3]


def test_disabling_fails_pending_deliveries_and_recover_sends_them_once_enabled(
    endpoint_stack, make_receiver
):
    receiver = make_receiver()
    receiver.delay = 3  # past the timeout: every attempt fails, and is retried
    server, admin, start = endpoint_stack(WEBHOOK_MAX_ATTEMPTS=10)
    endpoint = admin.register(receiver.url, events=["plant.created"])
    receiver.verify_with(endpoint["secret"])
    since = endpoint["created_at"]
    for plant_id in range(3):
        server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})
    start()
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["pending"] * 3, 30, "pending")
    disabled = admin.patch(endpoint["id"], enabled=False)
    assert (disabled["enabled"], disabled["disabled_reason"]) == (False, "disabled through the API")
    failed = admin.deliveries(endpoint["id"])
    assert [(each["status"], each["last_error"]) for each in failed] == [
        ("failed", "endpoint disabled: disabled through the API")
    ] * 3
    admin.call("POST", f"/webhooks/{endpoint['id']}/recover", {"since": since}, 409)
    assert admin.patch(endpoint["id"], enabled=True)["disabled_reason"] is None
    receiver.delay = 0
    admin.recover(endpoint["id"], since)
    wait_for(
        lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"] * 3, 30, "recovery"
    )
    assert {body["id"] for _, body in events_of(receiver)} == {0, 1, 2}


def delivered_once(endpoint_stack, receiver, **settings):
    """gunicorn and its workers with settings, an endpoint for receiver, and one plant created
    and delivered to it: (admin, endpoint, the delivery)."""
    server, admin, start = endpoint_stack(**settings)
    endpoint = admin.register(receiver.url)
    receiver.verify_with(endpoint["secret"])
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"], 30, "delivery")
    return admin, endpoint, admin.deliveries(endpoint["id"])[0]


def test_a_disabled_endpoint_s_delivered_rows_still_go_after_the_retention(
    endpoint_stack, make_receiver
):
    retention = 2
    admin, endpoint, _ = delivered_once(
        endpoint_stack, make_receiver(), WEBHOOK_RETENTION=retention
    )
    delivered = time.monotonic()
    admin.patch(endpoint["id"], enabled=False)
    # Retention reads the receivers the outbox holds, not only those the worker sends to.
    wait_for(lambda: admin.deliveries(endpoint["id"]) == [], retention + 10, "the deletion")
    assert time.monotonic() - delivered < retention + 5


def test_resend_sends_a_delivered_delivery_again_under_its_id(endpoint_stack, make_receiver):
    receiver = make_receiver()
    admin, endpoint, delivery = delivered_once(endpoint_stack, receiver)
    admin.resend(endpoint["id"], delivery["id"])
    wait_for(lambda: len(receiver.requests) == 2, 30, "the resend")
    assert receiver.deliveries() == [delivery["id"], delivery["id"]]
    again = admin.deliveries(endpoint["id"])[0]
    assert (again["id"], again["attempts"]) == (delivery["id"], 1)


def test_a_deleted_endpoint_gets_nothing_more_pending_deliveries_included(
    endpoint_stack, make_receiver
):
    deleted, kept = make_receiver(), make_receiver()
    server, admin, start = endpoint_stack()
    gone = admin.register(deleted.url)
    stays = admin.register(kept.url)
    kept.verify_with(stays["secret"])
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    admin.delete(gone["id"])
    admin.call("GET", f"/webhooks/{gone['id']}", expected=404)
    start()
    server.request("POST", "/plants", {"id": 2, "name": "Fern"})
    wait_for(lambda: len(kept.requests) == 2, 30, "the kept endpoint's deliveries")
    assert deleted.requests == []
    assert gone["id"] not in server.cli("webhooks", "status")


def test_a_rotated_secret_signs_beside_the_old_one_from_the_next_attempt(
    endpoint_stack, make_receiver
):
    receiver = make_receiver()
    server, admin, start = endpoint_stack(WEBHOOK_SECRET_OVERLAP=3)
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


def test_secrets_are_stored_sealed_with_the_first_key_and_read_with_any(
    endpoint_stack, make_receiver, database_url
):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    receiver = make_receiver()
    server, admin, start = endpoint_stack(WEBHOOK_KEYS=old)
    endpoint = admin.register(receiver.url)
    receiver.verify_with(endpoint["secret"])
    engine = create_engine(database_url)
    with engine.connect() as conn:
        stored = conn.execute(
            text("SELECT secret FROM webhook_endpoints WHERE id = :id"), {"id": endpoint["id"]}
        ).scalar_one()
    engine.dispose()
    assert stored.startswith("fernet:") and endpoint["secret"].removeprefix("whsec_") not in stored
    assert "stored unencrypted" not in server.log()
    start(WEBHOOK_KEYS=f"{new},{old}")  # a new key first: the old one still opens
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: receiver.requests, 30, "a delivery signed with the opened secret")
    shown = server.cli("webhooks", "status") + server.request("GET", "/metrics").body.decode()
    assert endpoint["secret"] not in shown and endpoint["secret"][6:] not in shown
