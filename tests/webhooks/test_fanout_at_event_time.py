"""The fan-out, run late, sends each event to the endpoints as they were when it was written:
not as they are when the worker gets to it."""

import json
import time

import pytest

from harness.processes import wait_for

pytestmark = pytest.mark.e2e


def test_the_fan_out_reads_each_endpoint_as_it_was_when_the_event_was_written(
    endpoint_stack, make_receiver
):
    server, admin, start = endpoint_stack()
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
        name: sorted(json.loads(body)["id"] for _, body in receiver.requests)
        for name, (receiver, _) in made.items()
    }
    assert received == {"control": [1, 2], "toggled": [2], "dropped": [1], "added": [2]}
