"""GET /healthz and /livez, and the init-db command, in process. /livez staying 200 while
PostgreSQL is stopped under real gunicorn is in tests/test_scale.py, with the outage's case."""

import pytest

from app import create_app
from support.errors import assert_error


@pytest.mark.backend_independent
def test_healthz_needs_no_token(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_healthz_is_503_when_the_database_does_not_answer(unreachable_app):
    response = unreachable_app.test_client().get("/healthz")
    assert response.status_code == 503
    assert response.get_json() == {"error": 503, "message": "database unavailable"}


def test_healthz_is_503_before_init_db(tmp_path):
    fresh = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'empty.sqlite'}"})
    response = fresh.test_client().get("/healthz")
    assert assert_error(response, 503) == "database schema is not initialised or out of date"


def test_livez_is_200_without_a_database(unreachable_app):
    response = unreachable_app.test_client().get("/livez")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_init_db_is_idempotent(runner, client, auth_headers):
    assert (
        client.post("/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers).status_code
        == 200
    )
    for _ in range(2):
        result = runner.invoke(args=["init-db"])
        assert result.exit_code == 0, result.output
        assert "ready" in result.output
    replay = client.post("/plants", json={"id": 1, "name": "Other"}, headers=auth_headers)
    assert replay.status_code == 409
