"""disabling.judge on its own, on a real database: a 410 Gone among an endpoint's outcomes of a
round disables it at once, whatever outcome comes after it in the same round."""

import datetime
import uuid

import pytest

from app import database
from app.database import utcnow
from app.webhooks.tables.endpoints import rounds
from app.webhooks.tables.records import Outcome
from app.webhooks.worker import disabling
from endpoint_helpers import register
from helpers import issue_admin_token

GONE = "the endpoint answered 410 Gone"
# An error and a status, as the worker's retries make of an answer (None: no answer, no error).
AFTER = {"a 500": ("HTTP 500", 500), "a timeout": ("timeout", None), "a 2xx": (None, 204)}


@pytest.mark.parametrize("after", AFTER)
def test_a_410_then_another_outcome_in_the_same_round_disables_the_endpoint(make_app, after):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers)["id"]
    now = utcnow()
    retry_at = now + datetime.timedelta(minutes=1)
    error, status = AFTER[after]
    outcomes = [
        Outcome(uuid.uuid4().hex, endpoint, "HTTP 410", retry_at, 410),
        Outcome(uuid.uuid4().hex, endpoint, error, retry_at if error else None, status),
    ]
    db = database.of(app)
    with db.transaction() as cursor:
        known = {each.id: each for each in rounds.for_worker(db, cursor)}
        disabled = disabling.judge(db, cursor, outcomes, now, 3600, known)
    assert disabled == [(endpoint, GONE, "gone")]
    shown = client.get(f"/webhooks/{endpoint}", headers=headers).get_json()
    assert (shown["enabled"], shown["disabled_reason"]) == (False, GONE)
