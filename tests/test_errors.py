"""Every error is an Error body: the contract's 'Every response' section."""

import logging

import pytest
from werkzeug.debug import DebuggedApplication
from werkzeug.test import Client

from app import database
from support.errors import assert_error


@pytest.mark.backend_independent
@pytest.mark.parametrize("path", ["/", "/nothing", "/plants/1/leaves"])
def test_unknown_path_is_404(client, auth_headers, path):
    assert_error(client.get(path, headers=auth_headers), 404)


@pytest.mark.backend_independent
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


@pytest.mark.backend_independent
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


NO_SCHEMA = "database schema is not initialised or out of date"


def _execute(app, *statements):
    """Run DDL on the app's database, behind the service's back."""
    with database.of(app).engine.begin() as conn:
        for statement in statements:
            conn.exec_driver_sql(statement)


@pytest.mark.parametrize(
    "statements",
    [
        pytest.param(["DROP TABLE plants"], id="missing table"),
        # SQLite drops no column that an index names.
        pytest.param(
            ["DROP INDEX plants_tag_id", "ALTER TABLE plants DROP COLUMN tag"], id="missing column"
        ),
    ],
)
@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        pytest.param("POST", "/plants", {"id": 1, "name": "Fern"}, id="create"),
        pytest.param("GET", "/plants", None, id="list"),
        pytest.param("GET", "/healthz", None, id="healthz"),
    ],
)
def test_missing_schema_is_503_that_says_so(app, auth_headers, statements, method, path, body):
    _execute(app, *statements)
    response = app.test_client().open(path, method=method, json=body, headers=auth_headers)
    assert assert_error(response, 503) == NO_SCHEMA


# A trigger that calls a function nobody defined: a mistake in SQL, not an outage.
BROKEN_TRIGGER = {
    "sqlite": [
        "CREATE TRIGGER broken BEFORE INSERT ON plants BEGIN SELECT no_such_function(); END",
    ],
    "postgresql": [
        "CREATE OR REPLACE FUNCTION broken() RETURNS trigger LANGUAGE plpgsql AS "
        "$$ BEGIN PERFORM no_such_function(); RETURN NEW; END $$",
        "CREATE TRIGGER broken BEFORE INSERT ON plants FOR EACH ROW EXECUTE FUNCTION broken()",
    ],
}


def test_other_sql_error_is_500_with_the_traceback_in_the_log(app, auth_headers, caplog):
    _execute(app, *BROKEN_TRIGGER[database.of(app).dialect])
    with caplog.at_level(logging.ERROR):
        response = app.test_client().post(
            "/plants",
            json={"id": 1, "name": "Fern"},
            headers={**auth_headers, "X-Request-ID": "sql-bug"},
        )
    assert assert_error(response, 500) == "internal server error"
    assert "no_such_function" not in response.get_data(as_text=True)
    assert "Traceback" in caplog.text and "no_such_function" in caplog.text
    assert "sql-bug" in caplog.text


@pytest.mark.backend_independent
def test_debug_mode_shows_werkzeugs_debugger_for_an_unexpected_exception(failing_app):
    failing_app.debug = True
    client = Client(DebuggedApplication(failing_app.wsgi_app, evalex=False))
    response = client.get("/boom")
    assert response.status_code == 500
    assert response.mimetype == "text/html"
    page = response.get_data(as_text=True)
    assert "Werkzeug Debugger" in page and "secret detail from deep inside" in page


@pytest.mark.backend_independent
def test_debug_mode_keeps_error_bodies_for_http_errors(failing_app, auth_headers):
    failing_app.debug = True
    assert_error(failing_app.test_client().get("/nothing", headers=auth_headers), 404)
