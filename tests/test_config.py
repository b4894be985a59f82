"""Settings checked once at start-up: a bad one stops every command and the server, in one line."""

import logging
import os
from typing import Any

import pytest

from app import FEATURES
from app.__main__ import main as plantstore_main
from app.config import ConfigError
from app.config_spec import defaults
from app.events.settings import EventSettings
from app.ratelimit.settings import RateLimitSettings
from app.webhooks.settings import WebhookSettings
from harness.processes import free_port
from support.refusals import FLASK, GUNICORN, gunicorn_refused_here, refused, refused_here
from support.tokens import TOKEN

# Each setting the service reads, a bad value for it, and what its one line must show of it:
# the value as given, a URL's password hidden, a secret's length only.
BAD_SETTINGS = [
    ("PLANTSTORE_DATABASE_URL", "mysql://db/x", "'mysql://db/x'"),
    ("PLANTSTORE_DATABASE_URL", "sqlite://", "'sqlite://'"),
    ("PLANTSTORE_DATABASE_URL", "mysql://me:db-password@db/x", "'mysql://me:***@db/x'"),
    ("PLANTSTORE_DATABASE_URL", "postgresql://me:db-password@db:port/x", "'postgresql://me:***@"),
    ("PLANTSTORE_DATABASE_POOL_SIZE", "many", "'many'"),
    ("PLANTSTORE_DATABASE_TIMEOUT", "nan", "'nan'"),
    ("PLANTSTORE_SQLITE_SYNCHRONOUS", "OFF", "'OFF'"),
    ("PLANTSTORE_API_TOKENS", f"{TOKEN},short-static-token", "18 characters"),
    ("PLANTSTORE_MAX_CONTENT_LENGTH", "0", "'0'"),
    ("PLANTSTORE_TRUSTED_PROXIES", "-1", "'-1'"),
    ("PLANTSTORE_WEBHOOK_URLS", "https://me:hook-password@a.example/h,ftp://x/h", "***@a.example"),
    ("PLANTSTORE_WEBHOOK_URLS", "https://a.example/h?token=hook-token,ftp://x/h", "'https://a."),
    ("PLANTSTORE_WEBHOOK_URLS", "http://h:99999/", "'http://h:99999/'"),
    ("PLANTSTORE_WEBHOOK_SECRET", "", "not empty"),
    ("PLANTSTORE_WEBHOOK_PAYLOAD", "EVENT", "'EVENT'"),
    ("PLANTSTORE_WEBHOOK_PAYLOAD", "full", "plant, event or thin"),
    ("PLANTSTORE_WEBHOOK_MAX_ATTEMPTS", "1.5", "'1.5'"),
    ("PLANTSTORE_WEBHOOK_RETRY_DELAY", "soon", "'soon'"),
    ("PLANTSTORE_WEBHOOK_RETRY_MAX_DELAY", "0", "'0'"),
    ("PLANTSTORE_WEBHOOK_TIMEOUT", "-5", "'-5'"),
    ("PLANTSTORE_WEBHOOK_POLL_INTERVAL", "true", "'true'"),
    ("PLANTSTORE_WEBHOOK_CONCURRENCY", "0", "'0'"),
    ("PLANTSTORE_WEBHOOK_RECEIVER_CONCURRENCY", "x", "'x'"),
    # Below the floor a failing receiver is held to (4 by default).
    ("PLANTSTORE_WEBHOOK_RECEIVER_CONCURRENCY_MAX", "3", "'3'"),
    ("PLANTSTORE_WEBHOOK_RETENTION", "a week", "'a week'"),
    ("PLANTSTORE_EVENT_RETENTION", "a month", "'a month'"),
    ("PLANTSTORE_WEBHOOK_RETENTION_BATCH", "0", "'0'"),
    ("PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS", "127.0.0.0/8,intranet", "'127.0.0.0/8,intranet'"),
    ("PLANTSTORE_WEBHOOK_NAMESERVERS", "10.0.0.2,dns.example", "'10.0.0.2,dns.example'"),
    ("PLANTSTORE_WEBHOOK_NAMESERVERS", "10.0.0.2:99999", "'10.0.0.2:99999'"),
    ("PLANTSTORE_WEBHOOK_MAX_ENDPOINTS", "0", "'0'"),
    ("PLANTSTORE_WEBHOOK_SECRET_OVERLAP", "a day", "'a day'"),
    ("PLANTSTORE_WEBHOOK_DISABLE_AFTER", "-1", "'-1'"),
    ("PLANTSTORE_WEBHOOK_KEYS", "short-fernet-key", "key #1 is not a Fernet key"),
    ("PLANTSTORE_LOG_FORMAT", "xml", "'xml'"),
    ("PLANTSTORE_METRICS_TOKEN", "short-metrics-token", "a value of 19 characters"),
    ("PLANTSTORE_RATE_LIMIT", "5 per fortnight", "'5 per fortnight'"),
    ("PLANTSTORE_RATE_LIMIT_UNAUTHENTICATED", "many", "'many'"),
    ("PLANTSTORE_RATE_LIMIT_STORAGE_URL", "memcached://h:11211", "'memcached://h:11211'"),
    ("PLANTSTORE_RATE_LIMIT_STORAGE_URL", "redis://h:port/0", "'redis://h:port/0'"),
    (
        "PLANTSTORE_RATE_LIMIT_STORAGE_URL",
        "redis://me:redis-password@h:6379/x",
        "'redis://me:***@h:6379/x'",
    ),
    ("PLANTSTORE_RATE_LIMIT_STORAGE_TIMEOUT", "0", "'0'"),
    ("PLANTSTORE_RATE_LIMIT_FAIL", "Maybe", "'Maybe'"),
]
# gunicorn's own PaaS variables, which gunicorn.conf.py reads too.
BAD_SERVER_SETTINGS = [
    ("PORT", "99999", "'99999'"),
    ("PORT", "http", "'http'"),
    ("WEB_CONCURRENCY", "0", "'0'"),
]


def bad_setting(variable, value):
    """The variables that make value for variable the one bad setting."""
    if variable == "PLANTSTORE_WEBHOOK_SECRET":
        return {"PLANTSTORE_WEBHOOK_URLS": "https://hooks.example/h", variable: value}
    return {variable: value}


def cases(settings):
    """pytest params of (variable, value, shown), named after the variable and value."""
    return [pytest.param(*case, id=f"{case[0]}={case[1]!r}") for case in settings]


@pytest.fixture
def environment(tmp_path):
    """The environment of a command on a fresh SQLite file, with no PLANTSTORE_* leaking in."""
    clean = {key: value for key, value in os.environ.items() if not key.startswith("PLANTSTORE_")}
    return {
        **clean,
        "PLANTSTORE_DATABASE_URL": f"sqlite:///{tmp_path / 'plantstore.sqlite'}",
        "PLANTSTORE_API_TOKENS": TOKEN,
    }


def test_every_setting_has_a_bad_value_case():
    assert {case[0] for case in BAD_SETTINGS} == {f"PLANTSTORE_{key}" for key in defaults(FEATURES)}


def test_every_setting_is_declared_once():
    names = [setting.name for feature in FEATURES for setting in feature.settings]
    assert sorted(name for name in set(names) if names.count(name) > 1) == []


@pytest.mark.parametrize("typed", [WebhookSettings, RateLimitSettings, EventSettings])
def test_typed_settings_say_each_field_s_type_as_its_converter_returns_it(typed):
    assert [name for name, kind in typed.__annotations__.items() if kind is Any] == []


@pytest.mark.parametrize(("variable", "value", "shown"), cases(BAD_SETTINGS))
def test_bad_setting_stops_a_command_with_one_line_showing_the_value(
    environment, variable, value, shown
):
    line = refused_here(["init-db"], {**environment, **bad_setting(variable, value)})
    assert f"{variable} must be" in line or f"{variable}: " in line
    assert shown in line


def test_bad_setting_stops_a_command_process_with_the_line_seen_in_process(environment):
    env = {**environment, "PLANTSTORE_SQLITE_SYNCHRONOUS": "OFF"}
    line = refused([*FLASK, "init-db"], env)
    assert line == refused_here(["init-db"], env)
    assert line == refused_here(["init-db"], env, command=plantstore_main)


def test_bad_setting_stops_the_webhook_worker_process_with_the_line_seen_in_process(environment):
    env = {**environment, "PLANTSTORE_WEBHOOK_MAX_ATTEMPTS": "1.5"}
    line = refused([*FLASK, "webhooks", "run"], env)
    assert "PLANTSTORE_WEBHOOK_MAX_ATTEMPTS must be" in line
    assert line == refused_here(["init-db"], env)


@pytest.mark.parametrize(
    ("variable", "value", "shown"), cases(BAD_SETTINGS) + cases(BAD_SERVER_SETTINGS)
)
def test_bad_setting_stops_gunicorn_with_one_line_showing_the_value(
    environment, monkeypatch, tmp_path, variable, value, shown
):
    env = {**environment, "PORT": str(free_port()), **bad_setting(variable, value)}
    line = gunicorn_refused_here(env, monkeypatch, tmp_path / "metrics")
    assert f"{variable} must be" in line or f"{variable}: " in line
    assert shown in line


@pytest.mark.e2e
def test_bad_setting_stops_a_gunicorn_process_with_the_line_seen_in_process(
    environment, monkeypatch, tmp_path
):
    url = "mysql://me:db-password@db/x"
    env = {**environment, "PORT": str(free_port()), "PLANTSTORE_DATABASE_URL": url}
    line = refused(GUNICORN, env)
    assert "PLANTSTORE_DATABASE_URL must be" in line
    assert "'mysql://me:***@db/x'" in line
    assert "Worker failed to boot" not in line
    assert line == gunicorn_refused_here(env, monkeypatch, tmp_path / "metrics")


def test_unopenable_sqlite_file_is_one_line(environment, tmp_path):
    url = f"sqlite:///{tmp_path / 'no-such-folder' / 'plantstore.sqlite'}"
    line = refused_here(["init-db"], {**environment, "PLANTSTORE_DATABASE_URL": url})
    for name in ("database unavailable", "PLANTSTORE_DATABASE_URL", url):
        assert name in line


def test_unreachable_postgresql_is_one_line(environment):
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/plantstore"
    line = refused_here(["tokens", "list"], {**environment, "PLANTSTORE_DATABASE_URL": url})
    for name in ("database unavailable", "PLANTSTORE_DATABASE_URL", url):
        assert name in line


@pytest.mark.parametrize(
    "args",
    [("tokens", "create", "ci"), ("tokens", "list"), ("webhooks", "status")],
    ids=" ".join,
)
def test_command_before_init_db_is_one_line_saying_what_to_do(database_url, environment, args):
    line = refused_here(list(args), {**environment, "PLANTSTORE_DATABASE_URL": database_url})
    assert "database schema is not initialised or out of date" in line
    assert "run `flask --app wsgi init-db`" in line


# SQLite alone: the app plantstore makes is out of reach, and a PostgreSQL one's connections
# would be left open.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_the_plantstore_command_names_itself_in_what_to_run(database_url, environment):
    env = {**environment, "PLANTSTORE_DATABASE_URL": database_url}
    line = refused_here(["tokens", "list"], env, command=plantstore_main)
    assert "database schema is not initialised or out of date" in line
    assert "run `plantstore init-db`" in line


def test_unknown_variable_is_a_warning_naming_the_closest_setting(make_app, monkeypatch, caplog):
    monkeypatch.setenv("PLANTSTORE_DATABSE_URL", "sqlite:///elsewhere.sqlite")
    with caplog.at_level(logging.WARNING):
        make_app()
    (warning,) = [
        r.getMessage() for r in caplog.records if "PLANTSTORE_DATABSE_URL" in r.getMessage()
    ]
    assert "did you mean PLANTSTORE_DATABASE_URL?" in warning


@pytest.mark.parametrize("token", ["x" * 31, "pst_" + "a" * 27])
def test_static_token_shorter_than_32_characters_is_refused(make_app, token):
    with pytest.raises(ConfigError, match="PLANTSTORE_API_TOKENS") as refused:
        make_app(API_TOKENS=f"{TOKEN},{token}")
    assert token not in str(refused.value)  # the message may reach a log: no secret in it


def test_static_token_of_32_characters_is_accepted(make_app):
    token = "y" * 32
    client = make_app(API_TOKENS=token).test_client()
    assert client.get("/plants", headers={"Authorization": f"Bearer {token}"}).status_code == 200
