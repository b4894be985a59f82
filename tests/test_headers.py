"""Headers on every response: nosniff, no-store on /plants, X-Request-ID."""

import pytest

pytestmark = pytest.mark.backend_independent


@pytest.mark.parametrize(
    ("method", "path"),
    [("GET", "/healthz"), ("POST", "/plants"), ("GET", "/nothing"), ("PUT", "/plants")],
)
def test_nosniff_everywhere(client, auth_headers, method, path):
    response = client.open(path, method=method, headers=auth_headers)
    assert response.headers["X-Content-Type-Options"] == "nosniff"


def test_plants_answers_are_not_stored(client, auth_headers):
    ok = client.post("/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers)
    refused = client.post("/plants", json={"id": 1, "name": "Fern"})
    assert ok.headers["Cache-Control"] == "no-store"
    assert refused.headers["Cache-Control"] == "no-store"
    for unrouted in (client.put("/plants"), client.get("/plants/1/more")):
        assert unrouted.status_code in (404, 405)
        assert unrouted.headers["Cache-Control"] == "no-store"
    assert "Cache-Control" not in client.get("/healthz").headers
    assert "Cache-Control" not in client.get("/plantsmore").headers


def test_sane_request_id_is_echoed(client):
    response = client.get("/healthz", headers={"X-Request-ID": "abc-123_XYZ.~"})
    assert response.headers["X-Request-ID"] == "abc-123_XYZ.~"


@pytest.mark.parametrize(
    "given",
    [
        pytest.param(None, id="absent"),
        pytest.param("", id="empty"),
        pytest.param("x" * 201, id="over 200 characters"),
        pytest.param("has space", id="space"),
        pytest.param("caf\u00e9", id="not ASCII"),
    ],
)
def test_missing_or_insane_request_id_is_replaced(client, given):
    headers = {"X-Request-ID": given} if given is not None else {}
    response = client.get("/healthz", headers=headers)
    fresh = response.headers["X-Request-ID"]
    assert fresh and fresh != given
    assert client.get("/healthz", headers=headers).headers["X-Request-ID"] != fresh
