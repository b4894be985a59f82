"""The events feed (`GET /events`) over real HTTP on real gunicorn (one per module and backend):
what a change writes, following Link rel="next", tokens; with the API and the worker in process:
retention by the worker, the `Plantstore-Event-Id` header of deliveries; and a follower of two
gunicorn instances sharing PostgreSQL under concurrent creates."""

import datetime
import threading
import time
from collections import defaultdict

import pytest

from harness.client import CONNECTION_ERRORS
from harness.processes import wait_for
from support.feed_pages import (
    TYPES,
    assert_live_error,
    brief,
    created_at,
    follow,
    fresh_id,
    header,
    page,
    query_of,
    read_until,
    until_plant,
    with_query,
)
from support.in_process import AppServer, running
from support.live_endpoints import ENDPOINT_SETTINGS
from support.live_servers import environment
from support.receivers import plant_of
from support.tokens import TOKEN, issue_admin_token

SECRET = "feed-test-webhook-secret"
WEBHOOK_SETTINGS = {"WEBHOOK_SECRET": SECRET, **ENDPOINT_SETTINGS}
# Longest wait for an event that a finished request wrote to show in the feed, in seconds.
VISIBLE = 10
# Seconds an event is kept in the retention case.
RETENTION = 3
# Longest wait beyond RETENTION for the worker to delete an event ("within seconds").
DELETED_WITHIN = 10
# Longest wait for a worker's deliveries.
DELIVERED_WITHIN = 30


@pytest.fixture(scope="module")
def server(module_live_server, module_database_url):
    """One gunicorn with no webhook receiver that the module's read-only or own-id cases share,
    on each backend."""
    return module_live_server(module_database_url)


@pytest.fixture(scope="module")
def hooked_server(module_live_server, module_database_url):
    """A second gunicorn on the same database with an operator's receiver configured (no worker
    runs: the feed is written whatever is delivered)."""
    hooks = {**WEBHOOK_SETTINGS, "WEBHOOK_URLS": "http://127.0.0.1:9/hook"}
    return module_live_server(module_database_url, **environment(hooks))


def create(server, plant):
    """POST plant; the response, a 200 checked."""
    response = server.request("POST", "/plants", plant)
    assert response.status == 200, (response.status, response.body)
    return response


def end_of_feed(server, query="limit=1000"):
    """The Link to follow for what comes after everything the feed holds now."""
    return follow(server, f"/events?{query}")[1]


# 1. What is written.


@pytest.mark.e2e
@pytest.mark.parametrize("configured", ["no receiver", "an operator's receiver"])
def test_each_change_is_one_event_with_its_data_and_a_refused_one_none(request, server, configured):
    writer = server if configured == "no receiver" else request.getfixturevalue("hooked_server")
    start, began = end_of_feed(writer), datetime.datetime.now(datetime.UTC)
    plant_id, marker = fresh_id(), fresh_id()
    plant = {"id": plant_id, "name": "Monstera", "tag": "tropical"}
    path = f"/plants/{plant_id}"

    create(writer, plant)
    assert writer.request("POST", "/plants", plant).status == 200  # a replay
    conflict = writer.request("POST", "/plants", {**plant, "name": "Fern"})
    assert conflict.status == 409
    first = writer.request("GET", path).headers["ETag"]
    renamed = writer.request("PATCH", path, {"name": "Swiss cheese plant"}, {"If-Match": first})
    assert renamed.status == 200
    stale = writer.request("PATCH", path, {"name": "Stale"}, {"If-Match": first})
    assert stale.status == 412
    assert writer.request("PATCH", path, {"name": ""}).status == 400
    assert writer.request("PATCH", path, {"id": plant_id + 1}).status == 400
    unchanged = writer.request("PATCH", path, {"name": "Swiss cheese plant"})
    assert (unchanged.status, unchanged.headers["ETag"]) == (200, renamed.headers["ETag"])
    assert writer.request("PATCH", path, {"tag": "shade"}).status == 200
    assert writer.request("DELETE", path, headers={"If-Match": first}).status == 412
    assert writer.request("DELETE", path).status == 204
    assert writer.request("DELETE", path).status == 404
    assert writer.request("PATCH", path, {"name": "Gone"}).status == 404
    # Made after every request above ended, so after their events in the feed's order.
    create(writer, {"id": marker, "name": "Marker"})

    events, _ = read_until(writer, start, until_plant(marker), VISIBLE)
    renamed_plant = {"id": plant_id, "name": "Swiss cheese plant", "tag": "tropical"}
    shaded = {**renamed_plant, "tag": "shade"}
    assert brief(events) == [
        ("plant.created", plant),
        ("plant.updated", renamed_plant),
        ("plant.updated", shaded),
        ("plant.deleted", shaded),
        ("plant.created", {"id": marker, "name": "Marker"}),
    ]
    assert len({event["id"] for event in events}) == len(events)
    ended = datetime.datetime.now(datetime.UTC)
    slack = datetime.timedelta(seconds=5)  # the database's clock against this process's
    assert all(began - slack <= created_at(event) <= ended + slack for event in events)


# 2. Following never misses one.


@pytest.mark.e2e
def test_following_next_with_a_short_limit_sees_every_event_once_in_order(server):
    # From the very start: every 200 carries the Link, and no event shows twice.
    before, start, links = follow(server, "/events?limit=2")
    assert len({event["id"] for event in before}) == len(before)
    ids = [fresh_id() for _ in range(5)]
    for number, plant_id in enumerate(ids):
        create(server, {"id": plant_id, "name": f"plant {number}", "tag": "shelf"})
    assert server.request("PATCH", f"/plants/{ids[1]}", {"tag": None}).status == 200
    assert server.request("DELETE", f"/plants/{ids[1]}").status == 204
    assert server.request("PATCH", f"/plants/{ids[3]}", {"name": "renamed"}).status == 200
    assert server.request("DELETE", f"/plants/{ids[4]}").status == 204
    marker = fresh_id()
    create(server, {"id": marker, "name": "Marker"})
    read_until(server, start, until_plant(marker), VISIBLE)  # all of them visible

    events, end, more_links = follow(server, start)
    expected = [
        *(
            ("plant.created", {"id": plant_id, "name": f"plant {number}", "tag": "shelf"})
            for number, plant_id in enumerate(ids)
        ),
        ("plant.updated", {"id": ids[1], "name": "plant 1"}),
        ("plant.deleted", {"id": ids[1], "name": "plant 1"}),
        ("plant.updated", {"id": ids[3], "name": "renamed", "tag": "shelf"}),
        ("plant.deleted", {"id": ids[4], "name": "plant 4", "tag": "shelf"}),
        ("plant.created", {"id": marker, "name": "Marker"}),
    ]
    assert brief(events) == expected
    assert len({event["id"] for event in before + events}) == len(before + events)
    for link in links + more_links:
        assert query_of(link)["limit"] == ["2"] and "types" not in query_of(link), link

    # The empty page's Link is where the follower stopped: it goes on with what comes next.
    assert page(server, end)[0] == []
    late = fresh_id()
    create(server, {"id": late, "name": "Late"})
    assert brief(read_until(server, end, until_plant(late), VISIBLE)[0]) == [
        ("plant.created", {"id": late, "name": "Late"})
    ]

    # Filtered by types: the same order, those types only, the filter kept by every Link.
    chosen = "plant.deleted,plant.updated"
    filtered, _, filtered_links = follow(server, with_query(start, types=chosen))
    assert brief(filtered) == [each for each in expected if each[0] != "plant.created"]
    for link in filtered_links:
        query = query_of(link)
        assert query["limit"] == ["2"], link
        assert len(query["types"]) == 1, link
        assert set(query["types"][0].split(",")) == {"plant.deleted", "plant.updated"}, link


@pytest.mark.e2e
def test_a_page_filtered_to_one_type_holds_that_type_alone(server):
    start = end_of_feed(server)
    plant_id = fresh_id()
    create(server, {"id": plant_id, "name": "Cactus"})
    assert server.request("DELETE", f"/plants/{plant_id}").status == 204
    read_until(server, start, until_plant(plant_id, "plant.deleted"), VISIBLE)
    cactus = {"id": plant_id, "name": "Cactus"}
    for event_type, expected in (
        ("plant.created", [("plant.created", cactus)]),
        ("plant.updated", []),
        ("plant.deleted", [("plant.deleted", cactus)]),
    ):
        events, _, links = follow(server, with_query(start, types=event_type))
        assert brief(events) == expected
        assert all(query_of(link)["types"] == [event_type] for link in links), links


# 3. Tokens.


@pytest.mark.e2e
def test_any_valid_token_reads_the_feed_and_none_or_a_bad_one_is_401(server):
    read_only = server.cli("tokens", "create", "feed reader", "--read-only").splitlines()[-1]
    admin = server.cli("tokens", "create", "feed admin", "--admin").splitlines()[-1]
    for token in (read_only, TOKEN, admin):
        events, link = page(server, "/events?limit=5", token=token)
        assert len(events) <= 5 and query_of(link)["limit"] == ["5"]
    missing = server.request("GET", "/events")
    assert_live_error(missing, 401)
    assert missing.headers["WWW-Authenticate"].startswith('Bearer realm="plantstore"')
    wrong = server.request("GET", "/events", token="not-a-token-of-this-service-0123456789")
    assert_live_error(wrong, 401)
    assert 'error="invalid_token"' in wrong.headers["WWW-Authenticate"]


# 4. Bad input: the table is tests/webhooks/api/test_feed_input.py, in process; one row over HTTP.


@pytest.mark.e2e
def test_a_limit_out_of_range_is_a_400_naming_it(server):
    assert_live_error(server.request("GET", "/events?limit=1001", token=TOKEN), 400, r"\blimit\b")


# 5. Retention.


def test_the_worker_drops_old_events_and_a_follower_past_a_dropped_one_gets_410(make_app):
    app = make_app(EVENT_RETENTION=RETENTION)
    server = AppServer(app, {}, TOKEN)
    with running(app):
        created_from = time.monotonic()
        ids = [fresh_id() for _ in range(3)]
        for plant_id in ids:
            create(server, {"id": plant_id, "name": "Short-lived"})
        first, second, last = read_until(server, "/events", lambda got: len(got) == 3, VISIBLE)[0]

        wait_for(
            lambda: page(server, "/events")[0] == [],
            RETENTION + DELETED_WITHIN,
            "the worker to delete the events older than the retention",
        )
        assert time.monotonic() - created_from >= RETENTION - 0.5, "deleted before their time"

        for gone in (first, second):
            refused = server.request("GET", f"/events?after={gone['id']}", token=TOKEN)
            assert_live_error(refused, 410, r"dropped|deleted", r"start|beginning")
        # The last deleted one, with nothing deleted after it, goes on as usual.
        events, link = page(server, f"/events?after={last['id']}")
        assert events == []
        assert page(server, "/events")[0] == []  # read again from the start
        kept = fresh_id()
        create(server, {"id": kept, "name": "Kept"})
        # Read before the retention could drop it.
        events, _ = read_until(server, link, until_plant(kept), RETENTION - 1)
    assert brief(events) == [("plant.created", {"id": kept, "name": "Kept"})]


# 6. Webhooks name their event.


def test_every_delivery_carries_the_id_of_its_event_in_the_feed(make_app, make_receiver):
    operator, own = make_receiver(SECRET), make_receiver()
    app = make_app(**WEBHOOK_SETTINGS, WEBHOOK_URLS=operator.url)
    server = AppServer(app, {}, TOKEN)
    admin = issue_admin_token(app)
    registered = server.request("POST", "/webhooks", {"url": own.url}, admin)
    assert registered.status == 201, registered.body
    own.verify_with(registered.json()["secret"])
    own.script = [500]  # its first attempt fails: the retry names the same event
    with running(app):
        plant_id = fresh_id()
        create(server, {"id": plant_id, "name": "Monstera", "tag": "tropical"})
        assert server.request("PATCH", f"/plants/{plant_id}", {"name": "Ivy"}).status == 200
        assert server.request("DELETE", f"/plants/{plant_id}").status == 204
        events, _ = read_until(server, "/events", lambda got: len(got) == 3, VISIBLE)
        assert [event["type"] for event in events] == list(TYPES)
        # Three events and the retry of the one answered 500; the operator's plant.created.
        wait_for(
            lambda: len(own.requests) >= 4 and operator.requests,
            DELIVERED_WITHIN,
            lambda: f"the deliveries; got {len(own.requests)} and {len(operator.requests)}",
        )
    by_id = {event["id"]: event for event in events}
    named = defaultdict(set)  # delivery id: the event ids its attempts named
    for headers, body in own.requests + operator.requests:
        event_id = header(headers, "Plantstore-Event-Id")
        assert event_id in by_id, (event_id, headers)
        event = by_id[event_id]
        assert header(headers, "X-Plantstore-Event") == event["type"]
        assert plant_of(body) == event["data"]
        named[header(headers, "X-Plantstore-Delivery")].add(event["id"])
    assert all(len(ids) == 1 for ids in named.values()), named
    assert {header(headers, "Plantstore-Event-Id") for headers, _ in own.requests} == set(by_id)
    assert {header(headers, "Plantstore-Event-Id") for headers, _ in operator.requests} == {
        events[0]["id"]
    }


# 7. Two instances on one PostgreSQL, concurrent creates, one follower.

CREATORS = 16
CREATES = 1500
FOLLOW_LIMIT = 7
# Creates a second at most, in all: fewer than the follower reads, FOLLOW_LIMIT a page, so
# that it is at the end of the feed most of the time.
CREATE_RATE = 150
# Bounds of the run: the creates, then the follower catching up with them.
CREATES_WITHIN = 40
CAUGHT_UP_WITHIN = 15


@pytest.mark.e2e
@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_a_follower_sees_every_acknowledged_create_once_while_two_instances_write(
    live_server, database_url
):
    servers = [live_server(database_url, workers=2), live_server(database_url, workers=2)]
    acknowledged = [[] for _ in range(CREATORS)]  # per creator, its 200s in order
    refused, stop = [], threading.Event()
    began = time.monotonic()
    deadline = began + CREATES_WITHIN

    def creator(number):
        for turn, plant_id in enumerate(range(number, CREATES, CREATORS)):
            # Paced, so that the follower is at the end of the feed, where a gap would be.
            if stop.wait(max(0.0, began + turn / CREATE_RATE * CREATORS - time.monotonic())):
                return
            if time.monotonic() > deadline:
                return
            plant = {"id": plant_id, "name": f"plant {plant_id}"}
            try:
                response = servers[plant_id % 2].request("POST", "/plants", plant)
            except CONNECTION_ERRORS as error:
                refused.append((plant_id, repr(error)))
                continue
            if response.status == 200:
                acknowledged[number].append(plant_id)
            else:
                refused.append((plant_id, response.status))

    seen, pages, following = [], [0], {"link": f"/events?limit={FOLLOW_LIMIT}", "error": None}

    def read_once():
        events, link = page(servers[pages[0] % 2], following["link"])
        pages[0] += 1
        assert len(events) <= FOLLOW_LIMIT
        assert query_of(link)["limit"] == [str(FOLLOW_LIMIT)], link
        seen.extend(events)
        following["link"] = link
        return events

    def follower():
        try:
            while not stop.is_set():
                read_once()  # at once, at the end of the feed too: where a gap would show
        except BaseException as error:  # reported by the test's thread, the creates ended
            following["error"] = error
            stop.set()

    threads = [threading.Thread(target=creator, args=(n,)) for n in range(CREATORS)]
    reader = threading.Thread(target=follower)
    reader.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(CREATES_WITHIN + 30)
    stop.set()
    reader.join(30)
    pages_while_creating = pages[0]
    assert not reader.is_alive() and not any(thread.is_alive() for thread in threads)
    assert following["error"] is None, following["error"]
    assert refused == []
    created = {plant_id for ids in acknowledged for plant_id in ids}
    assert len(created) >= CREATES // 10, f"only {len(created)} creates in {CREATES_WITHIN}s"

    # Caught up: every acknowledged create seen; then nothing more comes.
    def caught_up():
        while len(read_once()) == FOLLOW_LIMIT:
            pass
        return {event["data"]["id"] for event in seen} >= created

    wait_for(caught_up, CAUGHT_UP_WITHIN, lambda: f"{len(created)} creates; {len(seen)} seen")
    assert read_once() == []
    ids = [event["id"] for event in seen]
    assert len(set(ids)) == len(ids), "an event shown twice"
    plants = [event["data"]["id"] for event in seen]
    assert len(set(plants)) == len(plants), "a create shown twice"
    assert sorted(plants) == sorted(created)
    assert all(event["type"] == "plant.created" for event in seen)
    assert all(
        event["data"] == {"id": p, "name": f"plant {p}"}
        for p, event in zip(plants, seen, strict=True)
    )
    position = {plant_id: index for index, plant_id in enumerate(plants)}
    for ids_in_order in acknowledged:
        positions = [position[plant_id] for plant_id in ids_in_order]
        assert positions == sorted(positions), "one creator's creates out of their order"
    assert pages_while_creating >= 10, "the follower hardly read while the creates ran"
