"""Adopting a database made by 1.0's init-db, and serving on a schema that is behind."""

import pytest
from sqlalchemy import inspect, text

from harness.processes import wait_for
from support.errors import assert_error
from support.migrations import (
    DIALECT_WORDS,
    HEAD,
    ISSUED_TOKEN,
    ROWS,
    SCHEMA_1_0,
    differences,
    revisions,
    rows,
    tables_1_0,
)


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


@pytest.mark.parametrize("command", [["init-db"], ["db", "upgrade"]])
def test_database_of_1_0_is_adopted_with_every_row(database_1_0, cli, bare_app, command):
    before = rows(database_1_0)
    result = cli(*command)
    assert result.exit_code == 0, result.output
    assert revisions(database_1_0) == {HEAD}
    assert rows(database_1_0) == before
    assert differences(database_1_0) == []
    client = bare_app.test_client()
    assert client.get("/healthz").status_code == 200
    listed = client.get("/plants", headers={"Authorization": f"Bearer {ISSUED_TOKEN}"})
    assert [plant["id"] for plant in listed.get_json()] == [-(2**63), 1, 2**63 - 1]
    assert "pending: 2" in cli("webhooks", "status").output


def test_upgrading_twice_changes_nothing(database_1_0, cli):
    before = rows(database_1_0)
    for _ in range(2):
        assert cli("db", "upgrade").exit_code == 0
    assert revisions(database_1_0) == {HEAD}
    assert rows(database_1_0) == before


MISMATCHES = {
    "extra column": ("ALTER TABLE plants ADD COLUMN colour VARCHAR(20)", "plants.colour"),
    "missing index": ("DROP INDEX deliveries_due", "deliveries_due is missing"),
    "missing table": ("DROP TABLE tokens", "table tokens is missing"),
    "missing column": ("ALTER TABLE deliveries DROP COLUMN last_error", "deliveries.last_error"),
    "missing unique": (
        "DROP TABLE tokens; CREATE TABLE tokens (name VARCHAR(100) NOT NULL PRIMARY KEY, "
        "token_hash VARCHAR(64) NOT NULL, scope VARCHAR(20) NOT NULL, "
        "created_at {timestamp} NOT NULL, expires_at {timestamp}, revoked_at {timestamp})",
        "unique constraint on tokens (token_hash) is missing",
    ),
}


@pytest.mark.parametrize("change, named", MISMATCHES.values(), ids=MISMATCHES.keys())
def test_database_unlike_1_0_is_refused_unchanged_in_one_line(database_1_0, cli, change, named):
    words = DIALECT_WORDS[database_1_0.dialect.name]
    with database_1_0.begin() as conn:
        for statement in change.format(**words).split(";"):
            conn.execute(text(statement))
    result = cli("db", "upgrade")
    assert result.exit_code == 1
    message = result.output.strip()
    assert message.startswith("Error: Not adopted, nothing changed") and "\n" not in message
    assert named in message
    assert revisions(database_1_0) == set()
    with database_1_0.connect() as conn:
        plants = conn.execute(text("SELECT id, name, tag FROM plants ORDER BY id")).all()
    assert [row._asdict() for row in plants] == [
        {key: plant[key] for key in ("id", "name", "tag")} for plant in ROWS["plants"]
    ]


def test_a_table_of_another_application_does_not_stop_adoption(database_1_0, cli):
    with database_1_0.begin() as conn:
        conn.execute(text("CREATE TABLE visits (id INTEGER PRIMARY KEY)"))
    assert cli("db", "upgrade").exit_code == 0
    assert "visits" in inspect(database_1_0).get_table_names()
    assert revisions(database_1_0) == {HEAD}


NOT_INITIALISED = "database schema is not initialised or out of date"


def test_healthz_is_503_while_the_schema_is_behind(database_1_0, bare_app, cli, caplog):
    client = bare_app.test_client()
    for _ in range(2):
        # 1.0 has no events table: a table is missing, and the log says how far behind it is.
        assert assert_error(client.get("/healthz"), 503) == NOT_INITIALISED
    assert [r.getMessage() for r in caplog.records].count(
        f"database schema is out of date: it is at no revision, the code needs {HEAD}: "
        "run `flask --app wsgi db upgrade`"
    ) == 1
    assert cli("db", "upgrade").exit_code == 0
    assert client.get("/healthz").status_code == 200


def test_a_database_newer_than_the_code_counts_as_current(engine, bare_app, cli):
    """During a release, the old instances keep serving once the new code has migrated."""
    assert cli("db", "upgrade").exit_code == 0
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'fromthefuture'"))
    assert bare_app.test_client().get("/healthz").status_code == 200


@pytest.mark.e2e
def test_gunicorn_started_on_an_old_schema_says_so_and_serves_once_upgraded(
    database_1_0, database_url, live_server
):
    server = live_server(database_url, workers=1, release=False)
    response = server.request("GET", "/healthz")
    assert response.status == 503
    assert response.json() == {"error": 503, "message": NOT_INITIALISED}
    wait_for(lambda: "run `flask --app wsgi db upgrade`" in server.log(), 10, server.log)
    assert server.log().count("database schema is out of date") == 1
    server.cli("db", "upgrade")
    assert server.request("GET", "/healthz").status == 200
    assert server.request("GET", "/plants/1").json()["name"] == "Monstera"
