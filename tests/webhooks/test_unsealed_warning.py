"""The warning that endpoint secrets are stored unencrypted: said once per process that stores
or reads one, and only once there is an endpoint, so that a first `make run` shows none."""

import time

import pytest

from harness.processes import wait_for

pytestmark = pytest.mark.e2e

UNSEALED = "PLANTSTORE_WEBHOOK_KEYS is empty"


# Which process warns when: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_no_key_is_warned_of_once_per_process_and_only_with_an_endpoint(
    endpoint_stack, make_receiver
):
    receiver = make_receiver()
    server, admin, start = endpoint_stack()  # PLANTSTORE_WEBHOOK_KEYS empty
    [(_, worker_log)] = start()
    assert server.request("GET", "/webhooks", token=admin.token).status == 200
    assert UNSEALED not in server.log()
    assert UNSEALED not in worker_log.read_text()
    registered = time.monotonic()
    endpoint = admin.register(receiver.url, events=["plant.created"])
    receiver.verify_with(endpoint["secret"])
    assert server.log().count(UNSEALED) == 1
    wait_for(lambda: UNSEALED in worker_log.read_text(), 10, "the worker's warning")
    assert time.monotonic() - registered < 5
    receiver.verify_with(admin.rotate(endpoint["id"]))
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: receiver.requests, 10, "a delivery")
    assert server.log().count(UNSEALED) == 1  # once per process
    assert worker_log.read_text().count(UNSEALED) == 1
