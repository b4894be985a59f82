"""Fixtures of the migration tests: an engine of the test database, and its app left bare."""

import pytest
from sqlalchemy import create_engine

from app import create_app, database
from support.tokens import TOKEN


@pytest.fixture
def engine(database_url):
    """An engine of the test database, apart from the app's."""
    engine = create_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def bare_app(database_url):
    """The app on the test database, its schema left as the test makes it."""
    app = create_app({"TESTING": True, "DATABASE_URL": database_url, "API_TOKENS": TOKEN})
    yield app
    database.of(app).dispose()


@pytest.fixture
def cli(bare_app):
    """Run a `flask` command of the bare app; return the click result."""
    runner = bare_app.test_cli_runner()
    return lambda *args: runner.invoke(args=list(args))
