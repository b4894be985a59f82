"""End to end on real gunicorn, started as the Procfile does."""

import re
import socket
import time

import pytest

from harness.client import raw_exchange
from harness.processes import wait_for
from helpers import TOKEN
from liveserver import LiveServer, create_until_killed, race_creates

pytestmark = pytest.mark.e2e


def test_create_replay_conflict_over_http(live_server, database_url):
    server = live_server(database_url)
    plant = {"id": 42, "name": "Monstera", "tag": "tropical"}
    created = server.request("POST", "/plants", plant)
    assert created.status == 200
    assert created.json() == {"name": "Monstera", "tag": "tropical"}
    assert server.request("POST", "/plants", plant).status == 200
    assert server.request("POST", "/plants", {**plant, "tag": "other"}).status == 409
    refused = server.request("POST", "/plants", plant, token="wrong")
    assert refused.status == 401
    assert refused.headers["Content-Type"] == "application/json"


@pytest.mark.backend_independent
def test_access_log_carries_the_request_id(live_server, database_url):
    server = live_server(database_url)
    server.request("GET", "/healthz", headers={"X-Request-ID": "e2e-trace-17"})
    wait_for(lambda: "request_id=e2e-trace-17" in server.log(), 10, "the access log line")
    line = next(line for line in server.log().splitlines() if "e2e-trace-17" in line)
    assert '"GET /healthz HTTP/1.1" 200' in line


@pytest.mark.backend_independent
def test_chunked_body_over_the_limit_is_413(live_server, database_url):
    server = live_server(database_url, PLANTSTORE_MAX_CONTENT_LENGTH="1024")
    chunks = (b'{"id": 1, "name": "' + b"x" * 100 for _ in range(20))
    response = server.request(
        "POST",
        "/plants",
        body=chunks,
        headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
    )
    assert response.status == 413
    assert response.json()["error"] == 413


@pytest.fixture(scope="module")
def framing_server(tmp_path_factory):
    """One gunicorn on SQLite for every framing case: bodies are read alike on both backends."""
    folder = tmp_path_factory.mktemp("framing")
    env = {
        "PLANTSTORE_DATABASE_URL": f"sqlite:///{folder / 'plantstore.sqlite'}",
        "PLANTSTORE_API_TOKENS": TOKEN,
    }
    server = LiveServer(folder / "gunicorn.log", env, TOKEN)
    server.start()
    yield server
    server.stop()


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
def test_malformed_framing_is_400_and_stores_nothing(framing_server, request_bytes):
    server = framing_server
    started = time.monotonic()
    response = raw_exchange(server.port, request_bytes)
    assert time.monotonic() - started < 10
    assert response.status == 400
    assert response.headers["Content-Type"] == "application/json"
    assert response.json()["error"] == 400
    assert server.request("GET", "/plants").json() == []


@pytest.mark.backend_independent
def test_idle_kept_alive_clients_take_no_thread(live_server, database_url):
    # Two workers, as deployed on two cores: sync workers linger on each idle client in turn.
    server = live_server(database_url, workers=2)
    held = []
    try:
        for _ in range(40):
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


def test_concurrent_creates_of_one_id_store_one_plant(live_server, database_url):
    server = live_server(database_url, workers=2)
    winner = race_creates([server], 99)
    assert server.request("GET", "/plants").json() == [{"id": 99, "name": winner}]


def test_acknowledged_plants_survive_kill_9(live_server, database_url):
    server = live_server(database_url, workers=2)
    acknowledged = create_until_killed(server, 200)

    restarted = live_server(database_url, workers=2)
    for number in acknowledged:
        response = restarted.request("POST", "/plants", {"id": number, "name": "changed"})
        assert response.status == 409, f"plant {number} was acknowledged but is gone"


def test_procfile_runs_init_db_on_release():
    from harness.processes import ROOT

    lines = dict(
        line.split(": ", 1)
        for line in (ROOT / "Procfile").read_text().splitlines()
        if line and not line.startswith("#")
    )
    assert lines["web"] == "gunicorn wsgi:app"
    assert re.fullmatch(r"flask --app wsgi init-db", lines["release"])
