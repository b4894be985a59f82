"""A page of the feed filtered by a rare type reads that type's events through their index, in
the feed's order, however many events of other types lie after its place."""

import datetime
import re

import pytest
from sqlalchemy import insert, text

from app import database
from app.events import store

# Events enough that a planner prefers an index to a scan; one in RARE_EVERY a delete.
WRITTEN = 3000
RARE_EVERY = 600
LINK = re.compile(r'<(?P<url>[^>]+)>; rel="next"')
T0 = datetime.datetime(2026, 11, 1, tzinfo=datetime.UTC)


@pytest.fixture
def fed(app):
    """The app's feed holding WRITTEN events, one in RARE_EVERY a plant.deleted, analysed."""
    db = database.of(app)
    rows = [
        {
            "type": "plant.deleted" if n % RARE_EVERY == 0 else "plant.created",
            "body": f'{{"id": {n}, "name": "Fern"}}',
            "created_at": T0,
        }
        for n in range(1, WRITTEN + 1)
    ]
    with db.engine.begin() as conn:
        conn.execute(insert(store.events), rows)
        conn.execute(text("ANALYZE"))
    return db


@pytest.mark.parametrize("types", [1, 2], ids=["one type", "two types"])
def test_a_page_of_rare_types_reads_their_index(fed, types):
    sql = store._page(types).sql[fed.dialect]
    explain = "EXPLAIN QUERY PLAN " if fed.is_sqlite else "EXPLAIN "
    values = {"epoch": 0, "xid": 0, "id": 0, "limit": 101}
    values.update((f"type_{number}", "plant.deleted") for number in range(types))
    with fed.cursor() as cursor:
        cursor.execute(explain + sql, values)
        plan = " ".join(str(part) for row in cursor.fetchall() for part in row)
    index = "events_type_rowid" if fed.is_sqlite else "events_type"
    assert plan.count(index) == types, plan
    # No scan of the table: each type's events, limit + 1 at the most, and the last event.
    assert "Seq Scan" not in plan and "SCAN events" not in plan, plan


def test_a_page_of_a_rare_type_answers_its_events_and_the_end_it_reached(client, auth_headers, fed):
    response = client.get("/events?types=plant.deleted&limit=3", headers=auth_headers)
    assert [event["data"]["id"] for event in response.get_json()] == [600, 1200, 1800]
    rest = client.get(_next(response), headers=auth_headers)
    assert [event["data"]["id"] for event in rest.get_json()] == [2400, 3000]
    # The last page went to the feed's end: the next one starts after its last event.
    end = client.get(_next(rest), headers=auth_headers)
    assert end.get_json() == [] and _next(end) == _next(rest)


def _next(response):
    return LINK.fullmatch(response.headers["Link"])["url"]
