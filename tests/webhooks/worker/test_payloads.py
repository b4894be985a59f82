"""What a delivery carries (the contract's 'What a delivery carries'): each payload's exact bytes
for every event type, over real HTTP to receivers that verify each with standardwebhooks; a
change of an endpoint's payload holds for a pending delivery's next attempt and for a resend;
the operator's receivers take PLANTSTORE_WEBHOOK_PAYLOAD."""

import json

import pytest

from harness.processes import wait_for
from support.webhooks import SECRET

PLANT = b'{"name":"Fern","id":1}'
SHADED = b'{"id":1,"name":"Fern","tag":"shade"}'
# The plant body of each event type, for the changes make_changes makes: the stored text.
PLANT_BODIES = {"plant.created": PLANT, "plant.updated": SHADED, "plant.deleted": SHADED}


def make_changes(server):
    """A create, a change and a delete of plant 1, each answered as it should be."""
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    assert server.request("PATCH", "/plants/1", {"tag": "shade"}).status == 200
    assert server.request("DELETE", "/plants/1").status == 204


def by_type(receiver):
    """{event type: body} of what the receiver got, one request per type."""
    bodies = {headers["X-Plantstore-Event"]: body for headers, body in receiver.requests}
    assert len(bodies) == len(receiver.requests)
    return bodies


def event_bytes(event, data):
    """An Event's bytes as the feed writes them (keys sorted, compact), data given as bytes."""
    return (
        f'{{"created_at":"{event["created_at"]}","data":{data.decode()},'
        f'"id":"{event["id"]}","type":"{event["type"]}"}}'
    ).encode()


def test_each_payload_carries_its_exact_bytes_for_every_event_type(app_stack, make_receiver):
    receivers = {payload: make_receiver() for payload in ("plant", "event", "thin")}
    server, admin, start = app_stack()
    for payload, receiver in receivers.items():
        assert admin.subscribe(receiver, payload=payload)["payload"] == payload
    make_changes(server)
    start()
    wait_for(lambda: all(len(each.requests) == 3 for each in receivers.values()), 30, "all 9")
    feed = server.request("GET", "/events", token=admin.token)
    events = {event["type"]: event for event in feed.json()}
    assert by_type(receivers["plant"]) == PLANT_BODIES
    assert by_type(receivers["thin"]) == {
        name: event_bytes(event, b'{"id":1}') for name, event in events.items()
    }
    delivered = by_type(receivers["event"])
    assert delivered == {
        name: event_bytes(event, PLANT_BODIES[name]) for name, event in events.items()
    }
    # The feed's Event, byte for byte: the type and the place in the feed are signed with it.
    assert all(body in feed.body for body in delivered.values())
    for headers, body in receivers["event"].requests:
        assert headers["Plantstore-Event-Id"] == json.loads(body)["id"]


def test_a_new_payload_holds_for_a_pending_deliverys_next_attempt_and_a_resend(
    app_stack, make_receiver
):
    receiver = make_receiver(status=500)
    server, admin, start = app_stack(WEBHOOK_RETRY_DELAY=4, WEBHOOK_RETRY_MAX_DELAY=4)
    endpoint = admin.subscribe(receiver, events=["plant.created"], payload="plant")
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    start()
    wait_for(lambda: receiver.requests, 10, "the first attempt")
    # The retry is due 2 to 4 s later: the change is made before it, its round reads it.
    admin.patch(endpoint["id"], payload="thin")
    receiver.status = 200
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "delivered", 10, "the retry")
    admin.patch(endpoint["id"], payload="event")
    admin.resend(endpoint["id"], admin.newest(endpoint["id"])["id"])
    wait_for(lambda: len(receiver.requests) == 3, 10, "the resend")
    first, retried, resent = (body for _, body in receiver.requests)
    (event,) = server.request("GET", "/events", token=admin.token).json()
    assert (first, retried, resent) == (
        PLANT,
        event_bytes(event, b'{"id":1}'),
        event_bytes(event, PLANT),
    )
    ids = {headers["webhook-id"] for headers, _ in receiver.requests}
    assert len(ids) == 1


@pytest.mark.parametrize("payload", ["event", "thin", ""])
def test_the_operators_receivers_take_the_payload_setting(app_stack, make_receiver, payload):
    operator = make_receiver(SECRET)
    server, admin, start = app_stack(
        WEBHOOK_URLS=operator.url, WEBHOOK_SECRET=SECRET, WEBHOOK_PAYLOAD=payload
    )
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    start()
    wait_for(lambda: operator.requests, 10, "the delivery")
    (event,) = server.request("GET", "/events", token=admin.token).json()
    expected = {"event": event_bytes(event, PLANT), "thin": event_bytes(event, b'{"id":1}')}
    ((headers, body),) = operator.requests
    assert body == expected.get(payload, PLANT)
    assert headers["X-Plantstore-Event"] == "plant.created"
