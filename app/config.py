"""Settings: defaults, then ``PLANTSTORE_*`` environment variables, checked once at start-up."""

import os
import re
from urllib.parse import urlsplit

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
}

# Secrets and lists stay raw strings: from_prefixed_env would turn "123" into an int.
RAW_SETTINGS = ("API_TOKENS", "WEBHOOK_URLS", "WEBHOOK_SECRET")

# RFC 6750 b64token: what Werkzeug reads back as a bearer token.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


class ConfigError(ValueError):
    """A setting has a value the service cannot run with."""


def load(app, overrides=None):
    """Fill app.config from defaults, the environment and overrides, then check it."""
    app.config.from_mapping(DEFAULTS)
    app.config.from_prefixed_env("PLANTSTORE")
    for key in RAW_SETTINGS:
        if f"PLANTSTORE_{key}" in os.environ:
            app.config[key] = os.environ[f"PLANTSTORE_{key}"]
    if overrides:
        app.config.from_mapping(overrides)
    if app.config["DATABASE_URL"] is None:
        os.makedirs(app.instance_path, exist_ok=True)
        path = os.path.join(app.instance_path, "plantstore.sqlite")
        app.config["DATABASE_URL"] = f"sqlite:///{path}"
    _check(app.config)


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
    _require_int(config, "WEBHOOK_MAX_ATTEMPTS", minimum=1)
    for key in (
        "WEBHOOK_RETRY_DELAY",
        "WEBHOOK_RETRY_MAX_DELAY",
        "WEBHOOK_TIMEOUT",
        "WEBHOOK_POLL_INTERVAL",
    ):
        _require_seconds(config, key)
    config["WEBHOOK_URLS"] = _webhook_urls(config["WEBHOOK_URLS"])
    if config["WEBHOOK_URLS"] and not config["WEBHOOK_SECRET"]:
        raise ConfigError("PLANTSTORE_WEBHOOK_SECRET must be set when PLANTSTORE_WEBHOOK_URLS is")


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
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(f"PLANTSTORE_WEBHOOK_URLS: {url!r} is not an http(s) URL")
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
    for token in tokens:
        if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
            raise ConfigError(
                "PLANTSTORE_API_TOKENS holds a token that is not a valid bearer token "
                "(letters, digits and -._~+/ only)"
            )
    return tuple(tokens)
