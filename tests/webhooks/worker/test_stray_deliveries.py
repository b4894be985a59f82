"""Deliveries that a fan-out wrote from a read of the endpoints made before a PATCH or a DELETE
committed (PostgreSQL reads outside the endpoints' locks): the worker settles them in seconds,
failing those of an endpoint disabled and deleting those of an endpoint gone."""

import time

from app.database import utcnow
from harness.processes import wait_for
from support.endpoints import add_delivery, delivery_rows, register, send
from support.in_process import running
from support.tokens import issue_admin_token


def test_strays_of_an_endpoint_disabled_or_deleted_are_settled(make_app):
    app = make_app(WEBHOOK_POLL_INTERVAL=0.05)
    client, headers = app.test_client(), issue_admin_token(app)
    disabled = register(client, headers)["id"]
    assert (
        send(client, "PATCH", f"/webhooks/{disabled}", headers, {"enabled": False}).status_code
        == 200
    )
    deleted = register(client, headers)["id"]
    assert send(client, "DELETE", f"/webhooks/{deleted}", headers).status_code == 204
    # The state such a fan-out leaves: rows pending after the change that should have ended them.
    now = utcnow()
    stray = add_delivery(app, disabled, status="pending", attempts=0, next_attempt_at=now)
    add_delivery(app, deleted, status="pending", attempts=0, next_attempt_at=now)
    with running(app):
        started = time.monotonic()
        wait_for(lambda: not delivery_rows(app, deleted), 10, "the deleted endpoint's rows gone")
        wait_for(
            lambda: delivery_rows(app, disabled)[stray]["status"] == "failed", 10, "the failure"
        )
        assert time.monotonic() - started < 5
    row = delivery_rows(app, disabled)[stray]
    assert row["last_error"].startswith("endpoint disabled: ")
    assert row["claimed_until"] is None
