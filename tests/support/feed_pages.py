"""What the tests of the events feed share: a page of `GET /events` over real HTTP, the Link
rel="next" it carries, following it, and the contract's checks of an Event and of an Error."""

import datetime
import re
import uuid
from urllib.parse import parse_qs, urlencode, urlsplit

from harness.processes import wait_for
from support.tokens import TOKEN

TYPES = ("plant.created", "plant.updated", "plant.deleted")
EVENT_KEYS = {"id", "type", "created_at", "data"}
# Opaque, URL-safe (RFC 3986's unreserved characters), at most 64 characters.
EVENT_ID = re.compile(r"[A-Za-z0-9._~-]{1,64}")
RFC3339 = re.compile(r"\d{4}-\d\d-\d\d[Tt]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)")
# One link-value of a Link header whose rel is next (RFC 8288: quoted or not).
NEXT = re.compile(r'<([^>]*)>[^,]*?;\s*rel="?next"?\s*(?:[;,]|$)')
# A walk of the feed longer than this is a Link that does not move on.
MOST_PAGES = 5000


def fresh_id():
    """A plant id that no other case of a shared server uses."""
    return uuid.uuid4().int >> 66


def next_link(response):
    """The path and query of the Link rel="next" of a live response; fails when there is none."""
    values = response.headers.get_all("Link") or []
    match = NEXT.search(", ".join(values))
    assert match, f"no Link rel=next in {values!r}"
    parts = urlsplit(match[1])
    assert parts.path == "/events", match[1]
    return f"{parts.path}?{parts.query}" if parts.query else parts.path


def query_of(link):
    """The parameters of a link, each with the list of its values."""
    return parse_qs(urlsplit(link).query, keep_blank_values=True)


def with_query(link, **params):
    """link with params set (given once each), its other parameters kept."""
    query = {name: values[-1] for name, values in query_of(link).items()}
    query.update({name: str(value) for name, value in params.items()})
    return f"{urlsplit(link).path}?{urlencode(query, safe=',')}"


def check_event(event):
    """Assert that event is an Event as the contract writes it."""
    assert isinstance(event, dict) and set(event) == EVENT_KEYS, event
    assert isinstance(event["id"], str) and EVENT_ID.fullmatch(event["id"]), event
    assert event["type"] in TYPES, event
    assert isinstance(event["created_at"], str) and RFC3339.fullmatch(event["created_at"]), event
    assert created_at(event).utcoffset() == datetime.timedelta(0), event
    assert isinstance(event["data"], dict), event


def created_at(event):
    """An event's created_at as an aware datetime."""
    return datetime.datetime.fromisoformat(event["created_at"].upper())


def page(server, path, token=TOKEN):
    """GET path (a page of the feed): its events, each checked, and its Link rel="next", which
    every 200 carries."""
    response = server.request("GET", path, token=token)
    assert response.status == 200, (path, response.status, response.body)
    events = response.json()
    assert isinstance(events, list), events
    for event in events:
        check_event(event)
    return events, next_link(response)


def follow(server, path, token=TOKEN):
    """Follow rel=next from path until a page is empty; (the events seen, in order, the Link of
    that empty page, every Link seen)."""
    events, links = [], []
    for _ in range(MOST_PAGES):
        got, link = page(server, path, token)
        links.append(link)
        if not got:
            return events, link, links
        events.extend(got)
        path = link
    raise AssertionError(f"the feed did not end after {MOST_PAGES} pages: {path}")


def read_until(server, path, done, timeout, token=TOKEN):
    """Follow rel=next from path, asking again at the end of the feed, until done(the events
    seen) holds; fail after timeout seconds. (The events seen, the Link to go on from.)"""
    seen = {"events": [], "link": path}

    def step():
        got, seen["link"] = page(server, seen["link"], token)
        seen["events"].extend(got)
        return done(seen["events"])

    wait_for(step, timeout, lambda: f"the events awaited; seen: {seen['events']}")
    return seen["events"], seen["link"]


def until_plant(plant_id, event_type="plant.created"):
    """done() for read_until: an event of event_type about plant_id has been seen."""
    return lambda events: any(
        event["type"] == event_type and event["data"].get("id") == plant_id for event in events
    )


def brief(events):
    """(type, data) of each event: what a case expects of them."""
    return [(event["type"], event["data"]) for event in events]


def header(headers, name):
    """A header of a recorded request (a dict), whatever the case of its name; None if absent."""
    found = [value for key, value in headers.items() if key.lower() == name.lower()]
    assert len(found) <= 1, (name, headers)
    return found[0] if found else None


def assert_live_error(response, status, *words):
    """Assert that a live response is the Error shape for status and that its message holds
    each of words (case-insensitive); return the message."""
    assert response.status == status, (response.status, response.body)
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "message"} and body["error"] == status, body
    message = body["message"]
    assert isinstance(message, str) and message
    for word in words:
        assert re.search(word, message, re.IGNORECASE), (word, message)
    return message
