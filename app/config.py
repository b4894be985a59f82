"""Settings: defaults, then ``PLANTSTORE_*`` environment variables, checked once at start-up."""

import difflib
import os
import re
from urllib.parse import urlsplit

import click
from flask import Config
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

DEFAULTS = {
    # None means "a SQLite file in the instance folder", resolved in load().
    "DATABASE_URL": None,
    "DATABASE_POOL_SIZE": 5,
    # Seconds a request may wait for the database: pool, connect, locks and each statement.
    "DATABASE_TIMEOUT": 10,
    "SQLITE_SYNCHRONOUS": "NORMAL",
    "API_TOKENS": "",
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "TRUSTED_PROXIES": 0,
    "WEBHOOK_URLS": "",
    "WEBHOOK_SECRET": "",
    "WEBHOOK_MAX_ATTEMPTS": 10,
    "WEBHOOK_RETRY_DELAY": 10,
    "WEBHOOK_RETRY_MAX_DELAY": 3600,
    "WEBHOOK_TIMEOUT": 5,
    "WEBHOOK_POLL_INTERVAL": 1,
    # Attempts in flight: in all, and to one receiver.
    "WEBHOOK_CONCURRENCY": 32,
    "WEBHOOK_RECEIVER_CONCURRENCY": 4,
    # Deliveries one claim may take for a receiver that answers, queued for its slots.
    "WEBHOOK_CLAIM_BATCH": 256,
    # Seconds a delivered delivery is kept, and how many old ones one transaction deletes.
    "WEBHOOK_RETENTION": 7 * 24 * 3600,
    "WEBHOOK_RETENTION_BATCH": 1000,
    "LOG_FORMAT": "text",
    "METRICS_TOKEN": "",
}

# Secrets and lists stay raw strings: from_prefixed_env would turn "123" into an int.
RAW_SETTINGS = ("API_TOKENS", "WEBHOOK_URLS", "WEBHOOK_SECRET", "METRICS_TOKEN")

# Shorter static tokens could be guessed; issued ones are 47 characters.
MIN_TOKEN_LENGTH = 32

# Variables with this prefix that are not settings of ours, but of the test suite.
OTHER_VARIABLES = ("PLANTSTORE_TEST_POSTGRES_URL",)

# RFC 6750 b64token: what Werkzeug reads back as a bearer token.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


class ConfigError(click.ClickException):
    """A setting has a value the service cannot run with.

    A ClickException, so that every command (flask's, plantstore's) ends with this one line.
    """


def load(app, overrides=None):
    """Fill app.config from defaults, the environment and overrides, then check it."""
    _read(app.config, overrides)
    if app.config["DATABASE_URL"] is None:
        os.makedirs(app.instance_path, exist_ok=True)
        path = os.path.join(app.instance_path, "plantstore.sqlite")
        app.config["DATABASE_URL"] = f"sqlite:///{path}"
    _check(app.config)


def check_environment():
    """Raise ConfigError unless the PLANTSTORE_* variables make a valid configuration."""
    config = Config(os.getcwd())
    _read(config)
    if config["DATABASE_URL"] is None:
        # The default file is in the app's instance folder, which only the app knows.
        config["DATABASE_URL"] = "sqlite://"
    _check(config)


def warn_unknown_variables(logger):
    """Log a warning for each PLANTSTORE_* variable that is no setting, with the closest one."""
    known = [f"PLANTSTORE_{key}" for key in DEFAULTS]
    for name in sorted(os.environ):
        if name.startswith("PLANTSTORE_") and name not in known + list(OTHER_VARIABLES):
            closest = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {closest[0]}?" if closest else ""
            logger.warning("%s is not a plantstore setting and is ignored%s", name, hint)


def _read(config, overrides=None):
    config.from_mapping(DEFAULTS)
    config.from_prefixed_env("PLANTSTORE")
    for key in RAW_SETTINGS:
        if f"PLANTSTORE_{key}" in os.environ:
            config[key] = os.environ[f"PLANTSTORE_{key}"]
    if overrides:
        config.from_mapping(overrides)


def _check(config):
    for key in ("DATABASE_POOL_SIZE", "MAX_CONTENT_LENGTH"):
        _require_int(config, key, minimum=1)
    _require_seconds(config, "DATABASE_TIMEOUT")
    _require_int(config, "TRUSTED_PROXIES", minimum=0)
    config["DATABASE_URL"] = _database_url(config["DATABASE_URL"])
    synchronous = str(config["SQLITE_SYNCHRONOUS"]).upper()
    if synchronous not in ("NORMAL", "FULL", "EXTRA"):
        raise ConfigError("PLANTSTORE_SQLITE_SYNCHRONOUS must be NORMAL, FULL or EXTRA")
    config["SQLITE_SYNCHRONOUS"] = synchronous
    config["API_TOKENS"] = _token_list(config["API_TOKENS"])
    for key in (
        "WEBHOOK_MAX_ATTEMPTS",
        "WEBHOOK_CONCURRENCY",
        "WEBHOOK_RECEIVER_CONCURRENCY",
        "WEBHOOK_CLAIM_BATCH",
        "WEBHOOK_RETENTION_BATCH",
    ):
        _require_int(config, key, minimum=1)
    for key in (
        "WEBHOOK_RETRY_DELAY",
        "WEBHOOK_RETRY_MAX_DELAY",
        "WEBHOOK_TIMEOUT",
        "WEBHOOK_POLL_INTERVAL",
        "WEBHOOK_RETENTION",
    ):
        _require_seconds(config, key)
    config["WEBHOOK_URLS"] = _webhook_urls(config["WEBHOOK_URLS"])
    if config["WEBHOOK_URLS"] and not config["WEBHOOK_SECRET"]:
        raise ConfigError("PLANTSTORE_WEBHOOK_SECRET must be set when PLANTSTORE_WEBHOOK_URLS is")
    log_format = str(config["LOG_FORMAT"]).lower()
    if log_format not in ("text", "json"):
        raise ConfigError(f"PLANTSTORE_LOG_FORMAT must be text or json, not {log_format!r}")
    config["LOG_FORMAT"] = log_format
    metrics_token = config["METRICS_TOKEN"]
    if metrics_token and (
        not isinstance(metrics_token, str) or len(metrics_token) < MIN_TOKEN_LENGTH
    ):
        raise ConfigError(
            f"PLANTSTORE_METRICS_TOKEN must be at least {MIN_TOKEN_LENGTH} characters long"
        )


def _require_int(config, key, minimum):
    value = config[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ConfigError(f"PLANTSTORE_{key} must be an integer >= {minimum}, not {value!r}")


def _require_seconds(config, key):
    value = config[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"PLANTSTORE_{key} must be a number of seconds > 0, not {value!r}")


def _split(value, name):
    if isinstance(value, (list, tuple)):
        return list(value)
    if not isinstance(value, str):
        raise ConfigError(f"PLANTSTORE_{name} must be a comma-separated list")
    return [item.strip() for item in value.split(",") if item.strip()]


def _webhook_urls(value):
    urls = _split(value, "WEBHOOK_URLS")
    for number, url in enumerate(urls, start=1):
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            # Numbered, not shown: a receiver URL may hold a password or a token.
            raise ConfigError(
                f"PLANTSTORE_WEBHOOK_URLS: receiver #{number} is not an http(s) URL with a host"
            )
    return tuple(urls)


def _database_url(value):
    if not isinstance(value, str):
        raise ConfigError("PLANTSTORE_DATABASE_URL must be a SQLAlchemy URL")
    # PaaS add-ons hand out postgres:// URLs, a scheme SQLAlchemy no longer accepts.
    if value.startswith("postgres://"):
        value = "postgresql+psycopg://" + value.removeprefix("postgres://")
    try:
        url = make_url(value)
    except ArgumentError as error:
        raise ConfigError(f"PLANTSTORE_DATABASE_URL is not a database URL: {error}") from None
    if url.get_backend_name() not in ("sqlite", "postgresql"):
        raise ConfigError("PLANTSTORE_DATABASE_URL must name sqlite or postgresql")
    return value


def _token_list(value):
    tokens = _split(value, "API_TOKENS")
    for number, token in enumerate(tokens, start=1):
        # The token itself is never shown: the message may end up in a log.
        if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
            raise ConfigError(
                f"PLANTSTORE_API_TOKENS: token #{number} is not a valid bearer token "
                "(letters, digits and -._~+/ only)"
            )
        if len(token) < MIN_TOKEN_LENGTH:
            raise ConfigError(
                f"PLANTSTORE_API_TOKENS: token #{number} has {len(token)} characters, fewer than "
                f"{MIN_TOKEN_LENGTH}; make one with: python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'"
            )
    return tuple(tokens)
