"""A step of the database's own clock (an NTP step, a failover to a server whose clock differs)
neither starves a throttled endpoint nor bursts it: the schedule is clamped as GCRA clamps its
theoretical arrival time. A PostgreSQL server of the test's own, its wall clock stepped mid-run
through a file that tests/support/clock_shift.c reads; two worker processes share it. Arrivals
are stamped by the receiver's kernel, on this host's clock, which no step touches."""

import itertools
import time

import pytest

from harness.processes import wait_for
from harness.stamping import StampingReceiver
from support.live_servers import upgrade
from support.shifted_clocks import build_clock_shift, stepped_postgres
from support.webhooks import create_many

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.parametrize("database_url", ["postgresql"], indirect=True),
]


@pytest.fixture
def stepped_clock(private_postgres):
    """The SteppedClock of the test's PostgreSQL server."""
    return stepped_postgres(private_postgres, build_clock_shift(private_postgres.dir))


@pytest.fixture
def database_url(request, private_postgres, stepped_clock):
    """The test's database, migrated: on the PostgreSQL server whose clock it steps."""
    assert request.param == "postgresql"
    upgrade(private_postgres.url)
    return private_postgres.url


@pytest.fixture
def stamping():
    """A receiver that stamps each request as its kernel received it."""
    receiver = StampingReceiver()
    yield receiver
    receiver.close()


def backlog(app_stack, database_url, start_workers, stamping, rate, count):
    """An endpoint at rate a second with a backlog of count, and two workers delivering it; when
    its first delivery arrived (time.time())."""
    server, admin, _ = app_stack()
    admin.register(stamping.url, events=["plant.created"], throttle_rate=rate)
    create_many(server, count)
    env = {**server.env, "PLANTSTORE_DATABASE_URL": database_url}
    start_workers(env)
    start_workers(env)
    wait_for(lambda: stamping.stamps, 30, "the first delivery")
    return stamping.stamps[0][0]


def arrived_after(receiver, moment):
    """Whether a request arrived at moment (time.time()) or later."""
    return bool(receiver.stamps) and receiver.stamps[-1][0] >= moment


def longest_gap(receiver, since):
    """The longest time between two requests that arrived after since (time.time())."""
    times = sorted(stamp for stamp, _ in receiver.stamps if stamp >= since)
    return max((later - earlier for earlier, later in itertools.pairwise(times)), default=0.0)


def between(receiver, since, until):
    """How many requests arrived from since until until (time.time(), until excluded)."""
    return sum(since <= stamp < until for stamp, _ in receiver.stamps)


def test_a_step_back_of_the_database_clock_starves_no_throttled_endpoint(
    app_stack, database_url, start_workers, stamping, stepped_clock
):
    first = backlog(app_stack, database_url, start_workers, stamping, 20, 200)
    wait_for(lambda: arrived_after(stamping, first + 2), 10, "two seconds of deliveries")
    stepped = time.time()
    stepped_clock.step(-60)
    # Without the clamp, the schedule written before the step is a minute ahead: nothing goes.
    wait_for(lambda: arrived_after(stamping, stepped + 4), 8, "four seconds after the step")
    # Within a second of its schedule (an attempt each 1/20 s), and still at its rate.
    assert longest_gap(stamping, first) <= 1.05
    assert between(stamping, stepped + 1, stepped + 4) >= 0.9 * 20 * 3
    assert stamping.per_window() <= 21


def test_a_step_forward_of_the_database_clock_bursts_no_throttled_endpoint(
    app_stack, database_url, start_workers, stamping, stepped_clock
):
    first = backlog(app_stack, database_url, start_workers, stamping, 100, 900)
    wait_for(lambda: arrived_after(stamping, first + 2), 10, "two seconds of deliveries")
    stepped = time.time()
    stepped_clock.step(2)
    wait_for(lambda: arrived_after(stamping, stepped + 3), 8, "three seconds after the step")
    # The attempts claimed before the step still go when they were due: the ones claimed after
    # it come after them, never beside them.
    assert stamping.per_window() <= 101
    assert between(stamping, stepped + 1, stepped + 3) >= 0.8 * 100 * 2
