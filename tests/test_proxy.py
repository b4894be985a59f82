"""Behind a reverse proxy: which X-Forwarded-* headers are believed, and real nginx in front.

What gunicorn's access log records of a spoofed X-Forwarded-For without a proxy is in
tests/test_e2e.py, on its shared instances."""

import socket
import time

import pytest

from harness.client import http_request, raw_exchange
from harness.nginx import Nginx
from harness.nginx import binary as nginx_binary
from harness.processes import free_port

FORWARDED = {
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "shop.example",
    "X-Forwarded-For": "203.0.113.9",
}


@pytest.fixture
def two_plants(client, auth_headers):
    for plant_id in (1, 2):
        client.post("/plants", json={"id": plant_id, "name": "Fern"}, headers=auth_headers)


@pytest.mark.backend_independent
@pytest.mark.usefixtures("two_plants")
def test_forwarded_headers_are_ignored_without_a_trusted_proxy(client, auth_headers):
    response = client.get("/plants?limit=1", headers={**auth_headers, **FORWARDED})
    assert response.headers["Link"] == '<http://localhost/plants?limit=1&after=1>; rel="next"'


@pytest.mark.backend_independent
def test_forwarded_headers_of_a_trusted_proxy_make_the_link(make_app, auth_headers):
    client = make_app(TRUSTED_PROXIES=1).test_client()
    for plant_id in (1, 2):
        client.post("/plants", json={"id": plant_id, "name": "Fern"}, headers=auth_headers)
    response = client.get("/plants?limit=1", headers={**auth_headers, **FORWARDED})
    assert response.headers["Link"] == '<https://shop.example/plants?limit=1&after=1>; rel="next"'


@pytest.fixture
def nginx(tmp_path):
    """Start real nginx with deploy/nginx.conf in front of the given ports; stopped after."""
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (Debian package nginx-light; .ci/run installs it)")
    started = []

    def start(upstream_ports, read_timeout=None):
        started.append(Nginx(tmp_path / f"nginx-{len(started)}"))
        return started[-1].front(upstream_ports, read_timeout)

    yield start
    for server in started:
        server.stop()


@pytest.mark.backend_independent
@pytest.mark.e2e
@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        pytest.param(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 502, id="instances down"),
        pytest.param(b"GET /" + b"a" * 10_000 + b" HTTP/1.1\r\n\r\n", 414, id="huge URI"),
        pytest.param(b"NOT HTTP AT ALL\r\n\r\n", 400, id="malformed request line"),
        pytest.param(
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 10_000 + b"\r\n\r\n",
            400,
            id="header too large",
        ),
        pytest.param(
            b"GET /_plantstore_error HTTP/1.1\r\nHost: x\r\n\r\n", 404, id="its internal page"
        ),
    ],
)
def test_errors_of_nginx_itself_are_error_bodies(nginx, request_bytes, status):
    # Nothing listens upstream: every answer here is nginx's own.
    port = nginx([free_port()])
    started = time.monotonic()
    response = raw_exchange(port, request_bytes, half_close=False)
    assert time.monotonic() - started < 10
    assert response.status == status
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    body = response.json()
    assert set(body) == {"error", "message"}
    assert body["error"] == status
    assert body["message"]


@pytest.mark.e2e
def test_an_instance_that_never_answers_is_a_504_error_body(nginx):
    with socket.socket() as silent:
        # Connections complete in the listen backlog, and nothing ever answers them.
        silent.bind(("127.0.0.1", 0))
        silent.listen(64)
        port = nginx([silent.getsockname()[1]], read_timeout=1)
        started = time.monotonic()
        response = http_request(port, "GET", "/plants/1")
        assert 1 <= time.monotonic() - started < 10
    assert response.status == 504
    assert response.headers["Content-Type"] == "application/json"
    body = response.json()
    assert set(body) == {"error", "message"} and body["error"] == 504 and body["message"]
