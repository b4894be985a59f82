"""Epochs from the cluster's identity, never guessed from transaction ids (PostgreSQL): one
transaction that writes several rows opens no epoch; a copy whose transaction counter lands
inside the copied range shows every event at once, in order; and an `after` that the feed cannot
have given, before its start, is a 400 on both backends; after a failover to a promoted replica,
an `after` the replica never saw is a 410, and nothing written since is skipped. An owner role
without superuser reads the cluster's identity, as a PaaS grants it."""

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app import database
from app.events import store
from app.plants.event_types import CREATED
from app.webhooks.tables import endpoints
from harness.processes import wait_for
from support.clusters import READER, app_on, burn_to, copy_database, create, driver_url, feed
from support.endpoints import register
from support.feed_pages import next_link
from support.in_process import running
from support.live_servers import upgrade
from support.receivers import Receiver
from support.replicas import Replica, crash
from support.tokens import issue_admin_token

ON_POSTGRESQL = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)


def events_after(client, after):
    """The ids of the events after the id after, following the feed to its end."""
    seen, url = [], f"/events?after={after}"
    while True:
        response = client.get(url, headers=READER)
        assert response.status_code == 200, response.get_json()
        page = response.get_json()
        if not page:
            return seen
        seen += [event["id"] for event in page]
        url = next_link(response)


def xid(cursor):
    cursor.execute("SELECT pg_current_xact_id()::text::bigint")
    return cursor.fetchone()[0]


@ON_POSTGRESQL
def test_a_transaction_that_writes_several_timeline_entries_opens_no_epoch_and_hides_no_event(
    make_app, database_url
):
    app = make_app()
    client, db = app.test_client(), database.of(app)
    admin = issue_admin_token(app)
    both = [register(client, admin, events=["plant.created"])["id"] for _ in range(2)]
    # Two writers on sessions of their own, which end in the order they began.
    url = driver_url(database_url)
    with psycopg.connect(url) as first, psycopg.connect(url) as second:
        earlier, later = first.cursor(), second.cursor()
        xid(earlier)
        xid(later)
        # The later writer writes its event before the endpoints change, the earlier after.
        store.publish(later, CREATED, {"id": 2, "name": "Ivy"})
        with db.transaction() as changing:  # as the worker disables two endpoints at once
            for endpoint_id in both:
                endpoints.extend_timeline(changing, endpoint_id)
        store.publish(earlier, CREATED, {"id": 1, "name": "Fern"})
        first.commit()
        (seen,) = feed(client)  # the earlier one, shown while the later still runs
        second.commit()
    assert [event["data"]["id"] for event in feed(client)] == [1, 2]
    assert len(events_after(client, seen["id"])) == 1
    with db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM feed_epochs")
        assert cursor.fetchone()[0] == 1


@pytest.mark.e2e
def test_a_copy_whose_counter_lands_inside_the_copied_range_shows_every_event_in_order(
    private_postgres, other_cluster
):
    upgrade(private_postgres.url)
    burn_to(private_postgres.url, 3000)
    source = app_on(private_postgres.url)
    client = source.test_client()
    create(client, *range(1, 11))  # ten transactions, ten ids in a row
    before = feed(client)
    database.of(source).dispose()
    copy_database(private_postgres.url, other_cluster.url)
    with psycopg.connect(driver_url(other_cluster.url)) as conn:
        first, last = conn.execute("SELECT min(xid), max(xid) FROM events").fetchone()
        conn.rollback()
    assert last - first >= 9
    # The copy's counter in the middle of the copied range: a transaction of its open at the
    # fifth event's id, and two more ended after it (the feed's events 5 to 7 in between).
    burn_to(other_cluster.url, first + 3)
    with psycopg.connect(driver_url(other_cluster.url)) as open_there:
        assert xid(open_there.cursor()) == first + 4
        burn_to(other_cluster.url, first + 6)
        copy = app_on(other_cluster.url)
        client = copy.test_client()
        assert feed(client) == before
        create(client, 11)
        assert events_after(client, before[-1]["id"]) == []  # held back by the one open there
        open_there.rollback()
    (written,) = events_after(client, before[-1]["id"])
    assert written.count("_") == 3  # an epoch of the copy's own
    database.of(copy).dispose()


@pytest.mark.parametrize("before_the_start", ["ev_0_0", "ev_1_1"])
def test_an_after_before_the_feed_start_is_a_400_while_nothing_was_deleted(
    make_app, before_the_start
):
    client = make_app().test_client()
    create(client, 1, 2)
    first = feed(client)[0]["id"]
    assert before_the_start != first
    response = client.get(f"/events?after={before_the_start}", headers=READER)
    assert response.status_code == 400
    assert response.get_json()["message"].startswith("after: Not an event id the feed gave")
    assert client.get(f"/events?after={first}", headers=READER).status_code == 200


@pytest.mark.e2e
def test_after_a_failover_a_lost_after_is_a_410_and_nothing_written_since_is_skipped(
    private_postgres,
):
    upgrade(private_postgres.url)
    primary = app_on(private_postgres.url)
    client = primary.test_client()
    receiver = Receiver()
    replica = Replica(private_postgres)
    try:
        endpoint = client.post(
            "/webhooks",
            json={"url": receiver.url, "events": ["plant.created"]},
            headers=issue_admin_token(primary),
        ).get_json()
        receiver.verify_with(endpoint["secret"])
        create(client, 1, 2, 3)
        replica.wait_caught_up()
        kept = feed(client)[-1]["id"]
        replica.cut()
        create(client, 4, 5)  # committed, read by a follower, and lost with the primary
        lost = feed(client, f"?after={kept}")[-1]["id"]
        database.of(primary).dispose()
        crash(private_postgres)
        replica.promote()
        promoted = app_on(replica.url)
        client = promoted.test_client()
        response = client.get(f"/events?after={lost}", headers=READER)
        assert response.status_code == 410
        assert "read the feed again from its start" in response.get_json()["message"]
        create(client, *range(6, 11))  # the transaction ids the lost ones had, given again
        written = feed(client, f"?after={kept}")
        assert [event["data"]["id"] for event in written] == [6, 7, 8, 9, 10]
        assert all(event["id"].count("_") == 3 for event in written)  # the new timeline's epoch
        assert client.get(f"/events?after={lost}", headers=READER).status_code == 410
        with running(promoted):
            wait_for(lambda: len(receiver.arrived()) == 8, 10, "every kept and new delivery")
        assert sorted(receiver.arrived()) == [1, 2, 3, 6, 7, 8, 9, 10]
        database.of(promoted).dispose()
    finally:
        receiver.close()
        replica.destroy()
    assert receiver.unverified == []


@pytest.mark.e2e
def test_an_owner_role_without_superuser_migrates_writes_and_reads_the_feed(private_postgres):
    # As a PaaS grants it: a login role that owns its database, and nothing more.
    with psycopg.connect(driver_url(private_postgres.url), autocommit=True) as admin:
        admin.execute("CREATE ROLE plantstore_owner LOGIN NOSUPERUSER")
        admin.execute("CREATE DATABASE owned OWNER plantstore_owner")
    url = make_url(private_postgres.url).set(username="plantstore_owner", database="owned")
    owned = url.render_as_string(hide_password=False)
    upgrade(owned)
    app = app_on(owned)
    client = app.test_client()
    create(client, 1, 2)
    assert [event["data"]["id"] for event in feed(client)] == [1, 2]
    with psycopg.connect(driver_url(owned)) as conn:
        identity = conn.execute("SELECT system_identifier, timeline FROM feed_epochs").fetchall()
        assert identity == [conn.execute("SELECT * FROM plantstore_cluster()").fetchone()]
    database.of(app).dispose()
