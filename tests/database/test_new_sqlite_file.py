"""A new SQLite file that another connection writes: the switch to WAL waits for it.

SQLite gives up a switch to WAL at once, without its busy handler, while another connection
holds the file's write lock in its old journal mode, as another switch does. `honcho start` on
a new checkout runs two init-dbs at once, and one of them died of "database is locked". SQLite
locks a file alike for connections of one process and of two: the writer is the test's own.
"""

import sqlite3
import threading
import time

from app import create_app, database
from support.tokens import TOKEN

# What init-db may take beyond the wait: Alembic's import and the migrations.
MARGIN = 1.5


def init_db(path, timeout):
    """Run init-db on the file at path; its result and the seconds it took."""
    settings = {"DATABASE_URL": f"sqlite:///{path}", "API_TOKENS": TOKEN}
    app = create_app({"TESTING": True, **settings, "DATABASE_TIMEOUT": timeout})
    started = time.monotonic()
    try:
        result = app.test_cli_runner().invoke(args=["init-db"])
    finally:
        database.of(app).dispose()
    return result, time.monotonic() - started


def writer(path):
    """A connection to a new file at path, holding its write lock in the old journal mode
    (BEGIN IMMEDIATE), which another thread may end (rollback)."""
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    connection.execute("BEGIN IMMEDIATE")
    return connection


def journal_mode(path):
    """The journal mode the file at path keeps."""
    connection = sqlite3.connect(path)
    try:
        return connection.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        connection.close()


def test_a_new_file_another_connection_writes_is_migrated_once_the_write_ends(tmp_path):
    path = tmp_path / "new.sqlite"
    holding = writer(path)
    ending = threading.Timer(0.5, holding.rollback)
    ending.start()
    try:
        result, seconds = init_db(path, timeout=3)
    finally:
        ending.join()
        holding.close()
    assert result.exit_code == 0, result.output
    assert result.output == "Database schema is ready.\n"
    assert 0.5 <= seconds < 0.5 + MARGIN
    assert journal_mode(path) == "wal"


def test_a_new_file_written_past_the_timeout_ends_init_db_in_one_line_in_time(tmp_path):
    path = tmp_path / "new.sqlite"
    holding = writer(path)
    try:
        result, seconds = init_db(path, timeout=1)
    finally:
        holding.close()
    assert result.exit_code == 1
    assert result.output.startswith("Error: database unavailable (database is locked): check")
    assert 1 <= seconds < 1 + MARGIN
