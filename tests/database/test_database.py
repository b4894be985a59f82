"""The one way into the database: what each failure is called, on both backends."""

import os
import select
import signal
import sqlite3
import threading
import time

import pytest
from sqlalchemy import bindparam, insert
from sqlalchemy.exc import IntegrityError

from app import create_app, database
from app.database import Database, SchemaMissing, Statement, Unavailable, migrate
from app.plants.store import plants
from harness.processes import wait_for

INSERT = Statement(insert(plants).values(id=bindparam("id"), name=bindparam("name")))


@pytest.fixture
def db(app):
    """The app's Database, its schema created."""
    return database.of(app)


def test_a_transaction_commits_at_the_end_of_the_block(db):
    with db.transaction() as cursor:
        INSERT.execute(cursor, {"id": 1, "name": "Fern"})
    with db.cursor() as cursor:
        cursor.execute("SELECT name FROM plants WHERE id = 1")
        assert cursor.fetchall() == [("Fern",)]


def test_an_exception_in_the_block_rolls_back(db):
    with pytest.raises(RuntimeError), db.transaction() as cursor:
        INSERT.execute(cursor, {"id": 1, "name": "Fern"})
        raise RuntimeError("the block fails after its statement")
    with db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM plants")
        assert cursor.fetchone()[0] == 0


def test_a_constraint_is_still_sqlalchemys_integrity_error(db):
    with db.transaction() as cursor:
        INSERT.execute(cursor, {"id": 1, "name": "Fern"})
    with pytest.raises(IntegrityError), db.transaction() as cursor:
        INSERT.execute(cursor, {"id": 1, "name": "Fern"})


def test_a_missing_table_is_schema_missing(db):
    with pytest.raises(SchemaMissing), db.cursor() as cursor:
        cursor.execute("SELECT colour FROM plants")


def test_a_database_that_cannot_be_opened_is_unavailable(tmp_path, app):
    config = {**app.config, "DATABASE_URL": f"sqlite:///{tmp_path / 'none' / 'x.sqlite'}"}
    db = Database(config)
    with pytest.raises(Unavailable), db.cursor() as cursor:
        cursor.execute("SELECT 1")
    with pytest.raises(Unavailable):
        db.ping()


@pytest.fixture
def sqlite_db(tmp_path):
    """A Database on a SQLite file of its own, its schema created."""
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'own.sqlite'}"})
    db = database.of(app)
    migrate.upgrade(db)
    yield db
    db.dispose()


def _driver_connection(db):
    with db.cursor() as cursor:
        return cursor.connection


def _closed(connection):
    try:
        connection.execute("SELECT 1")
    except sqlite3.ProgrammingError:
        return True
    return False


def test_on_sqlite_a_thread_keeps_its_connection_and_one_that_ends_closes_its_own(sqlite_db):
    mine = _driver_connection(sqlite_db)
    theirs = []
    thread = threading.Thread(target=lambda: theirs.append(_driver_connection(sqlite_db)))
    thread.start()
    thread.join(timeout=10)
    assert _driver_connection(sqlite_db) is mine
    assert theirs[0] is not mine
    wait_for(lambda: _closed(theirs[0]), 5, "the ended thread's connection is still open")
    assert not _closed(mine)


def test_on_sqlite_a_connection_closed_under_a_thread_is_replaced_after_one_failure(sqlite_db):
    _driver_connection(sqlite_db).close()
    started = time.monotonic()
    with pytest.raises(Unavailable), sqlite_db.cursor() as cursor:
        cursor.execute("SELECT 1")
    with sqlite_db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM plants")
        assert cursor.fetchall() == [(0,)]
    assert time.monotonic() - started < 1


def test_on_sqlite_a_forked_child_leaves_its_parents_connection_alone(sqlite_db):
    parents = _driver_connection(sqlite_db)
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # the child: answer whether it was handed the parent's connection
        try:
            os.write(writing, b"shared" if _driver_connection(sqlite_db) is parents else b"own")
        finally:
            os._exit(0)
    os.close(writing)
    try:
        assert select.select([reading], [], [], 10)[0], "the child did not answer in 10 s"
        assert os.read(reading, 16) == b"own"
    finally:
        os.close(reading)
        os.kill(child, signal.SIGKILL)  # a child that hung after the fork is not waited for
        os.waitpid(child, 0)
    assert _driver_connection(sqlite_db) is parents
