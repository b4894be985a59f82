"""Every error is an Error body: the contract's 'Every response' section."""

import logging

import pytest

from conftest import assert_error


@pytest.mark.parametrize("path", ["/", "/nothing", "/plants/1/leaves"])
def test_unknown_path_is_404(client, auth_headers, path):
    assert_error(client.get(path, headers=auth_headers), 404)


@pytest.mark.parametrize("method", ["PUT", "PATCH"])
def test_wrong_method_is_405_with_allow(client, auth_headers, method):
    response = client.open("/plants", method=method, headers=auth_headers)
    assert_error(response, 405)
    assert "POST" in response.headers["Allow"]


@pytest.fixture
def failing_app(make_app):
    app = make_app()

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret detail from deep inside")

    return app


def test_unexpected_exception_is_500_and_leaks_nothing(failing_app, caplog):
    with caplog.at_level(logging.ERROR):
        response = failing_app.test_client().get("/boom", headers={"X-Request-ID": "trace-me"})
    assert_error(response, 500)
    assert response.get_json()["message"] == "internal server error"
    assert b"secret" not in response.data
    assert "secret detail from deep inside" in caplog.text
    assert "trace-me" in caplog.text


def test_database_that_does_not_answer_is_503(unreachable_app, auth_headers):
    client = unreachable_app.test_client()
    response = client.post("/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers)
    assert_error(response, 503)
