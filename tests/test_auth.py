"""Bearer-token authentication: the contract's 'Authentication' section."""

import time

import pytest

from app import check_at_start
from harness.processes import wait_for
from support.errors import assert_error
from support.tokens import TOKEN

PLANT = {"id": 1, "name": "Fern"}
CHALLENGE = 'Bearer realm="plantstore"'
INVALID = 'Bearer realm="plantstore", error="invalid_token"'


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("authorization", "challenge"),
    [
        pytest.param(None, CHALLENGE, id="missing header"),
        pytest.param("Basic dXNlcjpwYXNz", CHALLENGE, id="other scheme"),
        pytest.param(f"Token {TOKEN}", CHALLENGE, id="right token under another scheme"),
        pytest.param("Bearer", CHALLENGE, id="empty token"),
        pytest.param("Bearer ", CHALLENGE, id="blank token"),
        pytest.param("Bearer wrong-token", INVALID, id="unknown token"),
        pytest.param(f"Bearer {TOKEN}x", INVALID, id="token with a suffix"),
    ],
)
def test_refused_request_is_401_with_challenge(client, authorization, challenge):
    headers = {"Authorization": authorization} if authorization else {}
    response = client.post("/plants", json=PLANT, headers=headers)
    assert_error(response, 401)
    assert set(response.get_json()) == {"error", "message"}
    assert response.headers["WWW-Authenticate"] == challenge


@pytest.mark.backend_independent
@pytest.mark.parametrize("scheme", ["Bearer", "bearer", "BEARER"])
def test_scheme_word_is_case_insensitive(client, scheme):
    response = client.post("/plants", json=PLANT, headers={"Authorization": f"{scheme} {TOKEN}"})
    assert response.status_code == 200


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        pytest.param(b"{not json", "application/json", id="invalid JSON"),
        pytest.param(b"{}", "text/plain", id="wrong content type"),
        pytest.param(b"x" * 100_000, "application/json", id="body over the limit"),
    ],
)
def test_authentication_comes_before_the_body(client, data, content_type):
    response = client.post("/plants", data=data, headers={"Content-Type": content_type})
    assert response.status_code == 401


@pytest.mark.backend_independent
def test_several_static_tokens(make_app):
    tokens = ("first-token-0123456789abcdefghijk", "second-token-0123456789abcdefghij")
    client = make_app(API_TOKENS=",".join(tokens)).test_client()
    for token in tokens:
        response = client.post("/plants", json=PLANT, headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 200


@pytest.mark.backend_independent
def test_no_token_configured_refuses_everything_and_says_how(make_app, caplog):
    app = make_app(API_TOKENS="")
    assert "tokens create" not in caplog.text  # the factory only wires: it reads no table
    check_at_start(app)  # what each gunicorn worker runs once it starts
    assert "flask --app wsgi tokens create NAME" in caplog.text
    client = app.test_client()
    response = client.post("/plants", json=PLANT, headers={"Authorization": "Bearer anything"})
    assert response.status_code == 401


@pytest.mark.e2e
def test_each_gunicorn_worker_says_at_start_how_to_make_a_token_when_none_exists(
    live_server, tmp_path
):
    url = f"sqlite:///{tmp_path / 'plantstore.sqlite'}"
    server = live_server(url, workers=2, PLANTSTORE_API_TOKENS="")
    wait_for(lambda: server.log().count("tokens create NAME") == 2, 10, server.log)
    started = time.monotonic()
    response = server.request("POST", "/plants", PLANT)
    assert response.status == 401 and response.json()["error"] == 401
    assert time.monotonic() - started < 2
