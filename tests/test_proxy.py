"""Behind a reverse proxy: which X-Forwarded-* headers are believed, and real nginx in front."""

import os
import re
import shutil
import socket
import subprocess
import time

import pytest

from liveserver import ROOT, free_port, http_request, raw_exchange, wait_for

FORWARDED = {
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "shop.example",
    "X-Forwarded-For": "203.0.113.9",
}


@pytest.fixture
def two_plants(client, auth_headers):
    for plant_id in (1, 2):
        client.post("/plants", json={"id": plant_id, "name": "Fern"}, headers=auth_headers)


@pytest.mark.usefixtures("two_plants")
def test_forwarded_headers_are_ignored_without_a_trusted_proxy(client, auth_headers):
    response = client.get("/plants?limit=1", headers={**auth_headers, **FORWARDED})
    assert response.headers["Link"] == '<http://localhost/plants?limit=1&after=1>; rel="next"'


def test_forwarded_headers_of_a_trusted_proxy_make_the_link(make_app, auth_headers):
    client = make_app(TRUSTED_PROXIES=1).test_client()
    for plant_id in (1, 2):
        client.post("/plants", json={"id": plant_id, "name": "Fern"}, headers=auth_headers)
    response = client.get("/plants?limit=1", headers={**auth_headers, **FORWARDED})
    assert response.headers["Link"] == '<https://shop.example/plants?limit=1&after=1>; rel="next"'


NGINX_MAIN = """
{user}
daemon off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log;
events {{}}
http {{
    access_log {dir}/access.log;
    client_body_temp_path {dir}/body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    include {dir}/plantstore.conf;
}}
"""


def render_site(port, upstream_ports, read_timeout=None):
    """deploy/nginx.conf with this test's listening port and upstream instances, and how long
    nginx waits for an instance's answer when read_timeout (seconds) is given."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    if read_timeout is not None:
        site = site.replace(
            "proxy_pass http://plantstore;",
            f"proxy_pass http://plantstore;\n        proxy_read_timeout {read_timeout}s;",
        )
    site = site.replace("listen 80;", f"listen 127.0.0.1:{port};")
    servers = "".join(f"    server 127.0.0.1:{upstream};\n" for upstream in upstream_ports)
    site, count = re.subn(r"(    server 127\.0\.0\.1:\d+;\n)+", servers, site)
    assert count == 1, "deploy/nginx.conf no longer has the upstream lines this test replaces"
    return site


@pytest.fixture
def nginx(tmp_path):
    """Start real nginx with deploy/nginx.conf in front of the given gunicorn ports."""
    binary = shutil.which("nginx") or (
        "/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None
    )
    if binary is None:
        pytest.skip("nginx is not installed (Debian package nginx-light; .ci/run installs it)")
    processes = []

    def start(upstream_ports, read_timeout=None):
        port = free_port()
        folder = tmp_path / "nginx"
        folder.mkdir()
        (folder / "plantstore.conf").write_text(render_site(port, upstream_ports, read_timeout))
        user = "user root;" if os.geteuid() == 0 else ""
        (folder / "nginx.conf").write_text(NGINX_MAIN.format(dir=folder, user=user))
        process = subprocess.Popen([binary, "-p", str(folder), "-c", str(folder / "nginx.conf")])
        processes.append(process)

        def up():
            try:
                http_request(port, "GET", "/healthz")
            except OSError:
                return False
            return True

        wait_for(up, 15, lambda: (folder / "error.log").read_text())
        return port

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture
def proxied(live_server, database_url, nginx):
    """Two gunicorn instances trusting one proxy, and nginx in front of them."""
    servers = [live_server(database_url, PLANTSTORE_TRUSTED_PROXIES="1") for _ in range(2)]
    return servers, nginx([server.port for server in servers])


def access_line(servers, request_id):
    """The gunicorn access log line of the request with this id, from whichever instance,
    without its timestamp."""
    wait_for(
        lambda: any(f"request_id={request_id}" in server.log() for server in servers),
        10,
        f"an access log line for {request_id}",
    )
    logs = "".join(server.log() for server in servers)
    line = next(line for line in logs.splitlines() if f"request_id={request_id}" in line)
    return line.split(" ", 1)[1]  # what follows the line's timestamp


def first_page_link(proxied, headers=None):
    """Store two plants through the proxy; the Link header of a page of one, with headers."""
    servers, port = proxied
    auth = {"Authorization": f"Bearer {servers[0].token}"}
    for plant_id in (1, 2):
        http_request(port, "POST", "/plants", {"id": plant_id, "name": "Fern"}, auth)
    started = time.monotonic()
    response = http_request(port, "GET", "/plants?limit=1", headers={**auth, **(headers or {})})
    assert time.monotonic() - started < 10
    assert response.status == 200
    return response.headers["Link"]


@pytest.mark.e2e
def test_link_names_the_proxy_not_the_instance(proxied):
    port = proxied[1]
    expected = f'<http://127.0.0.1:{port}/plants?limit=1&after=1>; rel="next"'
    assert first_page_link(proxied) == expected


@pytest.mark.e2e
def test_forged_port_and_prefix_do_not_reach_the_link(proxied):
    port = proxied[1]
    forged = {"X-Forwarded-Port": "6666", "X-Forwarded-Prefix": "/evil"}
    expected = f'<http://127.0.0.1:{port}/plants?limit=1&after=1>; rel="next"'
    assert first_page_link(proxied, forged) == expected


@pytest.mark.e2e
def test_a_long_uri_nginx_lets_through_reaches_the_app(proxied):
    servers, port = proxied
    auth = {"Authorization": f"Bearer {servers[0].token}"}
    started = time.monotonic()
    response = http_request(port, "GET", "/plants/" + "9" * 7000, headers=auth)
    assert time.monotonic() - started < 10
    assert response.status == 400
    assert response.json()["error"] == 400


@pytest.mark.e2e
def test_logged_client_address_is_the_one_nginx_saw(proxied):
    servers, port = proxied
    http_request(
        port, "GET", "/healthz", headers={"X-Request-ID": "from-client-2"}, source="127.0.0.2"
    )
    assert access_line(servers, "from-client-2").startswith("127.0.0.2 ")


@pytest.mark.e2e
def test_spoofed_forwarded_for_is_not_believed(proxied):
    servers, port = proxied
    headers = {"X-Request-ID": "spoofer", "X-Forwarded-For": "203.0.113.9"}
    http_request(port, "GET", "/healthz", headers=headers, source="127.0.0.3")
    line = access_line(servers, "spoofer")
    assert line.startswith("127.0.0.3 ")
    assert "203.0.113.9" not in line


@pytest.mark.e2e
def test_spoofed_forwarded_for_is_not_believed_without_a_proxy(live_server, database_url):
    server = live_server(database_url)
    server.request(
        "GET", "/healthz", headers={"X-Request-ID": "direct", "X-Forwarded-For": "203.0.113.9"}
    )
    assert access_line([server], "direct").startswith("127.0.0.1 ")


@pytest.mark.e2e
def test_request_id_passes_through_or_is_made_by_nginx(proxied):
    servers, port = proxied
    given = http_request(port, "GET", "/healthz", headers={"X-Request-ID": "through-nginx"})
    assert given.headers["X-Request-ID"] == "through-nginx"
    made = http_request(port, "GET", "/healthz").headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    access_line(servers, made)


@pytest.mark.e2e
def test_both_instances_serve_through_nginx(proxied):
    servers, port = proxied
    for number in range(10):
        http_request(port, "GET", "/healthz", headers={"X-Request-ID": f"spread-{number}"})
    access_line(servers, "spread-9")
    assert all("request_id=spread-" in server.log() for server in servers)


@pytest.mark.e2e
def test_body_over_the_limit_is_an_error_body_at_nginx_too(proxied):
    servers, port = proxied
    auth = {"Authorization": f"Bearer {servers[0].token}", "Content-Type": "application/json"}
    response = http_request(port, "POST", "/plants", b"x" * 70_000, auth)
    assert response.status == 413
    assert response.json() == {"error": 413, "message": "request entity too large"}


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


@pytest.mark.e2e
def test_metrics_are_not_exposed_through_nginx(proxied):
    servers, port = proxied
    hidden = http_request(port, "GET", "/metrics")
    assert hidden.status == 404
    assert hidden.headers["Content-Type"] == "application/json"
    assert hidden.json() == {"error": 404, "message": "not found"}
    assert servers[0].request("GET", "/metrics").status == 200  # scraped on the instance itself
