"""Throttling an endpoint, as the contract says it, with the worker as processes (two on
PostgreSQL, sharing the schedule): a backlog goes at its rate and no faster, then at a rate a
PATCH gives it, then at once when a PATCH lifts it; a waiting delivery spends no attempt; a
second endpoint keeps its pace beside the backlog. Arrivals are stamped by the receiver's
kernel (SO_TIMESTAMPNS): a receiver that stamps from a busy Python thread bunches them."""

import time

import pytest

from harness.processes import wait_for
from harness.stamping import StampingReceiver
from support.webhooks import create_many

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize("database_url", ["sqlite", "postgresql"], indirect=True),
]

# A backlog that lasts through each rate below: about 190 at 20 a second, 115 at 60, the rest.
BACKLOG = 700


@pytest.fixture
def stamping():
    """A receiver that stamps each request as its kernel received it."""
    receiver = StampingReceiver()
    yield receiver
    receiver.close()


def start(app_stack, database_url, start_workers):
    """The API of the test and its admin; the workers, as many as share the database."""
    server, admin, _ = app_stack()
    workers = 2 if database_url.startswith("postgresql") else 1
    env = {**server.env, "PLANTSTORE_DATABASE_URL": database_url}
    return server, admin, lambda: [start_workers(env) for _ in range(workers)]


def arrived_after(receiver, moment):
    """Whether a request arrived at moment (time.time()) or later."""
    return bool(receiver.stamps) and receiver.stamps[-1][0] >= moment


def between(receiver, since, until):
    """How many requests arrived from since until until (time.time(), until excluded)."""
    return sum(since <= stamp < until for stamp, _ in receiver.stamps)


def test_a_backlog_goes_at_the_rate_then_at_a_new_one_then_at_once_when_lifted(
    app_stack, database_url, start_workers, stamping
):
    server, admin, start_the_workers = start(app_stack, database_url, start_workers)
    endpoint = admin.register(stamping.url, events=["plant.created"], throttle_rate=20)
    create_many(server, BACKLOG)
    start_the_workers()
    wait_for(lambda: stamping.stamps, 30, "the first delivery")
    first = stamping.stamps[0][0]
    wait_for(lambda: arrived_after(stamping, first + 10.5), 15, "ten seconds of deliveries")
    waiting = admin.deliveries(endpoint["id"], "?status=pending&limit=1000")
    faster = time.time()
    admin.patch(endpoint["id"], throttle_rate=60)
    wait_for(lambda: arrived_after(stamping, faster + 3), 10, "three seconds at 60")
    lifted = time.time()
    admin.patch(endpoint["id"], throttle_rate=None)
    wait_for(lambda: len(stamping.stamps) == BACKLOG, 10, "the rest of the backlog")
    settled = lambda: not admin.deliveries(endpoint["id"], "?status=pending&limit=1")  # noqa: E731
    wait_for(settled, 10, "every outcome recorded")

    # At 20 a second: never more than 21 in a second, and at least 0.9 of the rate.
    assert stamping.per_window(until=faster) <= 21
    assert between(stamping, first, first + 10) >= 180
    # Waiting is not failing: pending, due at a time, no attempt spent but the one begun.
    assert len(waiting) > 300
    assert {each["status"] for each in waiting} == {"pending"}
    assert all(each["attempts"] <= 1 and each["next_attempt_at"] for each in waiting)
    # At 60 from within a second of the PATCH.
    assert stamping.per_window(since=faster + 1, until=lifted) <= 61
    assert between(stamping, faster + 1, faster + 3) >= 108
    # Lifted within a second: at 60, what was left would have taken more than 5 s.
    assert between(stamping, lifted, float("inf")) > 300
    assert stamping.stamps[-1][0] - lifted <= 2
    delivered = admin.deliveries(endpoint["id"], "?limit=1000")
    assert {(each["status"], each["attempts"]) for each in delivered} == {("delivered", 1)}
    assert len({webhook_id for _, webhook_id in stamping.stamps}) == BACKLOG


def test_a_second_endpoint_keeps_its_pace_beside_a_throttled_backlog(
    app_stack, database_url, start_workers, stamping, make_receiver
):
    server, admin, start_the_workers = start(app_stack, database_url, start_workers)
    throttled = admin.register(stamping.url, events=["plant.created"], throttle_rate=5)
    healthy = make_receiver()
    admin.subscribe(healthy, events=["plant.created"])
    create_many(server, 300)
    started = time.monotonic()
    start_the_workers()
    wait_for(lambda: len(healthy.arrived()) == 300, 30, "the backlog at the healthy receiver")
    backlog_took = max(healthy.arrived().values()) - min(healthy.arrived().values())
    answered = {}
    for plant_id in range(300, 330):
        assert server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status == 200
        answered[plant_id] = time.monotonic()
        time.sleep(0.1)  # a steady pace of creates, not a wait for anything
    wait_for(lambda: len(healthy.arrived()) == 330, 10, "every event at the healthy receiver")

    delays = sorted(healthy.arrived()[plant_id] - at for plant_id, at in answered.items())
    assert delays[-1] <= 2, delays
    assert backlog_took <= 2, backlog_took
    # The throttled one still had most of its backlog, and kept to its rate.
    pending = admin.deliveries(throttled["id"], "?status=pending&limit=1000")
    assert len(pending) >= 300 - 5 * (time.monotonic() - started + 1)
    assert stamping.per_window() <= 6
