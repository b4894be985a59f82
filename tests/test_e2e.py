"""End to end on real gunicorn, started as the Procfile does: one instance with two workers per
backend that the module's cases share (each with ids of its own), which also answers the
contract's rows over real HTTP (support/http_rows.py); and an instance of its own for the case that
kills one."""

import re
import socket
import time
from urllib.parse import urlsplit

import pytest

from app import create_app, database
from harness.client import raw_exchange
from harness.processes import ROOT
from support.http_rows import BODY_LIMIT, HOOK, METRICS_TOKEN, ROWS, Row, assert_row
from support.live_servers import access_line, create_until_killed, race_creates
from support.tokens import TOKEN

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server(module_live_server, module_database_url):
    """Two workers, as deployed on two cores; every case of the module but the kill -9 one."""
    return module_live_server(
        module_database_url,
        workers=2,
        PLANTSTORE_MAX_CONTENT_LENGTH=str(BODY_LIMIT),
        PLANTSTORE_WEBHOOK_MAX_ENDPOINTS="1",
        PLANTSTORE_METRICS_TOKEN=METRICS_TOKEN,
    )


@pytest.fixture(scope="module")
def tokens(server):
    """Tokens issued as an operator does, by scope: read-only and admin."""
    issued = {}
    for scope in ("read-only", "admin"):
        output = server.cli("tokens", "create", f"e2e {scope}", f"--{scope}")
        issued[scope] = output.splitlines()[-1]
    return issued


def stored(server):
    """Every plant the shared server holds."""
    return server.request("GET", "/plants?limit=1000").json()


def test_create_replay_conflict_over_http(server):
    plant = {"id": 42, "name": "Monstera", "tag": "tropical"}
    created = server.request("POST", "/plants", plant)
    assert created.status == 200
    assert created.json() == {"name": "Monstera", "tag": "tropical"}
    assert server.request("POST", "/plants", plant).status == 200
    assert server.request("POST", "/plants", {**plant, "tag": "other"}).status == 409
    refused = server.request("POST", "/plants", plant, token="wrong")
    assert refused.status == 401
    assert refused.headers["Content-Type"] == "application/json"


@pytest.mark.parametrize("row", ROWS, ids=[row.name for row in ROWS])
def test_contract_rows_over_http(server, tokens, row):
    before = stored(server)
    token = tokens.get(row.token, row.token)
    answer = server.request(row.method, row.path, row.body, row.request_headers(), token)
    assert_row(answer, row)
    if row.stores is None:
        assert stored(server) == before  # a refused request, or a read, stores nothing
    else:
        assert row.stores in stored(server)


def test_problem_details_over_http(server):
    asks = {"Accept": "application/problem+json"}
    answer = server.request("POST", "/plants", {"id": "1", "name": "Fern"}, asks)
    assert answer.status == 400
    assert answer.headers["Content-Type"] == "application/problem+json"
    assert answer.headers["Vary"] == "Accept"
    assert answer.json()["errors"] == [{"detail": "Not a valid integer.", "pointer": "#/id"}]


def test_endpoint_changes_are_validated_and_one_endpoint_too_many_is_409(server, tokens):
    admin = tokens["admin"]
    created = server.request("POST", "/webhooks", {"url": HOOK}, token=admin)
    assert created.status == 201
    location = created.headers["Location"]
    assert location == f"/webhooks/{created.json()['id']}"
    for change in ({"events": []}, {"url": "http://10.0.0.1/hook"}, {"colour": "green"}):
        refused = server.request("PATCH", location, change, token=admin)
        assert_row(refused, Row("a bad change", "PATCH", location, 400))
    # PLANTSTORE_WEBHOOK_MAX_ENDPOINTS is 1 on this server.
    second = server.request("POST", "/webhooks", {"url": HOOK + "/2"}, token=admin)
    assert_row(second, Row("one endpoint too many", "POST", "/webhooks", 409))
    assert server.request("DELETE", location, token=admin).status == 204


def test_versions_over_http(server):
    fern = {"id": 50, "name": "Fern", "tag": "shade"}
    assert server.request("POST", "/plants", fern).status == 200
    etag = server.request("GET", "/plants/50").headers["ETag"]
    for given in (etag, f"W/{etag}", "*"):
        unchanged = server.request("GET", "/plants/50", headers={"If-None-Match": given})
        assert (unchanged.status, unchanged.headers["ETag"], unchanged.body) == (304, etag, b"")
    weak = server.request("PATCH", "/plants/50", {"name": "Ivy"}, {"If-Match": f"W/{etag}"})
    assert_row(weak, Row("a weak If-Match", "PATCH", "/plants/50", 412))
    same = server.request("PATCH", "/plants/50", {"name": "Fern"}, {"If-Match": etag})
    assert (same.status, same.headers["ETag"]) == (200, etag)
    merge = {"If-Match": etag, "Content-Type": "application/merge-patch+json"}
    changed = server.request("PATCH", "/plants/50", b'{"tag": null}', merge)
    assert changed.status == 200 and changed.json() == {"id": 50, "name": "Fern"}
    assert changed.headers["ETag"] != etag
    assert server.request("POST", "/plants", fern).status == 409
    stale = server.request("DELETE", "/plants/50", headers={"If-Match": etag})
    assert_row(stale, Row("a stale If-Match", "DELETE", "/plants/50", 412))


def test_tag_filter_pages_keep_the_filter(server):
    for plant_id, tags in (
        (60, {"tag": "rare"}),
        (61, {}),
        (62, {"tag": "rare"}),
        (63, {"tag": "rare"}),
    ):
        assert (
            server.request("POST", "/plants", {"id": plant_id, "name": "Moss", **tags}).status
            == 200
        )
    first = server.request("GET", "/plants?tag=rare&limit=2")
    assert [plant["id"] for plant in first.json()] == [60, 62]
    following = urlsplit(re.fullmatch(r'<([^>]+)>; rel="next"', first.headers["Link"])[1])
    assert following.path == "/plants" and "tag=rare" in following.query.split("&")
    last = server.request("GET", f"/plants?{following.query}")
    assert [plant["id"] for plant in last.json()] == [63]
    assert "Link" not in last.headers


def test_access_log_carries_the_request_id(server):
    server.request("GET", "/healthz", headers={"X-Request-ID": "e2e-trace-17"})
    assert '"GET /healthz HTTP/1.1" 200' in access_line([server], "e2e-trace-17")


def test_spoofed_forwarded_for_is_not_believed_without_a_proxy(server):
    headers = {"X-Request-ID": "direct", "X-Forwarded-For": "203.0.113.9"}
    server.request("GET", "/healthz", headers=headers)
    assert access_line([server], "direct").startswith("127.0.0.1 ")


def test_chunked_body_over_the_limit_is_413(server):
    chunks = (b'{"id": 1, "name": "' + b"x" * 100 for _ in range(BODY_LIMIT // 50))
    response = server.request(
        "POST",
        "/plants",
        body=chunks,
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    assert response.status == 413
    assert response.json()["error"] == 413


PLANT_JSON = b'{"id": 1, "name": "Fern"}'
CHUNKED_HEAD = (
    "POST /plants HTTP/1.1\r\nHost: plantstore\r\nContent-Type: application/json\r\n"
    f"Authorization: Bearer {TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n"
).encode()


@pytest.mark.parametrize(
    "request_bytes",
    [
        pytest.param(CHUNKED_HEAD + b"zz\r\n" + PLANT_JSON + b"\r\n0\r\n\r\n", id="size zz"),
        pytest.param(CHUNKED_HEAD + b"-5\r\n" + PLANT_JSON + b"\r\n0\r\n\r\n", id="size -5"),
        pytest.param(CHUNKED_HEAD + b"0x18\r\n" + PLANT_JSON + b"\r\n0\r\n\r\n", id="size 0x18"),
        pytest.param(
            CHUNKED_HEAD + b"5\r\n" + PLANT_JSON + b"\r\n0\r\n\r\n", id="size under its data"
        ),
        pytest.param(CHUNKED_HEAD + b"19\r\n" + PLANT_JSON, id="chunked body cut after a chunk"),
        pytest.param(CHUNKED_HEAD + b"40\r\n" + PLANT_JSON, id="chunked body cut in a chunk"),
        pytest.param(
            CHUNKED_HEAD.replace(b"Transfer-Encoding: chunked", b"Content-Length: 100")
            + PLANT_JSON,
            id="body short of its Content-Length",
        ),
    ],
)
def test_malformed_framing_is_400_and_stores_nothing(server, request_bytes):
    before = stored(server)
    started = time.monotonic()
    response = raw_exchange(server.port, request_bytes)
    assert time.monotonic() - started < 10
    assert response.status == 400
    assert response.headers["Content-Type"] == "application/json"
    assert response.json()["error"] == 400
    assert stored(server) == before


def test_idle_kept_alive_clients_take_no_thread(server):
    # Two workers, as deployed on two cores: sync workers linger on each idle client in turn
    # (2 s each), and more idle clients than two gthread workers have threads (8).
    held = []
    try:
        for _ in range(12):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: plantstore\r\n\r\n")
            assert sock.recv(65536).startswith(b"HTTP/1.1 200")
            held.append(sock)
        for _ in range(5):
            started = time.monotonic()
            assert server.request("GET", "/healthz").status == 200
            assert time.monotonic() - started < 3
    finally:
        for sock in held:
            sock.close()


def test_concurrent_creates_of_one_id_store_one_plant(server):
    winner = race_creates([server], 99)
    assert [plant for plant in stored(server) if plant["id"] == 99] == [{"id": 99, "name": winner}]


def test_acknowledged_plants_survive_kill_9(live_server, database_url):
    server = live_server(database_url, workers=2)
    acknowledged = create_until_killed(server, 200)
    # What survived is the database's content: an app in this process reads it.
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "API_TOKENS": TOKEN})
    client = app.test_client()
    try:
        for number in acknowledged:
            response = client.post(
                "/plants",
                json={"id": number, "name": "changed"},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
            assert response.status_code == 409, f"plant {number} was acknowledged but is gone"
    finally:
        database.of(app).dispose()


def test_procfile_runs_init_db_on_release():
    lines = dict(
        line.split(": ", 1)
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert lines["web"] == "gunicorn wsgi:app"
    assert re.fullmatch(r"flask --app wsgi init-db", lines["release"])
