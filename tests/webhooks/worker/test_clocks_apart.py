"""Hosts' clocks apart change nothing, on PostgreSQL, whose clock is the one every decision is
made by. With the host that creates plants 2 s behind the one that changes the endpoint, an
endpoint enabled by a change that committed before the create gets its event, and one disabled
before does not. Two workers, one a minute ahead (beyond a claim's lease), never send a delivery
twice at once, nor later; an API host 90 s ahead delays no throttled endpoint's delivery, and
takes a token until it expires by the database's clock.
Wall clocks shifted by tests/support/clock_shift.c."""

import datetime
import time

import pytest

from app import database, events
from app.auth import ADMIN
from app.database import utcnow
from app.tokens import store as token_store
from app.tokens.lookup import token_hash
from harness.processes import wait_for
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token
from support.live_servers import environment
from support.shifted_clocks import sent_twice_at_once
from support.tokens import ADMIN_TOKEN
from support.webhooks import create_many

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize("database_url", ["postgresql"], indirect=True),
]

SHIFT = "-2"
# The second worker's clock ahead, in seconds: far beyond a claim's lease.
AHEAD, PLANTS = "60", 30


def test_an_endpoint_is_judged_by_what_committed_before_the_event_not_by_clocks(
    live_server, database_url, make_app, make_receiver, clock_shift
):
    env = environment(ENDPOINT_SETTINGS)
    changes = live_server(database_url, **env)
    behind = live_server(
        database_url, release=False, LD_PRELOAD=str(clock_shift), CLOCK_SHIFT_SECONDS=SHIFT, **env
    )
    admin = Admin(changes, issue_admin_token(database_url))
    receiver = make_receiver()
    endpoint = admin.subscribe(receiver, events=["plant.created"], enabled=False)
    worker = make_app(**ENDPOINT_SETTINGS)
    fanned_out = lambda: events.cursors.waiting(database.of(worker))[0] == 0  # noqa: E731
    with running(worker):
        # Enabled, then a create on the host 2 s behind: its event is stamped before the change.
        admin.patch(endpoint["id"], enabled=True)
        assert behind.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
        delivered = lambda: admin.newest(endpoint["id"]).get("status") == "delivered"  # noqa: E731
        wait_for(delivered, 10, "the first delivered")
        # Disabled, then another: it must not go, nor be kept as failed.
        admin.patch(endpoint["id"], enabled=False)
        assert behind.request("POST", "/plants", {"id": 2, "name": "Aloe"}).status == 200
        wait_for(fanned_out, 10, "the fan-out of the second")
    assert list(receiver.arrived()) == [1]
    assert [each["status"] for each in admin.deliveries(endpoint["id"])] == ["delivered"]


def test_two_workers_a_minute_apart_never_send_a_delivery_twice_at_once_nor_late(
    app_stack, database_url, start_workers, make_receiver, clock_shift
):
    server, admin, _ = app_stack()
    receiver = make_receiver()
    # Each attempt in flight for a while: time for the other worker to take it again.
    receiver.delay = 0.3
    admin.subscribe(receiver, events=["plant.created"])
    env = {**server.env, "PLANTSTORE_DATABASE_URL": database_url}
    start_workers(env)
    start_workers({**env, "LD_PRELOAD": str(clock_shift), "CLOCK_SHIFT_SECONDS": AHEAD})
    created = time.monotonic()
    create_many(server, PLANTS)
    wait_for(lambda: len(receiver.arrived()) == PLANTS, 20, "every plant delivered")
    settled = lambda: not any(answered is None for _, answered in receiver.attempts)  # noqa: E731
    wait_for(settled, 5, "every attempt answered")
    assert sent_twice_at_once(receiver) == []
    # Not one waited for a clock: each went within seconds of the creates.
    assert max(receiver.arrived().values()) - created <= 10


def test_an_api_host_90_s_ahead_delays_no_throttled_endpoint(
    live_server, database_url, make_app, make_receiver, clock_shift
):
    env = environment(ENDPOINT_SETTINGS)
    ahead = live_server(database_url, LD_PRELOAD=str(clock_shift), CLOCK_SHIFT_SECONDS="90", **env)
    admin = Admin(ahead, issue_admin_token(database_url))
    receiver = make_receiver()
    endpoint = admin.subscribe(receiver, events=["plant.created"], throttle_rate=5)
    delivered = lambda: admin.newest(endpoint["id"]).get("status") == "delivered"  # noqa: E731
    with running(make_app(**ENDPOINT_SETTINGS)):
        created = time.monotonic()
        assert ahead.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
        wait_for(delivered, 10, "the delivery recorded")
    assert receiver.arrived()[1] - created <= 3


def test_an_api_host_90_s_ahead_takes_a_token_until_it_expires_by_the_database(
    live_server, database_url, make_app, clock_shift
):
    db = database.of(make_app())
    a_minute_on = utcnow() + datetime.timedelta(minutes=1)  # this host's clock is the database's
    token_store.create(db, "for a minute", token_hash(ADMIN_TOKEN), ADMIN, a_minute_on)
    ahead = live_server(database_url, LD_PRELOAD=str(clock_shift), CLOCK_SHIFT_SECONDS="90")
    started = time.monotonic()
    assert ahead.request("GET", "/plants", token=ADMIN_TOKEN).status == 200
    assert time.monotonic() - started < 5
