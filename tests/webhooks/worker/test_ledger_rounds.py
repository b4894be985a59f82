"""The worker's rounds on their own (worker/ledger.py), on a real database and without a sender:
what one round's transaction fans out, claims, records and gives back, what it shows on
/metrics, and what the tidying deletes."""

import datetime
import re

import pytest
from sqlalchemy import text

from app import database
from app.database import utcnow
from app.webhooks.tables.deliveries import LOST
from app.webhooks.tables.records import Outcome
from app.webhooks.worker.ledger import Ledger
from support.endpoints import add_delivery, delivery_rows, lease_ends
from support.webhooks import SECRET, create

# An operator's receiver: the rounds never send, so nothing listens there.
URL = "http://127.0.0.1:9/hook"
SETTINGS = {"WEBHOOK_URLS": URL, "WEBHOOK_SECRET": SECRET, "WEBHOOK_MAX_ATTEMPTS": 3}


@pytest.fixture
def published(make_app):
    """published(count, **settings): an app sending to URL whose count plant events wait to be
    fanned out, and its worker's Ledger."""

    def make(count, **settings):
        app = make_app(**{**SETTINGS, **settings})
        client = app.test_client()
        for plant_id in range(count):
            assert create(client, plant_id).status_code == 200
        return app, Ledger(app)

    return make


def column(app, name):
    """{delivery id: its column name} of every delivery to URL."""
    return {key: row[name] for key, row in delivery_rows(app, URL).items()}


def test_a_round_fans_the_events_out_and_writes_claimed_what_the_window_wants(published):
    app, ledger = published(3)
    claimed = ledger.round([], [], {URL: 2}, {}).claimed
    assert [(each.receiver, each.attempts) for each in claimed] == [(URL, 1)] * 2
    attempts = column(app, "attempts")
    assert sorted(attempts.values()) == [0, 1, 1]
    assert {key for key, count in attempts.items() if count} == {each.id for each in claimed}
    assert set(column(app, "status").values()) == {"pending"}
    # The next round claims the one left from the outbox; the events were fanned out once.
    (left,) = ledger.round([], [], {URL: 5}, {}).claimed
    assert left.id not in {each.id for each in claimed}
    assert sorted(column(app, "attempts").values()) == [1, 1, 1]


def test_a_round_claims_nothing_for_a_receiver_that_wants_none(published):
    app, ledger = published(2)
    assert ledger.round([], [], {}, {}).claimed == []
    assert column(app, "attempts") != {}
    assert set(column(app, "attempts").values()) == {0}
    assert set(column(app, "claimed_until").values()) == {None}


def test_a_round_records_delivered_retried_and_failed_outcomes(published):
    app, ledger = published(3)
    delivered, retried, failed = ledger.round([], [], {URL: 3}, {}).claimed
    retry_at = utcnow() + datetime.timedelta(hours=1)
    outcomes = [
        Outcome(delivered.id, URL, None, None, 204, delivered.claim),
        Outcome(retried.id, URL, "HTTP 500", 3600, 500, retried.claim),
        Outcome(failed.id, URL, "timeout", None, None, failed.claim),
    ]
    assert ledger.round(outcomes, [], {URL: 3}, {}).claimed == []  # none due again
    rows = delivery_rows(app, URL)
    shown = {
        key: (row["status"], row["last_error"], row["response_status"], row["claimed_until"])
        for key, row in rows.items()
    }
    assert shown == {
        delivered.id: ("delivered", None, 204, None),
        retried.id: ("pending", "HTTP 500", 500, None),
        failed.id: ("failed", "timeout", None, None),
    }
    assert rows[delivered.id]["delivered_at"] is not None
    waits = rows[retried.id]["next_attempt_at"] - retry_at
    assert abs(waits.total_seconds()) < 1


def test_a_round_gives_back_what_was_not_sent_with_its_attempt(published):
    app, ledger = published(2)
    claimed = ledger.round([], [], {URL: 2}, {}).claimed
    assert ledger.round([], claimed, {}, {}).claimed == []
    assert set(column(app, "attempts").values()) == {0}
    assert set(column(app, "claimed_until").values()) == {None}
    again = ledger.round([], [], {URL: 2}, {}).claimed
    assert {each.id for each in again} == {each.id for each in claimed}


def test_a_lost_attempt_is_tried_again_once_its_lease_ends_and_failed_past_the_last(published):
    app, ledger = published(1, WEBHOOK_MAX_ATTEMPTS=2)
    (first,) = ledger.round([], [], {URL: 1}, {}).claimed
    assert ledger.round([], [], {URL: 1}, {}).claimed == []  # its lease holds
    lease_ends(app, first.id)
    (second,) = ledger.round([], [], {URL: 1}, {}).claimed
    assert (second.id, second.attempts) == (first.id, 2)
    lease_ends(app, first.id)
    assert ledger.round([], [], {URL: 1}, {}).claimed == []
    row = delivery_rows(app, URL)[first.id]
    assert (row["status"], row["last_error"], row["attempts"]) == ("failed", LOST, 2)


def window_of(client, receiver):
    """plantstore_webhook_window of receiver on the app's /metrics; None when absent."""
    page = client.get("/metrics").get_data(as_text=True)
    found = re.search(rf'^plantstore_webhook_window\{{receiver="{receiver}"\}} (\S+)$', page, re.M)
    return float(found.group(1)) if found else None


def test_a_round_shows_the_windows_on_metrics_until_the_worker_settles(published):
    app, ledger = published(0)
    client = app.test_client()
    ledger.round([], [], {}, {URL: 8})
    assert window_of(client, URL) == 8
    ledger.settle([], [])
    assert window_of(client, URL) is None


def test_a_window_written_once_stays_on_metrics_while_its_worker_runs(published):
    app, ledger = published(0)
    client = app.test_client()
    ledger.round([], [], {}, {URL: 8})
    # Its row's own expiry past: the worker's row, rewritten at each write, keeps it alive.
    _expire(app, "webhook_windows")
    ledger._windows_due = 0.0
    ledger.round([], [], {}, {})
    assert window_of(client, URL) == 8
    # The worker gone (its row expired): its windows leave /metrics, and the table at the
    # next pruning.
    _expire(app, "webhook_window_workers")
    assert window_of(client, URL) is None
    Ledger(app).tidy(datetime.timedelta(days=7), 100)
    with database.of(app).engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM webhook_windows")).scalar() == 0


def _expire(app, table):
    past = utcnow() - datetime.timedelta(minutes=1)
    with database.of(app).engine.begin() as conn:
        conn.execute(text(f"UPDATE {table} SET expires_at = :past"), {"past": past})


def test_settling_records_the_last_outcomes_and_gives_back_the_rest(published):
    app, ledger = published(2)
    sent, unsent = ledger.round([], [], {URL: 2}, {}).claimed
    ledger.settle([Outcome(sent.id, URL, None, None, 200, sent.claim)], [unsent])
    rows = delivery_rows(app, URL)
    assert (rows[sent.id]["status"], rows[sent.id]["attempts"]) == ("delivered", 1)
    left = rows[unsent.id]
    assert (left["status"], left["attempts"], left["claimed_until"]) == ("pending", 0, None)


def test_tidying_deletes_the_delivered_past_the_retention_alone(published):
    app, ledger = published(0)
    long_ago = utcnow() - datetime.timedelta(days=2)
    add_delivery(app, URL, "delivered", long_ago, next_attempt_at=long_ago)
    recent = add_delivery(app, URL, "delivered", utcnow(), next_attempt_at=utcnow())
    failed = add_delivery(app, URL, "failed", long_ago, next_attempt_at=long_ago)
    deleted, receivers = ledger.tidy(datetime.timedelta(days=1), 100)
    assert (deleted, receivers) == (1, [URL])
    assert set(delivery_rows(app, URL)) == {recent, failed}
