"""Fixtures: an app on a temporary database, its client, tokens, and live gunicorn servers."""

import pytest

from app import create_app
from app.db import init_db
from liveserver import LiveServer

TOKEN = "test-read-write-token"


@pytest.fixture
def database_url(tmp_path):
    """A fresh SQLite database file."""
    return f"sqlite:///{tmp_path / 'plantstore.sqlite'}"


@pytest.fixture
def make_app(database_url):
    """Build apps on the test database with extra settings; the schema is created."""
    apps = []

    def make(**settings):
        app = create_app(
            {"TESTING": True, "DATABASE_URL": database_url, "API_TOKENS": TOKEN, **settings}
        )
        init_db(app.extensions["plantstore.db"])
        apps.append(app)
        return app

    yield make
    for app in apps:
        app.extensions["plantstore.db"].engine.dispose()


@pytest.fixture
def app(make_app):
    """The app with default settings."""
    return make_app()


@pytest.fixture
def unreachable_app(tmp_path):
    """An app whose database cannot be opened."""
    missing = tmp_path / "no-such-folder" / "plantstore.sqlite"
    return create_app(
        {"TESTING": True, "DATABASE_URL": f"sqlite:///{missing}", "API_TOKENS": TOKEN}
    )


@pytest.fixture
def client(app):
    """A test client of the app."""
    return app.test_client()


@pytest.fixture
def runner(app):
    """A CLI runner of the app."""
    return app.test_cli_runner()


@pytest.fixture
def auth_headers():
    """Headers of an authenticated read-write request."""
    return {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def live_server(tmp_path, database_url):
    """Start `gunicorn wsgi:app` as the Procfile does; stopped at the end of the test."""
    servers = []

    def start(workers=2, **env):
        env = {
            "PLANTSTORE_DATABASE_URL": database_url,
            "PLANTSTORE_API_TOKENS": TOKEN,
            "WEB_CONCURRENCY": str(workers),
            **env,
        }
        server = LiveServer(tmp_path / f"gunicorn-{len(servers)}.log", env, TOKEN)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()
