"""docs/webhooks.md's receiver of "event" and "thin" deliveries, run as the page writes it: it
verifies each delivery with standardwebhooks and reads the feed over real HTTP after a gap, so
that it handles every change once, in the feed's order, whatever order the deliveries come in.
The service answers from a thread of the test's process: the page's code is the point, not
gunicorn."""

import json

import pytest

from harness.processes import wait_for
from support.doc_examples import run_block

HEADING = "### Receiving an event, and reading the feed after a gap"


@pytest.mark.backend_independent
@pytest.mark.parametrize("payload", ["event", "thin"])
def test_the_pages_receiver_handles_every_change_once_in_order_after_a_gap(
    app_stack, make_receiver, served, monkeypatch, payload
):
    receiver = make_receiver()
    server, admin, start = app_stack()
    endpoint = admin.subscribe(receiver, payload=payload)
    for plant_id in (1, 2, 3):
        assert server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status == 200
    start()
    wait_for(lambda: len(receiver.requests) == 3, 30, "the three deliveries")
    feed = server.request("GET", "/events", token=admin.token).json()
    delivered = {json.loads(body)["id"]: (body, headers) for headers, body in receiver.requests}
    first, second, third = (delivered[event["id"]] for event in feed)
    monkeypatch.setenv("PLANTS_URL", served(server.app))
    monkeypatch.setenv("PLANTS_TOKEN", admin.token)
    monkeypatch.setenv("PLANTS_HOOK_SECRET", endpoint["secret"])
    handled = []
    example = run_block("webhooks.md", HEADING, handle=handled.append)
    # The first, then the third: the second was missed, and is read from the feed before it.
    assert [example["receive"](*delivery) for delivery in (first, third, second)] == [204] * 3
    assert [event["id"] for event in handled] == [event["id"] for event in feed]
    assert handled[0] == json.loads(first[0])
    assert handled[1:] == feed[1:]
    # The type is signed: a body that says another one is refused.
    forged = first[0].replace(b"plant.created", b"plant.deleted")
    assert example["receive"](forged, first[1]) == 400
    assert len(handled) == 3
