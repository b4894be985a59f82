"""The event catalog (`GET /event-types`) over real HTTP on real gunicorn: a read-only token
reads every type in the contract's order, no token is a 401, and each event the feed shows
after a create, a change and a delete satisfies its type's schema, checked here and by the
example of docs/events.md, run as written."""

import pytest

from support.doc_examples import run_block
from support.event_catalog import TYPES, assert_described, schemas_by_type
from support.feed_pages import assert_live_error, page


@pytest.mark.e2e
def test_a_read_only_token_reads_the_catalog_and_the_feed_s_events_satisfy_it(
    live_server, tmp_path, monkeypatch
):
    server = live_server(f"sqlite:///{tmp_path / 'plantstore.sqlite'}")
    read_only = server.cli("tokens", "create", "catalog reader", "--read-only").splitlines()[-1]
    answer = server.request("GET", "/event-types", token=read_only)
    assert answer.status == 200, answer.body
    assert answer.headers["Cache-Control"] == "no-store"
    entries = answer.json()
    assert [entry["type"] for entry in entries] == TYPES
    assert_live_error(server.request("GET", "/event-types"), 401)

    created = server.request("POST", "/plants", {"id": 7, "name": "Fern", "tag": "shade"})
    assert created.status == 200, created.body
    assert server.request("PATCH", "/plants/7", {"tag": None}).status == 200
    assert server.request("DELETE", "/plants/7").status == 204
    events, _ = page(server, "/events", token=read_only)
    assert [event["type"] for event in events] == TYPES
    assert_described(entries, events)
    monkeypatch.setenv("PLANTS_URL", f"http://127.0.0.1:{server.port}")
    monkeypatch.setenv("PLANTS_TOKEN", read_only)
    example = run_block("events.md", "## The event catalog")
    assert example["schemas"] == schemas_by_type(entries)
