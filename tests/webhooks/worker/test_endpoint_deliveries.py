"""Webhook endpoints registered through the API, delivered to by workers in the test's process
(two on PostgreSQL, sharing the outbox), over real HTTP to receivers that verify with the
standardwebhooks library: which endpoint gets which event, and what disabling, deleting and
recovering an endpoint do to its deliveries. One case takes the contract's event types over
real HTTP on real gunicorn, a worker in process delivering them."""

import json
import time

import pytest

from harness.processes import wait_for
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token, statuses
from support.live_servers import environment
from support.receivers import plant_of
from support.webhooks import SECRET


def events_of(receiver):
    """(event type, plant) of every request the receiver got, in order."""
    return [(headers["X-Plantstore-Event"], plant_of(body)) for headers, body in receiver.requests]


def test_each_endpoint_gets_the_events_it_chose_signed_with_its_own_secret(
    app_stack, make_receiver
):
    operator, both, deletes = make_receiver(), make_receiver(), make_receiver()
    operator.verify_with(SECRET)
    server, admin, start = app_stack(WEBHOOK_URLS=operator.url, WEBHOOK_SECRET=SECRET)
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


@pytest.mark.e2e
@pytest.mark.backend_independent
def test_every_event_type_goes_from_gunicorn_to_its_endpoint(
    live_server, database_url, make_app, make_receiver
):
    receiver = make_receiver()
    server = live_server(database_url, **environment(ENDPOINT_SETTINGS))
    admin = Admin(server, issue_admin_token(database_url))
    admin.subscribe(receiver)
    # The worker's process is not the point here (the kill -9 cases start one): gunicorn is.
    with running(make_app(**ENDPOINT_SETTINGS)):
        assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
        assert server.request("PATCH", "/plants/1", {"tag": "shade"}).status == 200
        assert server.request("DELETE", "/plants/1").status == 204
        wait_for(lambda: len(receiver.requests) == 3, 30, "the three deliveries")
    assert sorted(events_of(receiver)) == [
        ("plant.created", {"id": 1, "name": "Fern"}),
        ("plant.deleted", {"id": 1, "name": "Fern", "tag": "shade"}),
        ("plant.updated", {"id": 1, "name": "Fern", "tag": "shade"}),
    ]
    # A new endpoint's default payload, "event": the type is signed in the body too.
    for headers, body in receiver.requests:
        assert json.loads(body)["type"] == headers["X-Plantstore-Event"]


def test_a_change_is_announced_as_plant_updated_and_one_that_changes_nothing_is_not(
    app_stack, make_receiver
):
    operator, receiver = make_receiver(), make_receiver()
    operator.verify_with(SECRET)
    server, admin, start = app_stack(WEBHOOK_URLS=operator.url, WEBHOOK_SECRET=SECRET)
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
    app_stack, make_receiver
):
    receiver = make_receiver()
    server, admin, start = app_stack()
    server.request("POST", "/plants", {"id": 1, "name": "Before"})
    endpoint = admin.subscribe(receiver)
    admin.patch(endpoint["id"], enabled=False)
    server.request("POST", "/plants", {"id": 2, "name": "While disabled"})
    admin.patch(endpoint["id"], enabled=True)
    server.request("POST", "/plants", {"id": 3, "name": "After"})
    start()
    wait_for(lambda: receiver.requests, 30, "a delivery")
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"], 30, "the log")
    assert [body["id"] for _, body in events_of(receiver)] == [3]


# The fan-out, run late, sends each event to the endpoints as they were when it was written.
def test_the_fan_out_reads_each_endpoint_as_it_was_when_the_event_was_written(
    app_stack, make_receiver
):
    server, admin, start = app_stack()
    made = {}
    for name, events in [
        ("control", ["plant.created"]),
        ("toggled", ["plant.created"]),
        ("dropped", ["plant.created"]),
        ("added", ["plant.deleted"]),
    ]:
        receiver = make_receiver()
        made[name] = (receiver, admin.register(receiver.url, events=events))
        receiver.verify_with(made[name][1]["secret"])
    ids = {name: endpoint["id"] for name, (_, endpoint) in made.items()}
    # The worker is stopped: every change below comes before the fan-out of both events.
    admin.patch(ids["toggled"], enabled=False)
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    admin.patch(ids["toggled"], enabled=True)
    admin.patch(ids["dropped"], events=["plant.deleted"])
    admin.patch(ids["added"], events=["plant.created"])
    server.request("POST", "/plants", {"id": 2, "name": "Fern"})
    start()
    started = time.monotonic()
    control, _ = made["control"]
    wait_for(lambda: len(control.requests) == 2, 30, "the control endpoint's deliveries")
    assert time.monotonic() - started < 5
    # Fanned out together: once the control has both, the others' rows are written too.
    assert {name: len(admin.deliveries(ids[name])) for name in ids} == {
        "control": 2,
        "toggled": 1,
        "dropped": 1,
        "added": 1,
    }
    wait_for(lambda: sum(len(r.requests) for r, _ in made.values()) == 5, 10, "every delivery")
    received = {
        name: sorted(plant_of(body)["id"] for _, body in receiver.requests)
        for name, (receiver, _) in made.items()
    }
    assert received == {"control": [1, 2], "toggled": [2], "dropped": [1], "added": [2]}


def test_disabling_fails_pending_deliveries_and_recover_sends_them_once_enabled(
    app_stack, make_receiver
):
    receiver = make_receiver()
    receiver.delay = 3  # past the timeout: every attempt fails, and is retried
    server, admin, start = app_stack(WEBHOOK_MAX_ATTEMPTS=10)
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


def test_a_disabled_endpoint_s_delivered_rows_still_go_after_the_retention(
    app_stack, make_receiver
):
    retention = 2
    receiver = make_receiver()
    server, admin, start = app_stack(WEBHOOK_RETENTION=retention)
    endpoint = admin.subscribe(receiver)
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"], 30, "delivery")
    delivered = time.monotonic()
    admin.patch(endpoint["id"], enabled=False)
    # Retention reads the receivers the outbox holds, not only those the worker sends to.
    wait_for(lambda: admin.deliveries(endpoint["id"]) == [], retention + 10, "the deletion")
    assert time.monotonic() - delivered < retention + 5


def test_a_deleted_endpoint_gets_nothing_more_pending_deliveries_included(app_stack, make_receiver):
    deleted, kept = make_receiver(), make_receiver()
    server, admin, start = app_stack()
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
