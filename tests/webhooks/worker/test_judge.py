"""disabling.judge on its own, on a real database: which outcomes of a round disable an endpoint
(a 410 at once; failures for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds, then one more), and
which leave it enabled. The database's clock decides how long an endpoint has failed: a case
moves its failing_since back rather than waiting."""

import datetime
import uuid

import pytest

from app import database
from app.webhooks.tables.endpoints import DISABLED_FAILING, DISABLED_GONE, rounds, webhook_endpoints
from app.webhooks.tables.records import Outcome
from app.webhooks.worker import disabling
from support.endpoints import add_delivery, delivery_rows, register
from support.tokens import issue_admin_token

DISABLE_AFTER = 3600
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
    return Outcome(uuid.uuid4().hex, receiver, error, 60, status)


def judge(app, outcomes):
    """disabling.judge of outcomes in a transaction of its own, the endpoints read in it; what
    it disabled."""
    db = database.of(app)
    with db.transaction() as cursor:
        known = {each.id: each for each in rounds.for_worker(cursor)}
        return disabling.judge(cursor, outcomes, DISABLE_AFTER, known)


def state(app):
    """{endpoint id: (enabled, failing since)} as a round reads them."""
    db = database.of(app)
    with db.transaction() as cursor:
        return {each.id: (each.enabled, each.failing_since) for each in rounds.for_worker(cursor)}


def failing_for(app, endpoint_id, seconds):
    """Move the endpoint's failing_since seconds back: as if it had failed that much longer."""
    since = state(app)[endpoint_id][1]
    c = webhook_endpoints.c
    with database.of(app).engine.begin() as connection:
        moved = since - datetime.timedelta(seconds=seconds)
        connection.execute(
            c.id.table.update().where(c.id == endpoint_id).values(failing_since=moved)
        )


def test_a_410_disables_its_endpoint_alone_and_fails_its_pending_deliveries(endpoints):
    app, (gone, failing) = endpoints(2)
    pending = add_delivery(app, gone, "pending")
    # Any 410 of the round counts: a 2xx after it does not mask it.
    outcomes = [outcome(gone, 410), outcome(gone, 204), outcome(failing, 500)]
    disabled = judge(app, outcomes)
    assert disabled == [(gone, DISABLED_GONE, "gone")]
    shown = state(app)
    assert shown[gone] == (False, None)
    assert shown[failing][0] is True and shown[failing][1] is not None
    assert delivery_rows(app, gone)[pending]["status"] == "failed"


@pytest.mark.parametrize("after", [500, None, 204], ids=["a 500", "a timeout", "a 2xx"])
def test_a_410_then_another_outcome_in_the_same_round_disables_the_endpoint(make_app, after):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers)["id"]
    assert judge(app, [outcome(endpoint, 410), outcome(endpoint, after)]) == [
        (endpoint, DISABLED_GONE, "gone")
    ]
    shown = client.get(f"/webhooks/{endpoint}", headers=headers).get_json()
    assert (shown["enabled"], shown["disabled_reason"]) == (False, DISABLED_GONE)


@pytest.mark.parametrize("status", [500, 404, 429, None, 301])
def test_another_failure_marks_the_endpoint_failing_without_disabling_it(endpoints, status):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, status)]) == []
    assert state(app)[endpoint][0] is True and state(app)[endpoint][1] is not None


def test_failures_for_disable_after_and_one_more_disable_the_endpoint(endpoints):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, 500)]) == []
    # The second failure does not move the time it started failing.
    failing_for(app, endpoint, DISABLE_AFTER - 60)
    since = state(app)[endpoint][1]
    assert judge(app, [outcome(endpoint, None)]) == []
    assert state(app) == {endpoint: (True, since)}
    failing_for(app, endpoint, 61)
    assert judge(app, [outcome(endpoint, 503)]) == [(endpoint, DISABLED_FAILING, "failing")]
    assert state(app)[endpoint][0] is False


def test_a_2xx_last_in_the_round_ends_the_failing(endpoints):
    app, (endpoint,) = endpoints(1)
    judge(app, [outcome(endpoint, 500)])
    failing_for(app, endpoint, DISABLE_AFTER + 1)
    # Past DISABLE_AFTER, but the last of the round answered: the endpoint is well again.
    assert judge(app, [outcome(endpoint, 500), outcome(endpoint, 204)]) == []
    assert state(app) == {endpoint: (True, None)}


def test_a_failure_last_in_the_round_after_a_2xx_counts(endpoints):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, 200), outcome(endpoint, 500)]) == []
    assert state(app)[endpoint][0] is True and state(app)[endpoint][1] is not None


def test_a_410_of_the_operator_s_receiver_or_of_a_deleted_endpoint_disables_nothing(endpoints):
    app, (endpoint,) = endpoints(1)
    deleted = "ep_" + uuid.uuid4().hex
    assert judge(app, [outcome(OPERATOR, 410), outcome(deleted, 410)]) == []
    assert state(app) == {endpoint: (True, None)}


def test_an_endpoint_already_disabled_is_not_disabled_twice(endpoints):
    app, (endpoint,) = endpoints(1)
    assert judge(app, [outcome(endpoint, 410)]) == [(endpoint, DISABLED_GONE, "gone")]
    # A late outcome of an attempt in flight when it was disabled.
    assert judge(app, [outcome(endpoint, 410)]) == []
