"""Every wait on the database is bounded: a held or frozen lock or server is a 503 in time."""

import time

import pytest
from sqlalchemy import make_url

from app import create_app
from helpers import TOKEN, assert_error
from liveserver import Holder, wait_for

UNAVAILABLE = {"error": 503, "message": "database unavailable"}
# What a request may take beyond PLANTSTORE_DATABASE_TIMEOUT: the HTTP exchange and the answer.
MARGIN = 1.5


def timed(server, method, path, body=None):
    """One request to server, and how many seconds it took."""
    started = time.monotonic()
    response = server.request(method, path, body)
    return response, time.monotonic() - started


@pytest.fixture
def sqlite_server(live_server, tmp_path):
    """gunicorn on a SQLite file with a 1 s database timeout; the file's path."""
    path = tmp_path / "faults.sqlite"
    server = live_server(f"sqlite:///{path}", PLANTSTORE_DATABASE_TIMEOUT="1")
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    return server, path


@pytest.mark.e2e
def test_frozen_holder_of_the_writer_lock_costs_a_write_only_the_timeout(sqlite_server):
    server, path = sqlite_server
    holder = Holder("flock", f"{path}-writer")
    holder.freeze()
    try:
        response, seconds = timed(server, "POST", "/plants", {"id": 2, "name": "Aloe"})
        assert response.status == 503 and response.json() == UNAVAILABLE
        assert 1 <= seconds < 1 + MARGIN
        # Readers never wait for writers, so reads and readiness go on.
        for path_read in ("/healthz", "/plants/1"):
            response, seconds = timed(server, "GET", path_read)
            assert response.status == 200 and seconds < MARGIN
    finally:
        holder.end()
    response, seconds = timed(server, "POST", "/plants", {"id": 2, "name": "Aloe"})
    assert response.status == 200 and seconds < MARGIN


@pytest.mark.e2e
def test_sqlite_locked_by_another_program_is_503_within_the_timeout(sqlite_server):
    server, path = sqlite_server
    holder = Holder("sqlite", path)
    try:
        response, seconds = timed(server, "POST", "/plants", {"id": 2, "name": "Aloe"})
        assert response.status == 503 and response.json() == UNAVAILABLE
        assert 1 <= seconds < 1 + MARGIN
    finally:
        holder.end()
    assert server.request("POST", "/plants", {"id": 2, "name": "Aloe"}).status == 200


def test_writer_lock_file_that_cannot_be_made_is_503(auth_headers, tmp_path):
    database = tmp_path / "plantstore.sqlite"
    (tmp_path / "plantstore.sqlite-writer").mkdir()  # no file can be opened at that path
    app = create_app(
        {"TESTING": True, "DATABASE_URL": f"sqlite:///{database}", "API_TOKENS": TOKEN}
    )
    started = time.monotonic()
    response = app.test_client().post(
        "/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers
    )
    assert assert_error(response, 503) == "database unavailable"
    assert time.monotonic() - started < MARGIN
    app.extensions["plantstore.db"].engine.dispose()


@pytest.mark.e2e
def test_frozen_postgresql_is_503_within_the_timeout(live_server, private_postgres):
    # libpq's connect_timeout has a floor of 2 s.
    server = live_server(private_postgres.url, PLANTSTORE_DATABASE_TIMEOUT="2")
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    private_postgres.freeze()
    try:
        for method, path, body in [
            ("GET", "/healthz", None),
            ("GET", "/plants/1", None),
            ("POST", "/plants", {"id": 2, "name": "Aloe"}),
        ]:
            response, seconds = timed(server, method, path, body)
            assert response.status == 503 and response.json() == UNAVAILABLE, path
            assert seconds < 2 + MARGIN, path
    finally:
        private_postgres.thaw()
    wait_for(lambda: server.request("GET", "/healthz").status == 200, 10, "recovery")
    assert server.request("POST", "/plants", {"id": 2, "name": "Aloe"}).status == 200


def test_postgresql_sessions_keep_the_urls_options_and_get_the_timeouts(postgres_url):
    url = make_url(postgres_url).update_query_dict({"options": "-c timezone=Pacific/Kiritimati"})
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": url.render_as_string(hide_password=False),
            "API_TOKENS": TOKEN,
            "DATABASE_TIMEOUT": 3,
        }
    )
    db = app.extensions["plantstore.db"]
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('TimeZone'), current_setting('statement_timeout'), "
            "current_setting('lock_timeout')"
        )
        assert cursor.fetchone() == ("Pacific/Kiritimati", "3s", "3s")
    db.engine.dispose()
