"""Fixtures: an app on a temporary database, its client, tokens, and live gunicorn servers."""

import contextlib
import os
import shutil

import pytest
from sqlalchemy import create_engine, make_url

from app import create_app, database
from app.database import migrate
from support import postgres_state
from support.live_servers import Servers
from support.local_servers import (
    POSTGRES_URL_VARIABLE,
    PostgresTemplate,
    PrivatePostgres,
    postgres_binaries_or_skip,
)
from support.receivers import Receiver
from support.tokens import TOKEN, issue_admin_token, issue_read_only_token

# The longest cases (`pytest --durations`, docs/development.md), longest first, started before
# the others so that none is left running alone on one xdist worker at the end.
LONGEST = (
    "tests/webhooks/api/test_feed_e2e.py::test_a_follower_sees_every_acknowledged_create_once",
    "tests/openapi/test_openapi.py::test_service_conforms_to_its_document",
    "tests/webhooks/worker/test_worker.py::test_kill_9_of_the_worker_loses_no_event",
    "tests/webhooks/tables/test_endpoint_concurrent_writes.py::",
    "tests/database/test_database_faults.py::test_frozen_postgresql_is_503_within_the_timeout",
    "tests/test_packaging.py::",
    "tests/webhooks/worker/test_pace.py::",
    "tests/openapi/test_docs.py::test_try_it_out_in_chromium_after_authorizing",
)
# Module-scoped fixtures that start servers: a module using one runs on one xdist worker
# (`--dist loadgroup`), which starts them once.
SHARED_SERVERS = {"module_live_server", "limited"}


def _start_rank(item):
    for rank, prefix in enumerate(LONGEST):
        if item.nodeid.startswith(prefix):
            return 0, rank
    return (1 if item.get_closest_marker("e2e") else 2), 0


def pytest_collection_modifyitems(items):
    """Longest cases first, then the other end-to-end ones, then those in process; each in
    the order collected. A module whose tests share servers is one xdist group."""
    items.sort(key=_start_rank)
    for item in items:
        if SHARED_SERVERS & set(item.fixturenames):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


def pytest_configure(config):
    """Register the markers this conftest acts on."""
    config.addinivalue_line(
        "markers",
        "backend_independent: the case's outcome does not depend on the database backend:"
        " database_url is SQLite alone, not each backend",
    )


def _parametrized_names(mark):
    names = mark.args[0] if mark.args else mark.kwargs["argnames"]
    return [name.strip() for name in names.split(",")] if isinstance(names, str) else names


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    """A case marked backend_independent gets database_url's SQLite value alone.

    Given as a parametrize mark, which pytest puts before the fixture's params (before the
    fixtures' own pytest_generate_tests runs); a case's own parametrize of database_url wins.
    """
    definition = metafunc.definition
    if not definition.get_closest_marker("backend_independent"):
        return
    if "database_url" not in metafunc.fixturenames or any(
        "database_url" in _parametrized_names(mark)
        for mark in definition.iter_markers("parametrize")
    ):
        return
    sqlite = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
    # First, as the fixture's params would be: the case's id starts with its backend.
    definition.add_marker(sqlite, append=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport():
    """Under CI (CI=true) a skip is a failure: there every case must run, none pass by skipping."""
    report = yield
    under_ci = os.environ.get("CI", "").lower() in ("true", "1")
    if under_ci and report.skipped and not hasattr(report, "wasxfail"):
        report.outcome = "failed"
        # A skip's longrepr is (path, line, reason); a reason alone where a plugin made it.
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else report.longrepr
        report.longrepr = f"skipped, which CI does not allow: {reason}"
    return report


@contextlib.contextmanager
def _database_beside(url, suffix):
    # A PostgreSQL database of its own, named after url's and suffix; dropped at the end.
    given = make_url(url)
    own = given.set(database=f"{given.database}_{suffix}"[:63])
    engine = create_engine(given, isolation_level="AUTOCOMMIT")
    drop = f'DROP DATABASE IF EXISTS "{own.database}" WITH (FORCE)'
    with engine.connect() as conn:
        conn.exec_driver_sql(drop)
        conn.exec_driver_sql(f'CREATE DATABASE "{own.database}"')
    yield own.render_as_string(hide_password=False)
    with engine.connect() as conn:
        conn.exec_driver_sql(drop)
    engine.dispose()


@pytest.fixture(scope="session")
def postgres_template():
    """A PostgreSQL data folder made once per pytest-xdist worker, which servers start copies of."""
    template = PostgresTemplate(postgres_binaries_or_skip("needs PostgreSQL's server binaries"))
    yield template
    template.remove()


@pytest.fixture(scope="session")
def worker_postgres_url(request, worker_id):
    """This pytest-xdist worker's own PostgreSQL database.

    Beside the one PLANTSTORE_TEST_POSTGRES_URL names, if set: a set URL that does not answer
    fails the test. Else on a server of the worker's own.
    """
    url = os.environ.get(POSTGRES_URL_VARIABLE)
    if not url:
        postgres_binaries_or_skip(f"needs {POSTGRES_URL_VARIABLE} or PostgreSQL's server binaries")
        server = PrivatePostgres(request.getfixturevalue("postgres_template"))
        yield server.url
        server.destroy()
    elif worker_id == "master":
        yield url
    else:
        with _database_beside(url, worker_id) as own:
            yield own


@pytest.fixture(scope="session")
def postgres_engine(worker_postgres_url):
    """An engine of this worker's PostgreSQL database for the fixtures that empty it, kept for
    the session: a connection per test costs more than the emptying. Pinged before each use,
    for a test may end its connection."""
    engine = create_engine(worker_postgres_url, pool_size=1, pool_pre_ping=True)
    yield engine
    engine.dispose()


@pytest.fixture(scope="session")
def latest_postgres_schema(worker_postgres_url, postgres_engine):
    """The latest migration made once on this worker's PostgreSQL database, and its state
    (postgres_state.latest)."""
    return postgres_state.latest(worker_postgres_url, postgres_engine)


@pytest.fixture
def postgres_url(request, worker_postgres_url, postgres_engine):
    """The test PostgreSQL database, emptied: no table left, or, for a test that makes apps
    (make_app), the latest migration's schema without a row.

    That one keeps the tables when an earlier test left exactly them (one statement's
    fingerprint says so), deleting their rows: dropping every table and migrating again costs
    about 0.7 s a test, a TRUNCATE of them 25 ms of PostgreSQL's CPU, the DELETEs about 5 ms.
    """
    latest = None
    if "make_app" in request.fixturenames:
        latest = request.getfixturevalue("latest_postgres_schema")
    with postgres_engine.begin() as conn:
        kept = latest is not None and postgres_state.fingerprint(conn) == latest.fingerprint
        if kept:
            conn.exec_driver_sql(latest.empty)
        else:
            postgres_state.drop_every_table(conn)
    if latest is not None and not kept:
        postgres_state.migrate_to_latest(worker_postgres_url)
    return worker_postgres_url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """A fresh database on each backend: a SQLite file, and the test PostgreSQL database; the
    SQLite one alone for a case marked backend_independent."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'plantstore.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture
def far_zone_url(database_url):
    """database_url with PostgreSQL sessions 14 hours ahead of UTC (SQLite keeps no zone)."""
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        return database_url
    far = url.update_query_dict({"options": "-c timezone=Pacific/Kiritimati"})
    return far.render_as_string(hide_password=False)


@pytest.fixture(scope="session")
def latest_sqlite(tmp_path_factory):
    """A SQLite file at the latest migration, made once per xdist worker, for make_app to copy."""
    path = tmp_path_factory.mktemp("latest") / "plantstore.sqlite"
    app = create_app({"DATABASE_URL": f"sqlite:///{path}"})
    migrate.upgrade(database.of(app))
    database.of(app).dispose()
    return path


def _at_head(db, database_url, first, latest_sqlite):
    # Whether db is known at the latest revision: a SQLite file copied now from latest_sqlite, or
    # PostgreSQL as postgres_url left it, for the first app (a test may change it after that).
    if db.is_sqlite:
        path = db.engine.url.database
        if not path or path == ":memory:" or os.path.exists(path):
            return False
        shutil.copyfile(latest_sqlite, path)
        return True
    return first and db.engine.url.render_as_string(hide_password=False) == database_url


@pytest.fixture
def make_app(database_url, latest_sqlite):
    """Build apps on the test database with extra settings; the schema is created.

    A SQLite file that does not exist yet starts as a copy of latest_sqlite, and postgres_url
    leaves the latest migration: such an app is not migrated again, for an upgrade that finds
    nothing to do still costs Alembic's start. Any other is migrated.
    """
    apps = []

    def make(**settings):
        app = create_app(
            {"TESTING": True, "DATABASE_URL": database_url, "API_TOKENS": TOKEN, **settings}
        )
        db = database.of(app)
        if not _at_head(db, database_url, not apps, latest_sqlite):
            migrate.upgrade(db)
        apps.append(app)
        return app

    yield make
    for app in apps:
        database.of(app).dispose()


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
def admin_headers(app):
    """Headers of a request with an admin token, which is issued in the app's database."""
    return issue_admin_token(app)


@pytest.fixture
def read_only_headers(app):
    """Headers of a request with a read-only token, which is issued in the app's database."""
    return issue_read_only_token(app)


@pytest.fixture
def live_server(tmp_path):
    """Start `gunicorn wsgi:app` on a database as the Procfile does; stopped after the test."""
    servers = Servers(tmp_path, TOKEN)
    yield servers.start
    servers.stop()


@pytest.fixture(scope="module")
def module_live_server(tmp_path_factory):
    """live_server for instances that every test of a module shares."""
    servers = Servers(tmp_path_factory.mktemp("servers"), TOKEN)
    yield servers.start
    servers.stop()


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def module_database_url(request, tmp_path_factory):
    """A database on each backend for a module's shared instances, apart from every test's."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path_factory.mktemp('database') / 'plantstore.sqlite'}"
        return
    with _database_beside(
        request.getfixturevalue("worker_postgres_url"), request.module.__name__
    ) as own:
        yield own


@pytest.fixture
def private_postgres(postgres_template):
    """A PostgreSQL server of the test's own, to stop and start; needs the server binaries."""
    server = PrivatePostgres(postgres_template)
    yield server
    server.destroy()


@pytest.fixture
def other_cluster():
    """A PostgreSQL server of a cluster of its own initdb, as a restore's target is: another
    system identifier, and a transaction counter where initdb left it."""
    template = PostgresTemplate(postgres_binaries_or_skip("needs PostgreSQL's server binaries"))
    server = PrivatePostgres(template)
    yield server
    server.destroy()
    template.remove()


@pytest.fixture
def make_receiver():
    """make(secret=None, status=200): a receiver on a local port; every request it got must
    verify with its secret (given here or by verify_with) by the end of the test."""
    made = []

    def make(secret=None, status=200):
        receiver = Receiver(secret, status=status)
        made.append(receiver)
        return receiver

    yield make
    for receiver in made:
        receiver.close()
    assert [receiver.unverified for receiver in made] == [[] for _ in made]
