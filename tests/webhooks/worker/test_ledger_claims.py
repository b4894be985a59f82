"""A delivery's claim across rounds, on a real database (worker/ledger.py and the queue's
statements): an outcome or a give-back counts only under the claim its attempt was made on, so
that neither a claim taken again elsewhere nor a resend's fresh attempts are written over."""

import pytest

from app.database import utcnow
from app.webhooks.tables.records import Outcome
from app.webhooks.worker.ledger import Ledger
from support.endpoints import delivery_rows, lease_ends, register, send
from support.live_endpoints import ENDPOINT_SETTINGS
from support.tokens import issue_admin_token
from support.webhooks import create


@pytest.fixture
def claimed(make_app):
    """claimed(**settings): an endpoint of an app with settings, one plant.created delivery to
    it claimed by a worker's round, that worker's Ledger, and a way to resend the delivery
    through the API; as (app, endpoint id, Delivery, ledger, resend)."""

    def make(**settings):
        app = make_app(**{**ENDPOINT_SETTINGS, **settings})
        client, headers = app.test_client(), issue_admin_token(app)
        endpoint = register(client, headers, events=["plant.created"])["id"]
        assert create(client, 1).status_code == 200
        ledger = Ledger(app)
        (delivery,) = ledger.round([], [], {endpoint: 1}, {}).claimed

        def resend():
            path = f"/webhooks/{endpoint}/deliveries/{delivery.id}/resend"
            assert send(client, "POST", path, headers).status_code == 202

        return app, endpoint, delivery, ledger, resend

    return make


def row_of(app, endpoint, delivery):
    """The delivery's row: (status, attempts, whether it is claimed, last_error)."""
    row = delivery_rows(app, endpoint)[delivery.id]
    return row["status"], row["attempts"], row["claimed_until"] is not None, row["last_error"]


def test_an_outcome_under_a_claim_taken_again_elsewhere_is_not_recorded(claimed):
    app, endpoint, first, ledger, _ = claimed()
    lease_ends(app, first.id)  # its worker seemed lost: another claims it
    elsewhere = Ledger(app)
    (second,) = elsewhere.round([], [], {endpoint: 1}, {}).claimed
    assert (second.id, second.attempts) == (first.id, 2)
    late = Outcome(first.id, endpoint, None, None, 200, first.claim)
    ledger.round([late], [first], {}, {})
    # Neither the late outcome nor the give-back touch the attempt in flight elsewhere.
    assert row_of(app, endpoint, first) == ("pending", 2, True, None)
    failed = Outcome(second.id, endpoint, "HTTP 500", None, 500, second.claim)
    elsewhere.round([failed], [], {}, {})
    assert row_of(app, endpoint, first) == ("failed", 2, False, "HTTP 500")


def test_an_outcome_during_a_resend_leaves_the_delivery_due_with_fresh_attempts(claimed):
    # One attempt allowed: recorded over the resend, this failure would fail it for good.
    app, endpoint, delivery, ledger, resend = claimed(WEBHOOK_MAX_ATTEMPTS=1)
    resend()
    assert row_of(app, endpoint, delivery) == ("pending", 0, True, None)  # the claim is kept
    outcome = Outcome(delivery.id, endpoint, "HTTP 500", None, 500, delivery.claim)
    assert ledger.round([outcome], [], {}, {}).claimed == []
    assert row_of(app, endpoint, delivery) == ("pending", 0, False, "HTTP 500")
    row = delivery_rows(app, endpoint)[delivery.id]
    assert row["next_attempt_at"] <= utcnow()  # due now, not after a backoff
    (again,) = ledger.round([], [], {endpoint: 1}, {}).claimed
    assert (again.id, again.attempts) == (delivery.id, 1)


# An answer, and when the retry rule would try again after it (None: never).
LATER = {"a 2xx": (None, 204, None), "a 500 retried in an hour": ("HTTP 500", 500, 3600)}


@pytest.mark.parametrize("answer", LATER)
def test_an_outcome_during_a_resend_is_not_kept_and_the_delivery_stays_due(claimed, answer):
    app, endpoint, delivery, ledger, resend = claimed()
    resend()
    error, status, retry_in = LATER[answer]
    outcome = Outcome(delivery.id, endpoint, error, retry_in, status, delivery.claim)
    ledger.round([outcome], [], {}, {})
    row = delivery_rows(app, endpoint)[delivery.id]
    # The resend asked for another attempt after this one: it is still owed, now.
    assert (row["status"], row["attempts"], row["delivered_at"]) == ("pending", 0, None)
    assert row["next_attempt_at"] <= utcnow()


def test_a_give_back_during_a_resend_keeps_the_fresh_attempts(claimed):
    app, endpoint, delivery, ledger, resend = claimed()
    resend()
    ledger.round([], [delivery], {}, {})
    assert row_of(app, endpoint, delivery) == ("pending", 0, False, None)
    (again,) = ledger.round([], [], {endpoint: 1}, {}).claimed
    assert again.attempts == 1


def test_a_resend_after_the_outcome_was_recorded_starts_afresh(claimed):
    app, endpoint, delivery, ledger, resend = claimed(WEBHOOK_MAX_ATTEMPTS=1)
    outcome = Outcome(delivery.id, endpoint, "HTTP 500", None, 500, delivery.claim)
    ledger.round([outcome], [], {}, {})
    assert row_of(app, endpoint, delivery) == ("failed", 1, False, "HTTP 500")
    resend()
    assert row_of(app, endpoint, delivery) == ("pending", 0, False, None)
    (again,) = ledger.round([], [], {endpoint: 1}, {}).claimed
    assert again.attempts == 1
