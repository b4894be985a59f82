"""disabling.judge on its own, on a real database: which outcomes of a round disable an endpoint
(a 410 at once; failures for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds, then one more), and
which leave it enabled. The times are judge's now, so no case waits for them."""

import datetime
import uuid

import pytest

from app import database
from app.database import utcnow
from app.webhooks.tables.endpoints import DISABLED_FAILING, DISABLED_GONE, rounds
from app.webhooks.tables.records import Outcome
from app.webhooks.worker import disabling
from support.endpoints import add_delivery, delivery_rows, register
from support.tokens import issue_admin_token

DISABLE_AFTER = 3600
T0 = utcnow()
LATER = T0 + datetime.timedelta(seconds=DISABLE_AFTER + 1)
OPERATOR = "http://127.0.0.1:9/hook"


@pytest.fixture
def endpoints(make_app):
    """endpoints(count): an app with count endpoints registered; (app, their ids)."""

    def make(count):
        app = make_app()
        client, headers = app.test_client(), issue_admin_token(app)
        return app, [register(client, headers)["id"] for _ in range(count)]

    return make


def outcome(receiver, status):
    """An attempt's Outcome to receiver as the retries make it: status None is a timeout, a
    2xx is no error; a failure is retried a minute later."""
    if status is not None and 200 <= status < 300:
        return Outcome(uuid.uuid4().hex, receiver, None, None, status)
    error = f"HTTP {status}" if status else "timeout"
    return Outcome(uuid.uuid4().hex, receiver, error, T0 + datetime.timedelta(minutes=1), status)


def judge(app, outcomes, now):
    """disabling.judge of outcomes at now in a transaction of its own, the endpoints read in it;
    what it disabled."""
    db = database.of(app)
    with db.transaction() as cursor:
        known = {each.id: each for each in rounds.for_worker(db, cursor)}
        return disabling.judge(db, cursor, outcomes, now, DISABLE_AFTER, known)


def state(app):
    """{endpoint id: (enabled, failing since)} as a round reads them."""
    db = database.of(app)
    with db.transaction() as cursor:
        return {
            each.id: (each.enabled, each.failing_since) for each in rounds.for_worker(db, cursor)
        }


def test_a_410_disables_its_endpoint_alone_and_fails_its_pending_deliveries(endpoints):
    app, (gone, failing) = endpoints(2)
    pending = add_delivery(app, gone, "pending")
    # Any 410 of the round counts: a 2xx after it does not mask it.
    outcomes = [outcome(gone, 410), outcome(gone, 204), outcome(failing, 500)]
    disabled = judge(app, outcomes, T0)
    assert disabled == [(gone, DISABLED_GONE, "gone")]
    assert state(app) == {gone: (False, None), failing: (True, T0)}
    assert delivery_rows(app, gone)[pending]["status"] == "failed"


@pytest.mark.parametrize("after", [500, None, 204], ids=["a 500", "a timeout", "a 2xx"])
def test_a_410_then_another_outcome_in_the_same_round_disables_the_endpoint(make_app, after):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers)["id"]
    assert judge(app, [outcome(endpoint, 410), outcome(endpoint, after)], T0) == [
        (endpoint, DISABLED_GONE, "gone")
    ]
    shown = client.get(f"/webhooks/{endpoint}", headers=headers).get_json()
    assert (shown["enabled"], shown["disabled_reason"]) == (False, DISABLED_GONE)


@pytest.mark.parametrize("status", [500, 404, 429, None, 301])
def test_another_failure_marks_the_endpoint_failing_without_disabling_it(endpoints, status):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, status)], T0) == []
    assert state(app) == {endpoint: (True, T0)}


def test_failures_for_disable_after_and_one_more_disable_the_endpoint(endpoints):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, 500)], T0) == []
    # The second failure does not move the time it started failing.
    soon = T0 + datetime.timedelta(seconds=DISABLE_AFTER - 1)
    assert judge(app, [outcome(endpoint, None)], soon) == []
    assert state(app) == {endpoint: (True, T0)}
    assert judge(app, [outcome(endpoint, 503)], LATER) == [(endpoint, DISABLED_FAILING, "failing")]
    assert state(app)[endpoint][0] is False


def test_a_2xx_last_in_the_round_ends_the_failing(endpoints):
    app, (endpoint,) = endpoints(1)
    judge(app, [outcome(endpoint, 500)], T0)
    # Past DISABLE_AFTER, but the last of the round answered: the endpoint is well again.
    assert judge(app, [outcome(endpoint, 500), outcome(endpoint, 204)], LATER) == []
    assert state(app) == {endpoint: (True, None)}


def test_a_failure_last_in_the_round_after_a_2xx_counts(endpoints):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, 200), outcome(endpoint, 500)], T0) == []
    assert state(app) == {endpoint: (True, T0)}


def test_a_410_of_the_operator_s_receiver_or_of_a_deleted_endpoint_disables_nothing(endpoints):
    app, (endpoint,) = endpoints(1)
    deleted = "ep_" + uuid.uuid4().hex
    assert judge(app, [outcome(OPERATOR, 410), outcome(deleted, 410)], T0) == []
    assert state(app) == {endpoint: (True, None)}


def test_an_endpoint_already_disabled_is_not_disabled_twice(endpoints):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, 410)], T0) == [(endpoint, DISABLED_GONE, "gone")]
    # A late outcome of an attempt in flight when it was disabled.
    assert judge(app, [outcome(endpoint, 410)], LATER) == []
