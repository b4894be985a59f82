"""A delivery's claim, in process on a real database: one attempt at a time, whatever a resend
asks meanwhile; and a round's locks, taken on the endpoints before their deliveries, as the API
takes them, so that a disable and a round wait for each other, never in a circle."""

import datetime
import threading
import time

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app import database
from app.database import utcnow
from app.events import store as feed
from app.webhooks.tables.deliveries import queue
from app.webhooks.tables.records import Delivery, NewDelivery, Outcome
from app.webhooks.worker.ledger import Ledger
from harness.processes import wait_for
from support.endpoints import delivery_rows, register, send
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS
from support.receivers import FirstAnswerLate
from support.tokens import issue_admin_token
from support.webhooks import create

# How long the receiver holds its first answer: the resend comes in meanwhile.
FIRST_ANSWER_DELAY = 2


def test_a_resend_while_an_attempt_is_in_flight_waits_for_it_to_end(make_app):
    receiver = FirstAnswerLate(FIRST_ANSWER_DELAY)
    try:
        app = make_app(**{**ENDPOINT_SETTINGS, "WEBHOOK_TIMEOUT": FIRST_ANSWER_DELAY + 3})
        client, headers = app.test_client(), issue_admin_token(app)
        endpoint = register(client, headers, url=receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
        assert create(client, 1).status_code == 200
        with running(app):
            wait_for(lambda: receiver.requests, 10, "the first attempt")
            (delivery_id,) = receiver.deliveries()
            resend = f"/webhooks/{endpoint['id']}/deliveries/{delivery_id}/resend"
            resent = time.monotonic()
            assert send(client, "POST", resend, headers).status_code == 202
            wait_for(lambda: len(receiver.requests) == 2, 10, "the resent attempt")
        first, second = receiver.arrivals
        # Its window had free slots: only the claim kept the second attempt back.
        assert second >= first + FIRST_ANSWER_DELAY
        assert second - resent < FIRST_ANSWER_DELAY + 1
        assert receiver.deliveries() == [delivery_id, delivery_id]
    finally:
        receiver.close()
    assert receiver.unverified == []


def waits_on(db, kind):
    """Whether a session of db's PostgreSQL database waits now on kind, pg_stat_activity's
    wait_event_type: "Lock" for a lock, "Timeout" for pg_sleep."""
    waiting = (
        "SELECT COUNT(*) FROM pg_stat_activity "
        "WHERE datname = current_database() AND wait_event_type = :kind"
    )
    with db.engine.connect() as conn:
        return conn.execute(text(waiting), {"kind": kind}).scalar() > 0


def row_is_locked(db, endpoint_id):
    """Whether another transaction holds the endpoint's row: a PATCH would wait for it."""
    with db.engine.connect() as conn:
        try:
            conn.execute(
                text("SELECT id FROM webhook_endpoints WHERE id = :id FOR UPDATE NOWAIT"),
                {"id": endpoint_id},
            )
        except OperationalError:
            return True
        return False


@pytest.fixture
def one_event():
    """make(app): an endpoint of app subscribed to plant.created, a plant created (its event
    waits), and the app's Ledger; as (client, admin headers, endpoint id, ledger)."""

    def make(app):
        client, headers = app.test_client(), issue_admin_token(app)
        endpoint = register(client, headers, events=["plant.created"])["id"]
        assert create(client, 1).status_code == 200
        return client, headers, endpoint, Ledger(app)

    return make


# Row locks, and reads outside them, are PostgreSQL's: SQLite's write transaction holds the
# whole database, so these rounds have nothing to interleave with there.
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_disable_during_a_round_fails_what_the_round_claimed_for_the_endpoint(
    make_app, one_event, monkeypatch
):
    app = make_app(**ENDPOINT_SETTINGS)
    client, headers, endpoint, ledger = one_event(app)
    answers = []

    def disable():
        path = f"/webhooks/{endpoint}"
        answers.append(send(client, "PATCH", path, headers, {"enabled": False}).status_code)

    page = feed.page

    def disabled_meanwhile(cursor, after, types, limit):
        # The round has begun: a disable comes now, before the fan-out writes its claims.
        threading.Thread(target=disable).start()
        db = database.of(app)
        wait_for(lambda: answers or waits_on(db, "Lock"), 5, "the disable to end or wait")
        return page(cursor, after, types, limit)

    monkeypatch.setattr(feed, "page", disabled_meanwhile)
    ledger.round([], [], {endpoint: 4}, {})
    ended = time.monotonic()
    wait_for(lambda: answers, 10, "the disable")
    assert answers == [200]
    assert time.monotonic() - ended < 2  # it waited for the round alone
    # What the round claimed, the disable failed: nothing of it is left to be sent.
    assert [row["status"] for row in delivery_rows(app, endpoint).values()] == ["failed"]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_round_holds_the_endpoint_of_a_delivery_it_gives_back_before_its_row(
    make_app, one_event, monkeypatch
):
    app = make_app(**ENDPOINT_SETTINGS)
    _, _, endpoint, ledger = one_event(app)
    (claimed,) = ledger.round([], [], {endpoint: 1}, {}).claimed
    release, held = queue.release, []

    def probed(cursor, deliveries):
        # As a PATCH would, from another connection: the endpoint's row must be taken already.
        held.append(row_is_locked(database.of(app), endpoint))
        release(cursor, deliveries)

    monkeypatch.setattr(queue, "release", probed)
    ledger.round([], [claimed], {}, {})
    assert held == [True]
    (row,) = delivery_rows(app, endpoint).values()
    assert (row["status"], row["attempts"], row["claimed_until"]) == ("pending", 0, None)


@pytest.fixture
def slow_delivery_writes(make_app):
    """The app's database, where each row written to deliveries holds its lock half a second
    longer (a trigger), so that two writers cross; the trigger is dropped afterwards."""
    app = make_app()
    engine = database.of(app).engine
    with engine.begin() as conn:
        conn.execute(text(SLOW_WRITES))
        conn.execute(text(SLOW_TRIGGER))
    yield app
    with engine.begin() as conn:
        conn.execute(text("DROP TRIGGER slow_delivery_writes ON deliveries"))
        conn.execute(text("DROP FUNCTION slow_delivery_write()"))


SLOW_WRITES = (
    "CREATE FUNCTION slow_delivery_write() RETURNS trigger LANGUAGE plpgsql AS "
    "$$ BEGIN PERFORM pg_sleep(0.5); RETURN NULL; END $$"
)
SLOW_TRIGGER = (
    "CREATE TRIGGER slow_delivery_writes AFTER UPDATE ON deliveries "
    "FOR EACH ROW EXECUTE FUNCTION slow_delivery_write()"
)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_recording_and_giving_back_take_the_same_rows_in_one_order(slow_delivery_writes):
    # Outcomes recorded in one order and the same deliveries given back in the other, at once:
    # both write the rows by id, so one waits for the other, and neither meets a deadlock.
    db = database.of(slow_delivery_writes)
    claim, created = utcnow() + datetime.timedelta(minutes=1), utcnow()
    made = [queue.new("https://r.example/", "plant.created", "{}", created, None) for _ in "ab"]
    written = [NewDelivery(each.claimed(lambda: claim)) for each in made]
    with db.transaction() as cursor:
        queue.insert(cursor, written)
    first, second = sorted(each.id for each in made)
    outcomes = [
        Outcome(each, "https://r.example/", None, None, 204, claim) for each in (second, first)
    ]
    unsent = [
        Delivery(each, "https://r.example/", "plant.created", "{}", created, 1, claim)
        for each in (first, second)
    ]
    raised = []

    def write(step, *args):
        try:
            with db.transaction() as cursor:
                step(cursor, *args)
        except Exception as error:  # a deadlock: the failure this case exists for
            raised.append(error)

    writers = [
        threading.Thread(target=write, args=(queue.record, outcomes)),
        threading.Thread(target=write, args=(queue.release, unsent)),
    ]
    started = time.monotonic()
    writers[0].start()
    # The recording holds its first row when the giving back starts: the order is the case's,
    # not the scheduler's, and the recording's outcomes stand.
    wait_for(lambda: waits_on(db, "Timeout"), 5, "the recording to hold a row")
    writers[1].start()
    for each in writers:
        each.join(10)
    assert raised == []
    assert time.monotonic() - started < 5
    assert {
        row["status"] for row in delivery_rows(slow_delivery_writes, "https://r.example/").values()
    } == {"delivered"}
