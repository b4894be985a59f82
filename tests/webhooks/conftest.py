"""Fixtures of the webhook tests: a verifying receiver, settings that use it, apps and servers."""

import threading

import pytest
from sqlalchemy import insert, text
from werkzeug.serving import make_server

from app import database
from app.webhooks.tables.deliveries import deliveries
from harness.receivers import PacedReceiver, ScriptedReceiver
from support.in_process import Stack
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token
from support.live_servers import environment
from support.name_servers import NameServer
from support.outbox import delivery_rows
from support.receivers import Receiver
from support.tokens import TOKEN
from support.webhooks import SECRET

# Seconds between a paced receiver's pieces: each piece a read of its own.
PAUSE = 0.05


@pytest.fixture
def receiver():
    """A subscriber listening on a local port; every delivery it got must verify."""
    server = Receiver(SECRET)
    yield server
    server.close()
    assert server.unverified == []


@pytest.fixture
def hooked_settings(receiver):
    """Settings that send every event to the receiver, retrying fast."""
    return {
        "WEBHOOK_URLS": receiver.url,
        "WEBHOOK_SECRET": SECRET,
        "WEBHOOK_MAX_ATTEMPTS": 3,
        "WEBHOOK_RETRY_DELAY": 0.05,
        "WEBHOOK_RETRY_MAX_DELAY": 0.2,
        "WEBHOOK_TIMEOUT": 1,
        "WEBHOOK_POLL_INTERVAL": 0.05,
        "WEBHOOK_RECEIVER_CONCURRENCY": 2,
    }


@pytest.fixture
def hooked(make_app, hooked_settings):
    """An app with webhooks on, its client, and its CLI."""
    app = make_app(**hooked_settings)
    return app, app.test_client(), app.test_cli_runner()


@pytest.fixture
def app_stack(make_app, database_url):
    """endpoint_stack in the test's process: stack(**settings) returns (server, admin, start),
    the server an app answering through Flask's test client, start(count=N, **overrides) its
    workers on event loops in threads (two on PostgreSQL, one on SQLite), each returned as
    (worker, log) as endpoint_stack's are (process, log path): worker.poll() and .stop(), and
    log.read_text(), the lines of every app of the test. Workers still running are stopped
    afterwards."""
    made = Stack(make_app)

    def stack(**settings):
        env = environment({**ENDPOINT_SETTINGS, **settings})
        server = made.server(env, TOKEN)
        admin = Admin(server, issue_admin_token(database_url))
        shared = 2 if database_url.startswith("postgresql") else 1

        def start(count=shared, **overrides):
            workers = made.start({**env, **environment(overrides)}, count)
            return [(worker, made.lines) for worker in workers]

        return server, admin, start

    yield stack
    made.stop()


@pytest.fixture
def name_server():
    """A name server of the test's own (support/name_servers.py), stopped after it."""
    server = NameServer()
    yield server
    server.close()


@pytest.fixture
def scripted():
    """make(answer, tls=None, host="127.0.0.1", closes=False): a ScriptedReceiver
    (harness/receivers.py) for the test, closed after it."""
    made = []

    def make(answer, tls=None, host="127.0.0.1", closes=False):
        made.append(ScriptedReceiver(answer, tls, host, closes))
        return made[-1]

    yield make
    for each in made:
        each.close()


@pytest.fixture
def paced():
    """make(answer, pause=PAUSE): a PacedReceiver (harness/receivers.py), closed after the test."""
    made = []

    def make(answer, pause=PAUSE):
        made.append(PacedReceiver(answer, pause))
        return made[-1]

    yield make
    for each in made:
        each.close()


@pytest.fixture
def served():
    """serve(app): app answering over real HTTP on a local port, from a thread of the test's
    process (werkzeug's server), where the process is not the point; its URL. Stopped after."""
    servers = []

    def serve(app):
        server = make_server("127.0.0.1", 0, app, threaded=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield serve
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def outbox(app):
    """Writes deliveries straight into the app's outbox (so many of each status, and rows of
    its own), then analyses it as PostgreSQL's autovacuum would; gives the app's Database."""
    db = database.of(app)

    def write(delivered=0, pending=0, failed=0, rows=()):
        written = delivery_rows("delivered", delivered) + delivery_rows("pending", pending)
        written += delivery_rows("failed", failed, receiver="https://other.example/")
        with db.engine.begin() as conn:
            conn.execute(insert(deliveries), [*written, *rows])
            if not db.is_sqlite:  # autovacuum's; the service never analyses a SQLite file
                conn.execute(text("ANALYZE"))
        return db

    return write
