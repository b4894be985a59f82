"""GET /events: the contract's "The events feed" through the test client on both backends: the
page, its Link, the filter, the retention's 410, every bad input and token."""

import datetime
import re

import pytest

from app import database
from app.database import utcnow
from app.events import cursors, retention, store
from app.events.ids import START
from support.errors import assert_error
from support.webhooks import create

ID = re.compile(r"ev_[0-9]+_[0-9]+")
DROPPED = re.compile(r"dropped.*start", re.IGNORECASE)


def feed(client, headers, query=""):
    """A page of the feed that must be a 200: its events, and its Link's URL."""
    response = client.get(f"/events{query}", headers=headers)
    assert response.status_code == 200, response.get_json()
    link = re.fullmatch(r'<([^>]+)>; rel="next"', response.headers["Link"])
    return response.get_json(), link[1]


def ids(page):
    return [event["id"] for event in page]


def create_plants(client, *plant_ids):
    for plant_id in plant_ids:
        assert create(client, plant_id).status_code == 200


def test_a_page_shows_each_change_in_order_with_its_body(client, auth_headers):
    before = utcnow()
    create_plants(client, 1)
    changed = client.patch("/plants/1", json={"tag": "shade"}, headers=auth_headers)
    assert changed.status_code == 200
    assert client.delete("/plants/1", headers=auth_headers).status_code == 204
    response = client.get("/events", headers=auth_headers)
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    page = response.get_json()
    assert [(event["type"], event["data"]) for event in page] == [
        ("plant.created", {"id": 1, "name": "Fern"}),
        ("plant.updated", {"id": 1, "name": "Fern", "tag": "shade"}),
        ("plant.deleted", {"id": 1, "name": "Fern", "tag": "shade"}),
    ]
    for event in page:
        assert set(event) == {"id", "type", "created_at", "data"}
        assert ID.fullmatch(event["id"])
        at = datetime.datetime.fromisoformat(event["created_at"])
        assert at.utcoffset() == datetime.timedelta(0)
        assert before <= at <= utcnow()
    assert len(set(ids(page))) == 3


def test_pages_by_limit_each_with_a_link_the_empty_one_too(client, auth_headers):
    create_plants(client, *range(1, 6))
    every = ids(feed(client, auth_headers)[0])
    found, links, link = [], [], "http://localhost/events?limit=2"
    for _ in range(4):
        page, link = feed(client, auth_headers, link.removeprefix("http://localhost/events"))
        found.append(ids(page))
        links.append(link)
    assert found == [every[:2], every[2:4], every[4:], []]
    after = [every[1], every[3], every[4], every[4]]
    assert links == [f"http://localhost/events?limit=2&after={each}" for each in after]


def test_an_empty_feed_links_to_its_start(client, auth_headers):
    assert feed(client, auth_headers) == ([], "http://localhost/events?limit=100")
    # Until an event comes, the same link; then it is on the page.
    create_plants(client, 1)
    (event,), link = feed(client, auth_headers, "?limit=100")
    assert link == f"http://localhost/events?limit=100&after={event['id']}"


def test_types_filter_the_page_and_the_link_keeps_them(client, auth_headers):
    create_plants(client, 1, 2)
    assert client.delete("/plants/1", headers=auth_headers).status_code == 204
    create_plants(client, 3)
    query = "?types=plant.deleted,plant.created&limit=3"
    page, link = feed(client, auth_headers, query)
    assert [(event["type"], event["data"]["id"]) for event in page] == [
        ("plant.created", 1),
        ("plant.created", 2),
        ("plant.deleted", 1),
    ]
    expected = f"limit=3&after={page[-1]['id']}&types=plant.deleted,plant.created"
    assert link == f"http://localhost/events?{expected}"
    page, _ = feed(client, auth_headers, "?types=plant.deleted")
    assert [event["type"] for event in page] == ["plant.deleted"]
    # An empty filtered page goes on past the events of other types it went past: the last
    # event of all, the fourth.
    newest = feed(client, auth_headers)[0][-1]["id"]
    page, link = feed(client, auth_headers, "?types=plant.updated")
    assert (page, link) == (
        [],
        f"http://localhost/events?limit=100&after={newest}&types=plant.updated",
    )


@pytest.mark.backend_independent
def test_a_read_only_token_reads_the_feed(client, read_only_headers):
    create_plants(client, 1)
    page, _ = feed(client, read_only_headers)
    assert [event["type"] for event in page] == ["plant.created"]


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("headers", "message", "challenge"),
    [
        ({}, "A bearer token is required.", 'Bearer realm="plantstore"'),
        (
            {"Authorization": "Bearer not-a-token-of-this-service"},
            "The bearer token is unknown, revoked or expired.",
            'Bearer realm="plantstore", error="invalid_token"',
        ),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "A bearer token is required.", None),
    ],
    ids=["no token", "unknown token", "another scheme"],
)
def test_without_a_valid_token_it_is_a_401(client, headers, message, challenge):
    response = client.get("/events?types=nonsense", headers=headers)
    assert assert_error(response, 401) == message
    assert response.headers["WWW-Authenticate"] == (challenge or 'Bearer realm="plantstore"')


ID_REFUSED = (
    "after: Not an event id the feed gave: take it from an event, or from the Link header of "
    "the page before."
)
TYPES_REFUSED = (
    "types: Must be event types, comma-separated, each one of: plant.created, plant.deleted, "
    "plant.updated."
)
LIMIT_REFUSED = "limit: Must be greater than or equal to 1 and less than or equal to 1000."


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("after=nope", ID_REFUSED),
        ("after=", ID_REFUSED),
        ("after=ev_1", ID_REFUSED),
        ("after=ev_0_01", ID_REFUSED),
        ("after=ev_%D9%A3_1", ID_REFUSED),
        (f"after=ev_{2**63}_1", ID_REFUSED),
        ("after=ev_0_1%00", ID_REFUSED),
        ("types=", TYPES_REFUSED),
        ("types=plant.planted", TYPES_REFUSED),
        ("types=plant.created,", TYPES_REFUSED),
        ("types=plant.created,PLANT.DELETED", TYPES_REFUSED),
        ("limit=0", LIMIT_REFUSED),
        ("limit=1001", LIMIT_REFUSED),
        ("limit=x", "limit: Not a valid integer."),
        ("limit=1.5", "limit: Not a valid integer."),
        ("limit=", "limit: Not a valid integer."),
        ("limit=5&limit=5", "limit: Must be given at most once."),
        ("types=plant.created&types=plant.deleted", "types: Must be given at most once."),
        ("after=ev_0_1&after=ev_0_1", "after: Must be given at most once."),
        ("cursor=ev_0_1", "cursor: Unknown field."),
    ],
)
def test_a_bad_query_is_a_400_naming_the_parameter(client, auth_headers, query, message):
    create_plants(client, 1)
    response = client.get(f"/events?{query}", headers=auth_headers)
    assert assert_error(response, 400) == message


def delete_first(app, count):
    """Let the retention delete the first count events, all marked fanned out first."""
    db = database.of(app)
    with db.transaction() as cursor:
        every, _ = store.page(cursor, START, (), 1000)
        cursors.move(cursor, cursors.FANOUT, every[-1])
    later = utcnow() + datetime.timedelta(days=1)
    with db.transaction() as cursor:
        assert retention.delete_old(db, cursor, later, every[-1], count) == count


def test_an_after_past_which_events_were_dropped_is_a_410(app, client, auth_headers):
    create_plants(client, *range(1, 5))
    every = ids(feed(client, auth_headers)[0])
    delete_first(app, 2)
    for query in (f"?after={every[0]}", f"?after={every[0]}&types=plant.updated&limit=1"):
        response = client.get(f"/events{query}", headers=auth_headers)
        assert DROPPED.search(assert_error(response, 410))
        assert "Link" not in response.headers
    if database.of(app).is_sqlite:
        # The feed there never names a transaction: an id that does is none the feed gave.
        forged = f"?after=ev_{2**62}_{every[0].rpartition('_')[2]}"
        message = assert_error(client.get(f"/events{forged}", headers=auth_headers), 400)
        assert message.startswith("after: Not an event id the feed gave")
    # From its start again: the oldest kept.
    assert ids(feed(client, auth_headers)[0]) == every[2:]


def test_an_after_naming_the_last_event_dropped_goes_on(app, client, auth_headers):
    create_plants(client, *range(1, 5))
    every = ids(feed(client, auth_headers)[0])
    delete_first(app, 2)
    page, link = feed(client, auth_headers, f"?after={every[1]}&limit=1")
    assert ids(page) == every[2:3]
    assert link == f"http://localhost/events?limit=1&after={every[2]}"
    assert ids(feed(client, auth_headers, f"?after={every[3]}")[0]) == []


def test_an_after_the_feed_never_gave_is_a_400(client, auth_headers):
    # Past the newest event: a follower there would skip every event up to it, unseen.
    create_plants(client, 1, 2)
    newest = ids(feed(client, auth_headers)[0])[-1]
    epoch_xid, _, number = newest.rpartition("_")
    for after in (f"{epoch_xid}_{int(number) + 48}", f"ev_{2**40}_{number}", f"ev_7_0_{number}"):
        response = client.get(f"/events?after={after}", headers=auth_headers)
        assert assert_error(response, 400).startswith("after: Not an event id the feed gave"), after
    create_plants(client, 3, 4, 5)
    assert len(feed(client, auth_headers, f"?after={newest}")[0]) == 3


def test_a_filtered_follower_goes_on_past_what_the_retention_drops(app, client, auth_headers):
    # At the end of the feed, a follower of plant.updated stands past every event: dropping the
    # old ones of other types is no gap of its own.
    create_plants(client, *range(1, 5))
    _, link = feed(client, auth_headers, "?types=plant.updated")
    delete_first(app, 3)
    assert feed(client, auth_headers, link.removeprefix("http://localhost/events")) == (
        [],
        link,
    )
    assert client.patch("/plants/4", json={"tag": "shade"}, headers=auth_headers).status_code == 200
    page, _ = feed(client, auth_headers, link.removeprefix("http://localhost/events"))
    assert [(event["type"], event["data"]["id"]) for event in page] == [("plant.updated", 4)]
