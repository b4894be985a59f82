"""`make bench-scale`'s filler keeps up with the schema: a store it fills, at a tiny size, reads
back through the app as one the service wrote."""

from sqlalchemy import create_engine

from app import database
from bench.scale_fill import RECEIVERS, fill
from support.migrations import rows

ROWS = 50


def test_a_filled_store_reads_back_through_the_app(app, client, runner, auth_headers):
    fill(database.of(app).engine.url.render_as_string(hide_password=False), ROWS)

    plants = client.get("/plants?limit=1000", headers=auth_headers).get_json()
    assert len(plants) == ROWS
    assert plants[0] == {"id": 1, "name": "plant 1", "tag": "common"}
    feed = client.get("/events?limit=1000", headers=auth_headers)
    assert feed.status_code == 200
    events = feed.get_json()
    assert [event["data"]["id"] for event in events] == list(range(1, ROWS + 1))
    assert {event["type"] for event in events} == {"plant.created", "plant.updated"}
    status = runner.invoke(args=["webhooks", "status"])
    assert status.exit_code == 0, status.output
    assert "pending: 1\ndelivered: 49\nfailed: 0\n" in status.output


def test_every_delivery_names_its_event_as_the_feed_does(app, client, auth_headers):
    url = database.of(app).engine.url.render_as_string(hide_password=False)
    fill(url, ROWS)

    events = client.get("/events?limit=1000", headers=auth_headers).get_json()
    engine = create_engine(url)
    stored = rows(engine)
    engine.dispose()
    deliveries = stored["deliveries"]
    assert {each["event_id"] for each in deliveries} == {event["id"] for event in events}
    assert {each["receiver"] for each in deliveries} == set(RECEIVERS)
    assert {each["status"] for each in deliveries} == {"delivered", "pending"}
    cursors = {each["name"]: each["id"] for each in stored["event_cursors"]}
    assert cursors == {"fanout": 2 * ROWS, "deleted": ROWS}
