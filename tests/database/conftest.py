"""Fixtures of the migration tests: the test database bare, as 1.0 left it, and its app."""

import pytest
from sqlalchemy import create_engine, text

from app import create_app, database
from support.migrations import DIALECT_WORDS, ROWS, SCHEMA_1_0, tables_1_0
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
    database.of(app).engine.dispose()


@pytest.fixture
def cli(bare_app):
    """Run a `flask` command of the bare app; return the click result."""
    runner = bare_app.test_cli_runner()
    return lambda *args: runner.invoke(args=list(args))


@pytest.fixture
def database_1_0(engine):
    """The test database as 1.0's init-db made it, holding plants, a token and deliveries."""
    words = DIALECT_WORDS[engine.dialect.name]
    with engine.begin() as conn:
        for statement in SCHEMA_1_0.format(**words).split(";"):
            conn.execute(text(statement))
        tables = tables_1_0()
        for table in ("plants", "tokens", "deliveries"):
            conn.execute(tables[table].insert(), ROWS[table])
    return engine
