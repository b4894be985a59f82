"""A delivery's claim, in process on a real database: one attempt at a time, whatever a resend
asks meanwhile; and a round's locks, taken on the endpoints before their deliveries, as the API
takes them, so that a disable and a round wait for each other, never in a circle."""

import threading
import time

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from app.events import store as feed
from app.webhooks.tables.deliveries import queue
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


def waits_for_a_lock(db):
    """Whether a session of db's PostgreSQL waits for a lock now."""
    with db.engine.connect() as conn:
        waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        return conn.execute(text(waiting)).scalar() > 0


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

    def disabled_meanwhile(db, cursor, after, types, limit):
        # The round has begun: a disable comes now, before the fan-out writes its claims.
        threading.Thread(target=disable).start()
        wait_for(lambda: answers or waits_for_a_lock(db), 5, "the disable to end or wait")
        return page(db, cursor, after, types, limit)

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

    def probed(db, cursor, deliveries):
        # As a PATCH would, from another connection: the endpoint's row must be taken already.
        held.append(row_is_locked(db, endpoint))
        release(db, cursor, deliveries)

    monkeypatch.setattr(queue, "release", probed)
    ledger.round([], [claimed], {}, {})
    assert held == [True]
    (row,) = delivery_rows(app, endpoint).values()
    assert (row["status"], row["attempts"], row["claimed_until"]) == ("pending", 0, None)
