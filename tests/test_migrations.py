"""Schema migrations: `db upgrade|downgrade|current|history|revision|check`, and adopting 1.0."""

import datetime
import os
import shutil
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from app import create_app, migrate
from app.auth import token_hash
from app.db import metadata
from conftest import TOKEN, assert_error
from liveserver import ROOT, wait_for

HEAD = migrate.script_directory().get_current_head()
ISSUED_TOKEN = "pst_issued-before-the-migrations-existed-000000"

# What 1.0's `init-db` (metadata.create_all) executed, written out so that it cannot drift.
SCHEMA_1_0 = """
CREATE TABLE deliveries (
    id VARCHAR(32) NOT NULL, url TEXT NOT NULL, event VARCHAR(50) NOT NULL, body TEXT NOT NULL,
    status VARCHAR(10) NOT NULL, attempts INTEGER NOT NULL, created_at {timestamp} NOT NULL,
    next_attempt_at {timestamp} NOT NULL, claimed_until {timestamp}, delivered_at {timestamp},
    last_error TEXT, PRIMARY KEY (id)
);
CREATE INDEX deliveries_due ON deliveries (status, next_attempt_at);
CREATE TABLE plants (
    id BIGINT NOT NULL, name VARCHAR(255) NOT NULL, tag VARCHAR(255),
    created_at {timestamp} DEFAULT {now} NOT NULL, PRIMARY KEY (id)
);
CREATE TABLE tokens (
    name VARCHAR(100) NOT NULL, token_hash VARCHAR(64) NOT NULL, scope VARCHAR(20) NOT NULL,
    created_at {timestamp} NOT NULL, expires_at {timestamp}, revoked_at {timestamp},
    PRIMARY KEY (name), UNIQUE (token_hash)
)
"""
DIALECT_WORDS = {
    "sqlite": {"timestamp": "DATETIME", "now": "CURRENT_TIMESTAMP"},
    "postgresql": {"timestamp": "TIMESTAMP WITH TIME ZONE", "now": "now()"},
}
NOW = datetime.datetime(2026, 11, 23, 12, 0, tzinfo=datetime.UTC)
ROWS = {
    "plants": [
        {"id": -(2**63), "name": "Oldest", "tag": None, "created_at": NOW},
        {"id": 1, "name": "Monstera", "tag": "tropical", "created_at": NOW},
        {"id": 2**63 - 1, "name": "Newest", "tag": "", "created_at": NOW},
    ],
    "tokens": [
        {
            "name": "ci",
            "token_hash": token_hash(ISSUED_TOKEN),
            "scope": "read-write",
            "created_at": NOW,
            "expires_at": None,
            "revoked_at": None,
        }
    ],
    "deliveries": [
        {
            "id": f"delivery{number}",
            "url": "http://receiver.invalid/hook",
            "event": "plant.created",
            "body": '{"id": 1, "name": "Monstera", "tag": "tropical"}',
            "status": "pending",
            "attempts": number,
            "created_at": NOW,
            "next_attempt_at": NOW,
            "claimed_until": None,
            "delivered_at": None,
            "last_error": None if number == 0 else "HTTP 500",
        }
        for number in range(2)
    ],
}


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
    app.extensions["plantstore.db"].engine.dispose()


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
        for table in ("plants", "tokens", "deliveries"):
            conn.execute(metadata.tables[table].insert(), ROWS[table])
    return engine


def rows(engine):
    """Every row of every table of the service, in key order."""
    with engine.connect() as conn:
        return {
            table.name: [
                row._asdict() for row in conn.execute(table.select().order_by(*table.primary_key))
            ]
            for table in metadata.sorted_tables
        }


def revisions(engine):
    """The revisions recorded in the database."""
    with engine.connect() as conn:
        return set(MigrationContext.configure(conn).get_current_heads())


def differences(engine, target=metadata):
    """What autogenerate would change to make the database match target."""
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_server_default": True})
        return compare_metadata(context, target)


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


def test_downgrade_to_base_then_upgrade_to_head_on_an_empty_database(engine, cli):
    assert cli("db", "upgrade").exit_code == 0
    assert differences(engine) == []
    result = cli("db", "downgrade", "base")
    assert result.exit_code == 0, result.output
    assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    assert revisions(engine) == set()
    assert cli("db", "upgrade", "head").exit_code == 0
    assert revisions(engine) == {HEAD}
    assert differences(engine) == []


def test_current_and_history_name_the_revisions(cli):
    assert "no revision" in cli("db", "current").output
    assert cli("db", "upgrade").exit_code == 0
    assert cli("db", "current").output.strip() == f"{HEAD} (head)"
    history = cli("db", "history")
    assert history.exit_code == 0
    assert f" -> {HEAD} (head)" in history.output
    assert "<base> -> " in history.output


def test_unknown_revision_is_one_line_error(cli):
    result = cli("db", "downgrade", "nosuchrevision")
    assert result.exit_code == 1
    assert result.output.startswith("Error: ") and result.output.count("\n") == 1


def test_head_revision_matches_the_tables_of_app_db(engine, cli):
    """The guard against a change to app/db.py that has no revision: it fails the suite."""
    assert cli("db", "upgrade").exit_code == 0
    assert differences(engine) == []
    result = cli("db", "check")
    assert result.exit_code == 0, result.output
    assert "No new upgrade operations detected" in result.output


def test_check_fails_when_the_tables_and_the_revisions_differ(engine, cli):
    assert cli("db", "upgrade").exit_code == 0
    with engine.begin() as conn:
        conn.execute(text("ALTER TABLE plants ADD COLUMN colour VARCHAR(20)"))
    result = cli("db", "check")
    assert result.exit_code == 1
    assert "colour" in result.output


def test_autogenerated_revision_renders_the_types_and_recreates_the_schema(
    engine, cli, tmp_path, monkeypatch
):
    scripts = tmp_path / "migrations"
    shutil.copytree(migrate.SCRIPT_LOCATION, scripts, ignore=shutil.ignore_patterns("*.pyc"))
    for revision in (scripts / "versions").glob("*.py"):
        revision.unlink()
    monkeypatch.setattr(migrate, "SCRIPT_LOCATION", scripts)
    result = cli("db", "revision", "-m", "everything", "--autogenerate")
    assert result.exit_code == 0, result.output
    (written,) = (scripts / "versions").glob("*_everything.py")
    source = written.read_text()
    assert "sa.DateTime(timezone=True)" in source
    assert "app." not in source
    if engine.dialect.name == "sqlite":
        assert "batch_alter_table" in source
    for lint in (["check"], ["format", "--check"]):
        ruff = subprocess.run([sys.executable, "-m", "ruff", *lint, written], capture_output=True)
        assert ruff.returncode == 0, ruff.stdout
    assert cli("db", "upgrade").exit_code == 0
    assert differences(engine) == []


@pytest.fixture
def schema_lock_waiters(bare_app, engine):
    """How many processes wait for the schema lock: PostgreSQL's advisory lock, or the SQLite
    writers' file lock, as /proc/locks shows a blocked flock."""
    if engine.dialect.name == "postgresql":

        def waiting():
            with engine.connect() as conn:
                query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
                return conn.execute(text(query)).scalar()

        return waiting
    lock_path = bare_app.extensions["plantstore.db"].writer_lock.path
    open(lock_path, "a").close()
    inode = f":{os.stat(lock_path).st_ino} "

    def waiting():
        with open("/proc/locks") as locks:
            return sum("->" in line and inode in line for line in locks)

    return waiting


def test_two_processes_upgrading_at_once_leave_one_schema(
    bare_app, engine, database_url, schema_lock_waiters
):
    env = {
        "PLANTSTORE_DATABASE_URL": database_url,
        "PLANTSTORE_API_TOKENS": TOKEN,
        # Longer than the test may take to start both: a waiting upgrade gives up after it.
        "PLANTSTORE_DATABASE_TIMEOUT": "60",
    }
    # Both start while the test holds the lock, so that both are inside upgrade when it ends.
    with migrate.schema_lock(bare_app.extensions["plantstore.db"]):
        processes = [
            subprocess.Popen(
                [sys.executable, "-m", "flask", "--app", "wsgi", "db", "upgrade"],
                cwd=ROOT,
                env={**os.environ, **env},
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for _ in range(2)
        ]
        wait_for(lambda: schema_lock_waiters() == 2, 30, "both upgrades to wait for the lock")
    outputs = [process.communicate(timeout=60)[0] for process in processes]
    assert [process.returncode for process in processes] == [0, 0], outputs
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM alembic_version")).scalar() == 1
    assert revisions(engine) == {HEAD}
    assert differences(engine) == []


def test_healthz_is_503_while_the_schema_is_behind(database_1_0, bare_app, cli, caplog):
    client = bare_app.test_client()
    for _ in range(2):
        assert assert_error(client.get("/healthz"), 503) == "database schema is out of date"
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


def test_start_up_check_on_an_unreachable_database_logs_and_carries_on(unreachable_app, caplog):
    unreachable_app.extensions["plantstore.schema"].check_at_start()
    assert any("database schema not checked at start" in r.getMessage() for r in caplog.records)
    assert unreachable_app.test_client().get("/healthz").status_code == 503


@pytest.mark.e2e
def test_gunicorn_started_on_an_old_schema_says_so_and_serves_once_upgraded(
    database_1_0, database_url, live_server
):
    server = live_server(database_url, workers=1, release=False)
    response = server.request("GET", "/healthz")
    assert response.status == 503
    assert response.json() == {"error": 503, "message": "database schema is out of date"}
    wait_for(lambda: "run `flask --app wsgi db upgrade`" in server.log(), 10, server.log)
    assert server.log().count("database schema is out of date") == 1
    server.cli("db", "upgrade")
    assert server.request("GET", "/healthz").status == 200
    assert server.request("GET", "/plants/1").json()["name"] == "Monstera"
