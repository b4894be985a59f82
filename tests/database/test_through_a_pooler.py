"""PostgreSQL through PgBouncer in pool_mode = transaction, its defaults otherwise, as PaaS
poolers serve it: the release step and its migrations, the API under load on two gunicorns,
the worker and the feed work as they do directly; the database timeout still bounds a wait for
a row another session holds."""

import concurrent.futures
import logging
import threading
import time

import psycopg
import pytest
from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

from app import check_at_start, create_app, database
from harness.processes import wait_for
from harness.worker import Worker
from support.feed_pages import follow
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token
from support.live_servers import environment
from support.poolers import PgBouncer, pgbouncer_or_skip
from support.receivers import Receiver
from support.tokens import TOKEN

pytestmark = pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)

THREADS, CREATES = 8, 250
TIMEOUT = 1
# What a busy machine may add to a wait bounded by TIMEOUT.
MARGIN = 1.5


@pytest.fixture
def bouncer(database_url):
    """PgBouncer in front of the test's PostgreSQL database."""
    pooler = PgBouncer(pgbouncer_or_skip("tests PostgreSQL through a pooler"), database_url)
    yield pooler
    pooler.destroy()


@pytest.fixture
def empty_database(database_url):
    """A database of its own on the test's PostgreSQL server, with no schema; dropped after."""
    given = make_url(database_url)
    own = given.set(database=f"{given.database}_pooled")
    engine = create_engine(given, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{own.database}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{own.database}"')
    yield own.render_as_string(hide_password=False)
    with engine.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{own.database}" WITH (FORCE)')
    engine.dispose()


def test_a_row_another_session_holds_is_a_503_within_the_timeout_through_the_pooler(
    database_url, make_app, bouncer
):
    make_app()  # the schema, made directly
    app = create_app(
        {"TESTING": True, "DATABASE_URL": bouncer.url, "API_TOKENS": TOKEN, "DATABASE_TIMEOUT": 1}
    )
    client, headers = app.test_client(), {"Authorization": f"Bearer {TOKEN}"}
    assert (
        client.post("/plants", json={"id": 1, "name": "Fern"}, headers=headers).status_code == 200
    )
    direct = make_url(database_url).set(drivername="postgresql")
    with psycopg.connect(direct.render_as_string(hide_password=False)) as holder:
        holder.execute("SELECT id FROM plants WHERE id = 1 FOR UPDATE")
        for method, body in (("PATCH", {"tag": "shade"}), ("DELETE", None)):
            started = time.monotonic()
            response = client.open("/plants/1", method=method, json=body, headers=headers)
            assert response.status_code == 503, method
            assert time.monotonic() - started < TIMEOUT + MARGIN, method
    # Released, the row is the service's again, through the same pooled connections.
    assert client.patch("/plants/1", json={"tag": "shade"}, headers=headers).status_code == 200
    database.of(app).dispose()


def test_pgbouncer_in_statement_mode_is_named_in_one_line_at_start_and_requests_are_503(
    database_url, make_app, caplog
):
    make_app()  # the schema, made directly
    program = pgbouncer_or_skip("tests PostgreSQL through a pooler")
    pooler = PgBouncer(program, database_url, mode="statement")
    try:
        config = {"DATABASE_URL": pooler.url, "API_TOKENS": TOKEN, "DATABASE_TIMEOUT": TIMEOUT}
        app = create_app({"TESTING": True, **config})
        with caplog.at_level(logging.WARNING, logger=app.logger.name):
            check_at_start(app)
        assert [(each.levelname, each.getMessage()) for each in caplog.records] == [
            ("ERROR", "PgBouncer in statement mode cannot run transactions; use transaction mode")
        ]
        started = time.monotonic()
        answer = app.test_client().get("/plants/1", headers={"Authorization": f"Bearer {TOKEN}"})
        assert answer.status_code == 503
        assert time.monotonic() - started < TIMEOUT + MARGIN
        database.of(app).dispose()
    finally:
        pooler.destroy()


@pytest.mark.e2e
def test_two_gunicorns_and_the_worker_work_through_the_pooler_under_load(
    live_server, empty_database, tmp_path
):
    pooler = PgBouncer(pgbouncer_or_skip("tests PostgreSQL through a pooler"), empty_database)
    receiver = Receiver()
    try:
        env = environment(ENDPOINT_SETTINGS)
        servers = [live_server(pooler.url, release=False, **env) for _ in range(2)]
        # The release step, and so every migration, as a process through the pooler.
        servers[0].command("init-db")
        admin = Admin(servers[0], issue_admin_token(pooler.url))
        admin.subscribe(receiver, events=["plant.created"])
        worker_env = {**servers[0].env, "PLANTSTORE_DATABASE_URL": pooler.url}
        with Worker(worker_env, tmp_path):
            statuses = _create_from_threads(servers)
            assert statuses == {200: THREADS * CREATES}
            # Every create once, in the feed's order: each page's place after the last.
            created, _, _ = follow(servers[0], "/events?limit=1000")
            ids = [event["data"]["id"] for event in created]
            assert sorted(ids) == list(range(THREADS * CREATES))
            wait_for(
                lambda: len(set(receiver.arrived())) == THREADS * CREATES,
                60,
                lambda: f"every delivery ({len(set(receiver.arrived()))} so far)",
            )
    finally:
        receiver.close()
        pooler.destroy()
    assert receiver.unverified == []


def _create_from_threads(servers):
    # {status: count} of THREADS x CREATES creates, each thread on one server in turn.
    counts, lock = {}, threading.Lock()

    def creates(thread):
        server = servers[thread % len(servers)]
        for number in range(CREATES):
            plant_id = thread * CREATES + number
            status = server.request("POST", "/plants", {"id": plant_id, "name": "Fern"}).status
            with lock:
                counts[status] = counts.get(status, 0) + 1

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        list(pool.map(creates, range(THREADS)))
    return counts
