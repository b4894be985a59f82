"""The workers and the /webhooks API write the same rows at once on PostgreSQL, each app of the
test's process on an engine of its own: neither may deadlock the other, and no database error
may end a worker."""

import datetime
import time

import pytest

from harness.processes import wait_for
from support.live_endpoints import statuses

# Seconds of toggling and recovering while the workers record outcomes.
CONTENTION = 6
# Plants created before the workers start: a backlog, so that every round records many outcomes.
PLANTS = 100
# Endpoints whose rows each round writes: locked in the order their outcomes came, they would
# cross the API's locks.
ENDPOINTS = 8


# Row locks taken in two orders deadlock on PostgreSQL alone; SQLite has one writer at a time.
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_toggling_endpoints_while_their_outcomes_are_recorded(app_stack, make_receiver):
    receivers = [make_receiver() for _ in range(ENDPOINTS)]
    server, admin, start = app_stack(
        WEBHOOK_MAX_ATTEMPTS=1000,
        WEBHOOK_RETRY_DELAY=0.02,
        WEBHOOK_RETRY_MAX_DELAY=0.05,
        WEBHOOK_RECEIVER_CONCURRENCY=16,
    )
    ids = []
    for receiver in receivers:
        # Every round writes each endpoint's row: a failure marks it failing, a success clears it.
        receiver.script = [200, 500] * 100_000
        endpoint = admin.register(receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
        ids.append(endpoint["id"])
    since = datetime.datetime.now(datetime.UTC).isoformat()
    for plant_id in range(PLANTS):
        assert server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status == 200
    workers = start()
    ends = time.monotonic() + CONTENTION
    while time.monotonic() < ends:
        for worker, log in workers:
            assert worker.poll() is None, log.read_text()
        for endpoint_id in ids:
            admin.patch(endpoint_id, enabled=False)  # each call asserts its status: no 500
            admin.patch(endpoint_id, enabled=True)
            admin.recover(endpoint_id, since)
    for receiver, endpoint_id in zip(receivers, ids, strict=True):
        receiver.script = []
        admin.recover(endpoint_id, since)
    settled = time.monotonic()

    def all_delivered():
        logs = [admin.deliveries(endpoint_id, "?limit=1000") for endpoint_id in ids]
        return [statuses(log) for log in logs] == [["delivered"] * PLANTS] * ENDPOINTS

    wait_for(all_delivered, 30, "every delivery delivered")
    assert time.monotonic() - settled < 15
    for worker, log in workers:
        assert worker.poll() is None, log.read_text()
        assert "Traceback" not in log.read_text()
        assert "deadlock" not in log.read_text()  # the locks are taken in one order
