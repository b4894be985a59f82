"""Every wait on the database is bounded: a held or frozen lock or server is a 503 in time.

A lock held by another program is judged by an app in this process (its wait is the app's
code, whoever serves it); a frozen gunicorn worker and a frozen PostgreSQL on real processes."""

import os
import signal
import threading
import time

import pytest
from sqlalchemy import make_url
from sqlalchemy.exc import DataError

from app import create_app, database
from app.database import migrate
from harness.client import http_request
from harness.processes import wait_for
from support.errors import assert_error
from support.locks import Holder
from support.tokens import TOKEN

UNAVAILABLE = {"error": 503, "message": "database unavailable"}
BEARER = {"Authorization": f"Bearer {TOKEN}"}
# What a request may take beyond PLANTSTORE_DATABASE_TIMEOUT: the HTTP exchange and the answer.
MARGIN = 1.5


def timed(server, method, path, body=None):
    """One request to server, and how many seconds it took."""
    started = time.monotonic()
    response = server.request(method, path, body)
    return response, time.monotonic() - started


def timed_call(client, method, path, body=None):
    """One request through a test client, and how many seconds it took."""
    started = time.monotonic()
    response = client.open(path, method=method, json=body, headers=BEARER)
    return response, time.monotonic() - started


@pytest.fixture
def sqlite_app(tmp_path):
    """A test client of an app on a SQLite file with a 1 s database timeout, holding plant 1;
    and the file's path."""
    path = tmp_path / "faults.sqlite"
    settings = {"DATABASE_URL": f"sqlite:///{path}", "API_TOKENS": TOKEN, "DATABASE_TIMEOUT": 1}
    app = create_app({"TESTING": True, **settings})
    migrate.upgrade(database.of(app))
    client = app.test_client()
    assert timed_call(client, "POST", "/plants", {"id": 1, "name": "Fern"})[0].status_code == 200
    yield client, path
    database.of(app).dispose()


def test_frozen_holder_of_the_writer_lock_costs_a_write_only_the_timeout(sqlite_app):
    client, path = sqlite_app
    holder = Holder("flock", f"{path}-writer")
    holder.freeze()
    try:
        response, seconds = timed_call(client, "POST", "/plants", {"id": 2, "name": "Aloe"})
        assert response.status_code == 503 and response.get_json() == UNAVAILABLE
        assert 1 <= seconds < 1 + MARGIN
        # Readers never wait for writers, so reads and readiness go on.
        for path_read in ("/healthz", "/plants/1"):
            response, seconds = timed_call(client, "GET", path_read)
            assert response.status_code == 200 and seconds < MARGIN
    finally:
        holder.end()
    response, seconds = timed_call(client, "POST", "/plants", {"id": 2, "name": "Aloe"})
    assert response.status_code == 200 and seconds < MARGIN


def flock_holders(path):
    """The pids that hold (not wait for) a flock on the file at path, from /proc/locks."""
    stat = os.stat(path)
    file_id = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    holders = set()
    with open("/proc/locks") as locks:
        for fields in map(str.split, locks):
            # id, FLOCK, ADVISORY, WRITE, pid, device:inode, start, end; waiters add "->".
            if fields[1] == "FLOCK" and fields[5] == file_id:
                holders.add(int(fields[4]))
    return holders


def is_stopped(pid):
    """Whether the process is stopped by a signal (state T in /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().rpartition(")")[2].split()[0] == "T"


def stop_the_holder(lock_file):
    """SIGSTOP the process that takes the flock on lock_file, lock held; return its pid."""
    wait_for(lambda: flock_holders(lock_file), 5, "a process to take the lock")
    (holder,) = flock_holders(lock_file)
    os.kill(holder, signal.SIGSTOP)
    wait_for(lambda: is_stopped(holder), 5, "the holder to stop")
    assert flock_holders(lock_file) == {holder}, "the holder let go before it stopped"
    return holder


def concurrently(server, requests):
    """Send requests (method, path, body) at once; return (status, body, seconds) of each."""
    barrier, results = threading.Barrier(len(requests)), [None] * len(requests)

    def send(number, method, path, body):
        barrier.wait()
        started = time.monotonic()
        response = server.request(method, path, body)
        results[number] = (response.status, response.json(), time.monotonic() - started)

    threads = [
        threading.Thread(target=send, args=(number, *request))
        for number, request in enumerate(requests)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def freeze_a_worker_in_its_turn(server, path):
    """SIGSTOP the worker serving a create while it holds the writer lock of the database at
    path; its pid, and the thread whose create it is serving."""
    # SQLite's own lock, held elsewhere, keeps the worker that serves the create inside its
    # turn on the writer lock, waiting for SQLite, for up to the 3 s timeout: long enough to
    # find that worker and stop it, and the check after SIGSTOP proves it still holds the lock.
    sqlite_holder = Holder("sqlite", path)
    frozen_create = threading.Thread(
        target=http_request,
        args=(server.port, "POST", "/plants", {"id": 2, "name": "Aloe"}),
        kwargs={"headers": {"Authorization": f"Bearer {TOKEN}"}},
    )
    frozen_create.start()
    try:
        return stop_the_holder(f"{path}-writer"), frozen_create
    finally:
        sqlite_holder.end()


@pytest.mark.e2e
def test_stopped_worker_holding_the_writer_lock_queues_no_request_of_the_other(
    live_server, tmp_path
):
    path = tmp_path / "frozen.sqlite"
    server = live_server(f"sqlite:///{path}", workers=2, PLANTSTORE_DATABASE_TIMEOUT="3")
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    lock_file = f"{path}-writer"
    worker, frozen_create = freeze_a_worker_in_its_turn(server, path)
    try:
        results = concurrently(
            server,
            [
                ("POST", "/plants", {"id": 3, "name": "Ivy"}),
                ("POST", "/plants", {"id": 4, "name": "Moss"}),
                ("POST", "/plants", {"id": 5, "name": "Sage"}),
                ("GET", "/plants/1", None),
                ("GET", "/healthz", None),
            ],
        )
        assert is_stopped(worker) and flock_holders(lock_file) == {worker}
    finally:
        os.kill(worker, signal.SIGCONT)
        frozen_create.join(timeout=30)
    for status, body, seconds in results[:3]:
        assert (status, body) == (503, UNAVAILABLE)
        assert seconds < 3 + 2
    assert results[3][:2] == (200, {"id": 1, "name": "Fern"}) and results[3][2] < 3 + 2
    assert results[4][:2] == (200, {"status": "ok"}) and results[4][2] < 3 + 2
    # Once the holder goes on, it finishes and lets go: writes are served again.
    wait_for(
        lambda: server.request("POST", "/plants", {"id": 6, "name": "Rue"}).status == 200,
        3 + 2,
        "a create to succeed after SIGCONT",
    )


def test_sqlite_locked_by_another_program_is_503_within_the_timeout(sqlite_app):
    client, path = sqlite_app
    holder = Holder("sqlite", path)
    try:
        response, seconds = timed_call(client, "POST", "/plants", {"id": 2, "name": "Aloe"})
        assert response.status_code == 503 and response.get_json() == UNAVAILABLE
        assert 1 <= seconds < 1 + MARGIN
    finally:
        holder.end()
    assert timed_call(client, "POST", "/plants", {"id": 2, "name": "Aloe"})[0].status_code == 200


def test_writer_lock_file_that_cannot_be_made_is_503(auth_headers, tmp_path):
    path = tmp_path / "plantstore.sqlite"
    (tmp_path / "plantstore.sqlite-writer").mkdir()  # no file can be opened at that path
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{path}", "API_TOKENS": TOKEN})
    started = time.monotonic()
    response = app.test_client().post(
        "/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers
    )
    assert assert_error(response, 503) == "database unavailable"
    assert time.monotonic() - started < MARGIN
    database.of(app).dispose()


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
            assert response.headers["Retry-After"] == "5", path
            assert seconds < 2 + MARGIN, path
    finally:
        private_postgres.thaw()
    wait_for(lambda: server.request("GET", "/healthz").status == 200, 10, "recovery")
    assert server.request("POST", "/plants", {"id": 2, "name": "Aloe"}).status == 200


def test_a_rollback_the_server_never_answers_leaves_the_statement_s_own_failure(
    private_postgres,
):
    # A statement fails as the budget runs out, and the rollback after it cannot end (a loaded
    # machine, a server gone silent): the statement's failure stands, within the timeout, and
    # the connection is dropped rather than pooled in an unknown state.
    settings = {"DATABASE_URL": private_postgres.url, "API_TOKENS": TOKEN, "DATABASE_TIMEOUT": 2}
    db = database.of(create_app({"TESTING": True, **settings}))
    with db.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (before,) = cursor.fetchone()
    started = time.monotonic()
    try:
        with pytest.raises(DataError), db.transaction() as cursor:
            try:
                cursor.execute("SELECT 1 / 0")
            except Exception:
                private_postgres.freeze()
                raise
        assert time.monotonic() - started < 2 + MARGIN
    finally:
        private_postgres.thaw()
    with db.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != before
    db.dispose()


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
    db = database.of(app)
    with db.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('TimeZone'), current_setting('statement_timeout'), "
            "current_setting('lock_timeout')"
        )
        assert cursor.fetchone() == ("Pacific/Kiritimati", "3s", "3s")
    db.dispose()
