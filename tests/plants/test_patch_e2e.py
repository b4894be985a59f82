"""Concurrent changes of a plant on real gunicorn: of those made from one version, exactly one
wins, on two instances sharing PostgreSQL and on one instance's workers sharing SQLite. The
module's cases share the instances, each case changing a plant of its own."""

import pytest

from support.live_servers import race

pytestmark = pytest.mark.e2e

STALE = {"error": 412, "message": "If-Match does not name the plant's current version."}


@pytest.fixture(scope="module")
def servers(module_live_server, module_database_url):
    """The gunicorn instances that the changes are spread over: two instances on PostgreSQL,
    one instance's two workers on SQLite."""
    if module_database_url.startswith("sqlite"):
        return [module_live_server(module_database_url, workers=2)]
    return [module_live_server(module_database_url), module_live_server(module_database_url)]


def race_changes(servers, plant_id, count, headers, body_of):
    """PATCH the plant from count threads at once, spread over servers; (status, body) each."""

    def change(number):
        server = servers[number % len(servers)]
        response = server.request("PATCH", f"/plants/{plant_id}", body_of(number), headers)
        return response.status, response.json()

    return race(count, change)


def test_of_20_concurrent_changes_from_one_version_exactly_one_is_made(servers):
    assert servers[0].request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    version = servers[-1].request("GET", "/plants/1").headers["ETag"]
    results = race_changes(
        servers, 1, 20, {"If-Match": version}, lambda number: {"name": f"Fern {number}"}
    )
    winners = [body for status, body in results if status == 200]
    assert len(winners) == 1
    assert [body for status, body in results if status != 200] == [STALE] * 19
    for server in servers:
        assert server.request("GET", "/plants/1").json() == winners[0]


def test_concurrent_unconditional_changes_are_each_made_on_what_is_there(servers):
    assert servers[0].request("POST", "/plants", {"id": 2, "name": "Fern"}).status == 200

    def body_of(number):  # half change the name, half the tag: neither undoes the other
        return {"name": f"Fern {number}"} if number % 2 else {"tag": f"tag {number}"}

    results = race_changes(servers, 2, 20, {}, body_of)
    assert {status for status, _ in results} == {200}
    final = servers[-1].request("GET", "/plants/2").json()
    assert final["name"] != "Fern" and "tag" in final
