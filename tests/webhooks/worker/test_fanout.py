"""Events fanned out by the worker: a change writes one row whatever the number of receivers;
a fan-out killed or cut off midway loses and repeats nothing (worker processes, killed or cut
off, and two racing); each receiver's window follows it (a worker in process)."""

import collections
import contextlib
import json
import sqlite3
import time

import pytest
from sqlalchemy import create_engine, make_url, text

from harness.processes import wait_for
from harness.receivers import SilentReceiver
from support.in_process import running
from support.live_servers import environment
from support.receivers import Receiver
from support.webhooks import (
    SECRET,
    create,
    most_in_flight,
    published,
    receiver_settings,
)

# Events enough that one round fans out for a while: a fault lands in the middle of it.
BACKLOG = 300


def fast_settings(*urls, **extra):
    """Webhook settings for these receivers, retrying fast, polling often."""
    extra = {"WEBHOOK_TIMEOUT": 1, "WEBHOOK_POLL_INTERVAL": 0.1, **extra}
    return receiver_settings(SECRET, *urls, **extra)


@pytest.fixture
def three_receivers():
    """Three receivers; every delivery they got must verify."""
    receivers = [Receiver(SECRET) for _ in range(3)]
    yield receivers
    for receiver in receivers:
        receiver.close()
        assert receiver.unverified == []


@pytest.fixture
def table_counts(database_url):
    """Rows of the events and deliveries tables, read straight from them."""
    engine = create_engine(database_url)

    def counts():
        with engine.connect() as conn:
            events = conn.execute(text("SELECT COUNT(*) FROM events")).scalar()
            deliveries = conn.execute(text("SELECT body FROM deliveries")).scalars().all()
        per_plant = collections.Counter(json.loads(body)["id"] for body in deliveries)
        return events, per_plant

    yield counts
    engine.dispose()


def worker_env(database_url, settings):
    """The environment of a worker on database_url with settings."""
    return {"PLANTSTORE_DATABASE_URL": database_url, **environment(settings)}


def each_got_each_once(receivers, count):
    """Whether every receiver got plants 0 .. count-1, each in one delivery only (one delivery
    id; a retry of it may arrive twice, a second fan-out would bring another id)."""
    for receiver in receivers:
        deliveries = collections.defaultdict(set)
        for headers, body in receiver.requests:
            deliveries[json.loads(body)["id"]].add(headers["X-Plantstore-Delivery"])
        if sorted(deliveries) != list(range(count)):
            return False
        assert all(len(ids) == 1 for ids in deliveries.values()), "an event fanned out twice"
    return True


@pytest.mark.parametrize("receiver_count", [1, 10])
def test_a_create_writes_one_event_row_whatever_the_number_of_receivers(
    make_app, table_counts, receiver_count
):
    urls = [f"http://127.0.0.1:9/hook{number}" for number in range(receiver_count)]
    client = make_app(**fast_settings(*urls)).test_client()
    assert create(client, 1).status_code == 200
    assert table_counts() == (1, {})
    assert create(client, 1).status_code == 200  # a replay announces nothing
    assert create(client, 1, name="Other").status_code == 409  # nor does a conflict
    assert table_counts() == (1, {})


@contextlib.contextmanager
def fan_out_stopped_midway(database_url):
    """Until the block ends, a worker's fan-out stops midway on PostgreSQL: it has locked its
    events and waits to write their deliveries, for the table lock held here. Yields a function
    that gives the pids of the backends waiting so."""
    engine = create_engine(database_url)
    waiting = (
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query LIKE 'INSERT INTO deliveries%'"
    )
    # The watcher reads in autocommit: a transaction would see one snapshot of the activity.
    watching = engine.execution_options(isolation_level="AUTOCOMMIT")
    with engine.connect() as holder, watching.connect() as watcher:
        holder.execute(text("LOCK TABLE deliveries IN SHARE MODE"))
        yield lambda: watcher.execute(text(waiting)).scalars().all()
        holder.rollback()
    engine.dispose()


def wait_for_sqlite_fan_out(database_url, timeout=30):
    """Wait until a worker holds SQLite's write lock (its first round fans out first)."""
    path = make_url(database_url).database
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        probe = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
        except sqlite3.OperationalError:
            return
        finally:
            probe.close()
    raise AssertionError("the worker never began a write transaction")


@pytest.mark.e2e
def test_kill_9_in_the_middle_of_a_fan_out_loses_and_repeats_no_event(
    make_app, database_url, start_workers, three_receivers, table_counts
):
    settings = fast_settings(*(receiver.url for receiver in three_receivers))
    published(make_app, settings, BACKLOG)
    env = worker_env(database_url, settings)
    if make_url(database_url).get_backend_name() == "postgresql":
        with fan_out_stopped_midway(database_url) as waiting:
            process, _ = start_workers(env)
            wait_for(waiting, 30, "the fan-out to stop midway")
            process.kill()
            process.wait()
        # Nothing of the killed fan-out was kept.
        assert table_counts() == (BACKLOG, {})
    else:
        process, _ = start_workers(env)
        wait_for_sqlite_fan_out(database_url)
        process.kill()
        process.wait()
    events, per_plant = table_counts()
    # The feed keeps every event, and each was fanned out whole (a delivery per receiver) or not
    # at all: on SQLite the kill may land after the first round's commit, as well as in it.
    assert events == BACKLOG
    assert set(per_plant.values()) <= {len(three_receivers)}
    start_workers(env)
    wait_for(lambda: each_got_each_once(three_receivers, BACKLOG), 60, "every event, once each")


@pytest.mark.e2e
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_postgresql_outage_in_the_middle_of_a_fan_out_loses_and_repeats_no_event(
    make_app, database_url, start_workers, three_receivers
):
    """SQLite has no server to lose in the middle of a transaction: its faults are the kill
    above and a write lock held by another program (test_worker.py)."""
    settings = fast_settings(*(receiver.url for receiver in three_receivers))
    published(make_app, settings, BACKLOG)
    engine = create_engine(database_url, isolation_level="AUTOCOMMIT")
    with fan_out_stopped_midway(database_url) as waiting:
        process, log = start_workers(worker_env(database_url, settings))
        wait_for(waiting, 30, "the fan-out to stop midway")
        with engine.connect() as conn:
            for pid in waiting():
                conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    engine.dispose()
    wait_for(lambda: each_got_each_once(three_receivers, BACKLOG), 60, "every event, once each")
    assert "database unavailable, trying again" in log.read_text()
    assert process.poll() is None


@pytest.mark.e2e
def test_two_workers_fan_out_each_event_once(
    make_app, database_url, start_workers, three_receivers
):
    settings = fast_settings(*(receiver.url for receiver in three_receivers))
    published(make_app, settings, BACKLOG)
    env = worker_env(database_url, settings)
    start_workers(env)
    start_workers(env)
    wait_for(lambda: each_got_each_once(three_receivers, BACKLOG), 60, "every event, once each")


def most_within(arrivals, seconds):
    """The most arrivals within any span of seconds."""
    arrivals = sorted(arrivals)
    start, most = 0, 0
    for end, at in enumerate(arrivals):
        while at - arrivals[start] > seconds:
            start += 1
        most = max(most, end - start + 1)
    return most


def test_a_receiver_50_ms_away_keeps_pace_beside_a_black_hole_held_to_its_few_slots(make_app):
    far, black_hole = Receiver(SECRET), SilentReceiver()
    far.delay = 0.05
    count = 200
    try:
        settings = fast_settings(far.url, black_hole.url, WEBHOOK_TIMEOUT=2)
        published(make_app, settings, count)
        with running(make_app(**settings)):
            wait_for(lambda: len(far.requests) >= count, 60, "every event at the far receiver")
        elapsed = far.arrivals[-1] - far.arrivals[0]
        # Four slots alone would take count * 50 ms / 4 = 5 s; the window grew past them.
        assert most_within(far.arrivals, far.delay) > 4
        assert elapsed < count * far.delay / 4, elapsed
        assert 1 <= most_in_flight(black_hole.attempts) <= 4
        assert far.unverified == []
    finally:
        far.close()
        black_hole.close()
