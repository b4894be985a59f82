"""The feed on PostgreSQL as it is deployed: copied into another cluster whose transaction
counter is lower, it keeps its events, ids and order and goes on; an event written by older code
that names no place is in the feed; a transaction open elsewhere in the cluster holds events
back, and /metrics and `webhooks status` show them; two retention passes at once never move
the feed's start back, and each counts what it deleted."""

import datetime
import threading

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app import database
from app.database import utcnow
from app.events import cursors, retention, store
from app.events.ids import START
from harness.processes import wait_for
from support.clusters import app_on, burn_to, copy_database, create, driver_url, feed
from support.in_process import running
from support.live_servers import upgrade
from support.receivers import Receiver
from support.tokens import issue_admin_token

ON_POSTGRESQL = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

# The source cluster's transaction counter first: beyond a new cluster's at its start.
BURNED = 1500


@pytest.mark.e2e
def test_a_copy_in_another_cluster_keeps_the_feed_and_goes_on(private_postgres, other_cluster):
    upgrade(private_postgres.url)
    burn_to(private_postgres.url, BURNED)
    receiver = Receiver()
    try:
        source = app_on(private_postgres.url)
        client = source.test_client()
        admin = issue_admin_token(source)
        endpoint = client.post(
            "/webhooks", json={"url": receiver.url, "events": ["plant.created"]}, headers=admin
        ).get_json()
        receiver.verify_with(endpoint["secret"])
        with running(source):
            create(client, 1, 2, 3)
            wait_for(lambda: len(receiver.arrived()) == 3, 10, "the first three deliveries")
        before = feed(client)
        database.of(source).dispose()

        copy_database(private_postgres.url, other_cluster.url)
        copy = app_on(other_cluster.url)
        client = copy.test_client()
        # Every event, with its id, in its order.
        assert feed(client) == before
        create(client, 4, 5)
        after = feed(client, f"?after={before[-1]['id']}")
        assert [event["data"]["id"] for event in after] == [4, 5]
        assert all(event["id"].count("_") == 3 for event in after)  # a new epoch's ids
        with running(copy):
            wait_for(lambda: len(receiver.arrived()) == 5, 10, "the deliveries after the move")
        # Nothing delivered before the move went again.
        assert sorted(receiver.arrived()) == [1, 2, 3, 4, 5]
        assert len(receiver.requests) == 5
        database.of(copy).dispose()
    finally:
        receiver.close()
    assert receiver.unverified == []


@ON_POSTGRESQL
def test_an_event_written_by_older_code_is_in_the_feed_in_its_order(make_app, database_url):
    # A host still on older code names no epoch, transaction or snapshot: the columns' defaults
    # write them, so its event is neither hidden nor sorted before the others.
    app = make_app()
    client = app.test_client()
    create(client, 1)
    (first,) = feed(client)
    with database.of(app).engine.begin() as conn:
        conn.exec_driver_sql(
            "INSERT INTO events (type, body, created_at) "
            """VALUES ('plant.created', '{"id":2,"name":"Fern"}', now())"""
        )
    create(client, 3)
    after = feed(client, f"?after={first['id']}")
    assert [event["data"]["id"] for event in after] == [2, 3]


@ON_POSTGRESQL
def test_a_transaction_open_elsewhere_holds_events_back_and_shows_them(make_app, database_url):
    app = make_app()
    client = app.test_client()
    other = make_url(database_url).set(database="postgres")
    with psycopg.connect(driver_url(other.render_as_string(hide_password=False))) as elsewhere:
        elsewhere.execute("SELECT pg_current_xact_id()")  # an idle transaction, in another database
        create(client, 1, 2)
        assert feed(client) == []
        metrics = client.get("/metrics").get_data(as_text=True)
        assert "plantstore_events_held_back 2.0" in metrics
        oldest = _gauge(metrics, "plantstore_events_held_back_oldest_seconds")
        assert 0 < oldest < 60
        status = app.test_cli_runner().invoke(args=["webhooks", "status"]).output
        assert "events held back: 2, oldest " in status
        elsewhere.commit()
    assert [event["data"]["id"] for event in feed(client)] == [1, 2]
    assert "plantstore_events_held_back 0.0" in client.get("/metrics").get_data(as_text=True)


def _gauge(metrics, name):
    (line,) = [line for line in metrics.splitlines() if line.startswith(f"{name} ")]
    return float(line.split()[1])


@ON_POSTGRESQL
def test_two_retention_passes_at_once_never_move_the_start_back(make_app, database_url):
    app = make_app()
    db = database.of(app)
    create(app.test_client(), *range(1, 7))
    with db.transaction() as cursor:
        every, _ = store.page(cursor, START, (), 100)
        cursors.move(cursor, cursors.FANOUT, every[-1])
    later = utcnow() + datetime.timedelta(days=1)
    counts = {}

    def delete_old(name, batch):
        with db.transaction() as cursor:
            counts[name] = retention.delete_old(db, cursor, later, every[-1], batch)

    with psycopg.connect(driver_url(database_url)) as holder:
        # Both passes read the same start, then queue for the first event's row, in turn.
        holder.execute("SELECT id FROM events WHERE id = %s FOR UPDATE", (every[0].id,))
        passes = [
            threading.Thread(target=delete_old, args=("all", 6)),
            threading.Thread(target=delete_old, args=("three", 3)),
        ]
        for number, each in enumerate(passes, start=1):
            each.start()
            wait_for(lambda n=number: _waiting(holder) == n, 10, "the pass to queue")
        holder.rollback()
    for each in passes:
        each.join(10)
    # The first deleted all six; the second found none of its three left.
    assert counts == {"all": 6, "three": 0}
    with db.cursor() as cursor:
        assert cursors.where(cursor, cursors.DELETED) == every[-1][:3]


def _waiting(holder):
    # Sessions queued for a row: the first waits for its holder, the next for the first.
    with psycopg.connect(holder.info.dsn, autocommit=True) as looker:
        return looker.execute("SELECT count(*) FROM pg_locks WHERE NOT granted").fetchone()[0]
