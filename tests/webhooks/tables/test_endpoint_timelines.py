"""The fan-out goes by each endpoint's history: an event goes to the endpoints that were enabled
and subscribed to its type when it was written, however many changes came before the worker
got to it, and whenever a change waited for the write lock. In process, on a real database."""

import sys
import threading
import time

from sqlalchemy import text

from app import database
from app.database import utcnow
from app.events import store as feed
from app.plants.event_types import CREATED
from app.webhooks.tables.endpoints import timelines
from app.webhooks.worker import fanout
from harness.processes import wait_for
from support.endpoints import delivery_rows, register, send
from support.tokens import issue_admin_token
from support.webhooks import create


def fan_out(app):
    """Fan out every waiting event to the endpoints, claiming none."""
    db = database.of(app)
    with db.transaction() as cursor:
        fanout.fan_out(db, cursor, [], set(), 1000, {}, utcnow())


def patch(client, headers, endpoint_id, **changes):
    response = send(client, "PATCH", f"/webhooks/{endpoint_id}", headers, changes)
    assert response.status_code == 200, response.get_json()


def create_plant(client, plant_id):
    assert create(client, plant_id).status_code == 200


def test_an_endpoint_subscribed_when_the_event_was_written_gets_it_after_two_changes(make_app):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers, events=["plant.created"])["id"]
    create_plant(client, 1)
    # The worker is behind: both changes come before the fan-out of that event.
    for _ in range(2):
        patch(client, headers, endpoint, events=["plant.updated"])
    fan_out(app)
    assert [row["status"] for row in delivery_rows(app, endpoint).values()] == ["pending"]


def test_an_endpoint_disabled_when_the_event_was_written_never_gets_it(make_app):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers, events=["plant.created"], enabled=False)["id"]
    control = register(client, headers, events=["plant.created"])["id"]
    create_plant(client, 1)
    for enabled in (True, False, True):
        patch(client, headers, endpoint, enabled=enabled)
    fan_out(app)
    assert len(delivery_rows(app, control)) == 1
    assert delivery_rows(app, endpoint) == {}


def _waits_for_the_write_lock(app, thread):
    # The PATCH's thread, inside the database's lock: in the host's writer lock on SQLite, in a
    # row lock on PostgreSQL.
    db = database.of(app)
    if db.is_sqlite:
        frame = sys._current_frames().get(thread.ident)
        while frame is not None:
            if frame.f_code.co_name == "acquire" and frame.f_code.co_filename.endswith(
                "hostlock.py"
            ):
                return True
            frame = frame.f_back
        return False
    with db.engine.connect() as conn:
        waiting = "SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
        return conn.execute(text(waiting)).scalar() > 0


def test_a_disable_that_waits_for_the_write_lock_counts_from_when_it_holds_it(make_app):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers, events=["plant.created"])["id"]
    db = database.of(app)
    answers = []
    disabling = threading.Thread(
        target=lambda: answers.append(
            send(client, "PATCH", f"/webhooks/{endpoint}", headers, {"enabled": False})
        )
    )
    with db.transaction() as cursor:
        if not db.is_sqlite:  # SQLite's write lock is held already
            cursor.execute(
                "SELECT id FROM webhook_endpoints WHERE id = %(id)s FOR UPDATE", {"id": endpoint}
            )
        disabling.start()
        started = time.monotonic()
        wait_for(lambda: _waits_for_the_write_lock(app, disabling), 5, "the PATCH to wait")
        # A create commits while the PATCH waits: the endpoint is still enabled for its event.
        feed.publish(database.of(app), cursor, CREATED, {"id": 1, "name": "Fern"})
    disabling.join(10)
    assert [answer.status_code for answer in answers] == [200]
    assert time.monotonic() - started < 5
    fan_out(app)
    # Written while it was enabled, failed as it is disabled now: a recover sends it.
    (row,) = delivery_rows(app, endpoint).values()
    assert (row["status"], row["last_error"]) == ("failed", fanout.DISABLED)


def test_a_replaced_state_is_kept_while_an_event_written_under_it_waits_then_forgotten(
    make_app,
):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers, events=["plant.created"])["id"]
    patch(client, headers, endpoint, events=["plant.updated"])
    create_plant(client, 1)  # written under the second state, which the third replaces
    patch(client, headers, endpoint, events=["plant.deleted"])
    db = database.of(app)

    def states():
        with db.cursor() as cursor:
            return [sorted(each) for each in timelines.of_endpoints(db, cursor)[endpoint].events]

    # The first decides no waiting event; the second decides the create's, not yet fanned out.
    assert timelines.prune(db) == 1
    assert states() == [["plant.updated"], ["plant.deleted"]]
    fan_out(app)
    assert timelines.prune(db) == 1
    assert states() == [["plant.deleted"]]
