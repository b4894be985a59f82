"""Two gunicorn instances behind real nginx, shared by the module's tests, on each backend."""

import re
import time

import pytest

from harness.client import http_request
from harness.nginx import Nginx
from harness.nginx import binary as nginx_binary
from support.live_servers import access_line

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def proxied(module_live_server, module_database_url, tmp_path_factory):
    """Two gunicorn instances trusting one proxy, and nginx in front of them: (servers, port)."""
    if nginx_binary() is None:
        pytest.skip("nginx is not installed (Debian package nginx-light; .ci/run installs it)")
    servers = [
        module_live_server(module_database_url, PLANTSTORE_TRUSTED_PROXIES="1") for _ in range(2)
    ]
    nginx = Nginx(tmp_path_factory.mktemp("proxy") / "nginx")
    yield servers, nginx.front([server.port for server in servers])
    nginx.stop()


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


def test_link_names_the_proxy_not_the_instance(proxied):
    port = proxied[1]
    expected = f'<http://127.0.0.1:{port}/plants?limit=1&after=1>; rel="next"'
    assert first_page_link(proxied) == expected


def test_forged_port_and_prefix_do_not_reach_the_link(proxied):
    port = proxied[1]
    forged = {"X-Forwarded-Port": "6666", "X-Forwarded-Prefix": "/evil"}
    expected = f'<http://127.0.0.1:{port}/plants?limit=1&after=1>; rel="next"'
    assert first_page_link(proxied, forged) == expected


def test_a_long_uri_nginx_lets_through_reaches_the_app(proxied):
    servers, port = proxied
    auth = {"Authorization": f"Bearer {servers[0].token}"}
    started = time.monotonic()
    response = http_request(port, "GET", "/plants/" + "9" * 7000, headers=auth)
    assert time.monotonic() - started < 10
    assert response.status == 400
    assert response.json()["error"] == 400


def test_logged_client_address_is_the_one_nginx_saw(proxied):
    servers, port = proxied
    http_request(
        port, "GET", "/healthz", headers={"X-Request-ID": "from-client-2"}, source="127.0.0.2"
    )
    assert access_line(servers, "from-client-2").startswith("127.0.0.2 ")


def test_spoofed_forwarded_for_is_not_believed(proxied):
    servers, port = proxied
    headers = {"X-Request-ID": "spoofer", "X-Forwarded-For": "203.0.113.9"}
    http_request(port, "GET", "/healthz", headers=headers, source="127.0.0.3")
    line = access_line(servers, "spoofer")
    assert line.startswith("127.0.0.3 ")
    assert "203.0.113.9" not in line


def test_request_id_passes_through_or_is_made_by_nginx(proxied):
    servers, port = proxied
    given = http_request(port, "GET", "/healthz", headers={"X-Request-ID": "through-nginx"})
    assert given.headers["X-Request-ID"] == "through-nginx"
    made = http_request(port, "GET", "/healthz").headers["X-Request-ID"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    access_line(servers, made)


def test_both_instances_serve_through_nginx(proxied):
    servers, port = proxied
    for number in range(10):
        http_request(port, "GET", "/healthz", headers={"X-Request-ID": f"spread-{number}"})
    access_line(servers, "spread-9")
    assert all("request_id=spread-" in server.log() for server in servers)


def test_body_over_the_limit_is_an_error_body_at_nginx_too(proxied):
    servers, port = proxied
    auth = {"Authorization": f"Bearer {servers[0].token}", "Content-Type": "application/json"}
    response = http_request(port, "POST", "/plants", b"x" * 70_000, auth)
    assert response.status == 413
    message = "The request body is larger than 64 KiB, the limit of the proxy in front."
    assert response.json() == {"error": 413, "message": message}


def test_metrics_are_not_exposed_through_nginx(proxied):
    servers, port = proxied
    hidden = http_request(port, "GET", "/metrics")
    assert hidden.status == 404
    assert hidden.headers["Content-Type"] == "application/json"
    assert hidden.json() == {"error": 404, "message": "There is nothing at this path."}
    assert servers[0].request("GET", "/metrics").status == 200  # scraped on the instance itself
