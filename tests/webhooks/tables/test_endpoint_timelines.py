"""The fan-out goes by each endpoint's timeline: an event goes to the endpoints that were enabled
and subscribed to its type when it was written, however many changes came before the worker
got to it, and whenever a change waited for the write lock, or a transaction elsewhere held the
event back for hours while the worker pruned the timelines. In process, on a real database."""

import sys
import threading
import time

import psycopg
import pytest
from sqlalchemy import text

from app import database
from app.events import cursors
from app.events import store as feed
from app.events.ids import START
from app.plants.event_types import CREATED
from app.webhooks.tables.endpoints import timelines
from app.webhooks.worker import fanout
from harness.processes import wait_for
from support.clusters import driver_url
from support.endpoints import delivery_rows, register, send
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS
from support.tokens import issue_admin_token
from support.webhooks import create

AN_HOUR_ON = "UPDATE webhook_endpoint_timelines SET since = since - interval '2 hours'"


def dropped(db):
    with db.cursor() as cursor:
        return cursors.where(cursor, cursors.DELETED) != START


def fan_out(app):
    """Fan out every waiting event to the endpoints, claiming none."""
    db = database.of(app)
    with db.transaction() as cursor:
        rows = fanout.waiting(db, cursor, 1000)
        by_type = timelines.Kept().current(cursor)
        fanout.fan_out(cursor, rows, by_type, [], set(), {}, database.Later(db, cursor, 60))


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
        feed.publish(cursor, CREATED, {"id": 1, "name": "Fern"})
    disabling.join(10)
    assert [answer.status_code for answer in answers] == [200]
    assert time.monotonic() - started < 5
    fan_out(app)
    # Written while it was enabled, failed as it is disabled now: a recover sends it.
    (row,) = delivery_rows(app, endpoint).values()
    assert (row["status"], row["last_error"]) == ("failed", fanout.DISABLED)


def test_a_replaced_entry_is_kept_while_an_event_written_under_it_waits_then_forgotten(
    make_app,
):
    app = make_app()
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = register(client, headers, events=["plant.created"])["id"]
    patch(client, headers, endpoint, events=["plant.updated"])
    create_plant(client, 1)  # written under the second entry, which the third replaces
    patch(client, headers, endpoint, events=["plant.deleted"])
    db = database.of(app)

    def entries():
        with db.cursor() as cursor:
            return [sorted(each) for each in timelines.of_endpoints(cursor)[endpoint].events]

    if not db.is_sqlite:  # an hour on: an entry is kept that long for events not yet committed
        with db.transaction() as cursor:
            cursor.execute(AN_HOUR_ON)
    # The first decides no waiting event; the second decides the create's, not yet fanned out.
    assert timelines.prune(db) == 1
    assert entries() == [["plant.updated"], ["plant.deleted"]]
    fan_out(app)
    assert timelines.prune(db) == 1
    assert entries() == [["plant.deleted"]]


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_an_event_held_back_for_hours_keeps_the_entry_it_was_written_under(
    make_app, database_url, make_receiver
):
    worker = make_app(**ENDPOINT_SETTINGS, EVENT_RETENTION=3600)
    client, headers = worker.test_client(), issue_admin_token(worker)
    receiver = make_receiver()
    endpoint = register(client, headers, url=receiver.url, events=["plant.created"])
    receiver.verify_with(endpoint["secret"])
    db = database.of(worker)
    create_plant(client, 1)  # delivered, then dropped by the retention: the worker's tidy seen
    with psycopg.connect(driver_url(database_url)) as elsewhere:
        elsewhere.execute("SELECT pg_current_xact_id()")  # holds back every event after it
        create_plant(client, 2)  # committed under the subscription, held back
        patch(client, headers, endpoint["id"], events=["plant.deleted"])
        with db.transaction() as cursor:  # two hours on
            cursor.execute(AN_HOUR_ON)
            cursor.execute("UPDATE events SET created_at = created_at - interval '2 hours'")
        with running(worker):
            wait_for(lambda: dropped(db), 10, "the retention's pass, and the pruning after it")
            elsewhere.rollback()
            wait_for(lambda: 2 in receiver.arrived(), 10, "the held back event's delivery")
    assert sorted(receiver.arrived()) == [1, 2]
