"""The database's settings, declared once: app/config.py checks them with every other at
start, and the database reads the checked values of app.config."""

import os

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from ..config_errors import at_least, invalid, one_of, seconds
from ..config_spec import Feature, Setting


def _database_url(variable, value):
    # None, the default, is a file in the app's instance folder, which only the app knows.
    if value is None:
        return None
    expected = "a SQLAlchemy URL naming sqlite or postgresql"
    if not isinstance(value, str):
        raise invalid(variable, expected, value)
    # PaaS add-ons hand out postgres:// URLs, a scheme SQLAlchemy no longer accepts.
    url = value
    if url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        parsed = None
    if parsed is None or parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise invalid(variable, expected, value)
    # An in-memory database would be one per connection of each process: nothing shared.
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise invalid(variable, "a SQLite URL naming a file, not an in-memory database", value)
    return url


FEATURE = Feature(
    "The database",
    (
        Setting(
            "DATABASE_URL",
            None,
            _database_url,
            "`sqlite:///path` or `postgresql+psycopg://user@host/db` (`postgres://` is accepted "
            "too)",
            "`instance/plantstore.sqlite`",
        ),
        Setting(
            "DATABASE_POOL_SIZE",
            5,
            at_least(1),
            "connections per worker process (no overflow); on SQLite each thread keeps one of "
            "its own and the pool serves migrations alone (see "
            "[decisions](decisions.md#why-each-thread-keeps-its-own-sqlite-connection))",
        ),
        Setting(
            "DATABASE_TIMEOUT",
            10,
            seconds,
            "seconds one use of the database may wait in all (pool, connect, locks, "
            "statements); then 503 (see [durability](durability.md#every-wait-is-bounded)). "
            "Replaces `SQLITE_BUSY_TIMEOUT` and `DATABASE_POOL_TIMEOUT`",
        ),
        Setting(
            "SQLITE_SYNCHRONOUS",
            "NORMAL",
            one_of(("NORMAL", "FULL", "EXTRA"), str.upper),
            "SQLite `synchronous` pragma: `NORMAL`, `FULL` or `EXTRA` (see "
            "[durability](durability.md))",
        ),
    ),
)


def init_app(app):
    """Set DATABASE_URL's default in app.config: the SQLite file of the app's instance folder."""
    if app.config["DATABASE_URL"] is None:
        os.makedirs(app.instance_path, exist_ok=True)
        path = os.path.join(app.instance_path, "plantstore.sqlite")
        app.config["DATABASE_URL"] = f"sqlite:///{path}"
