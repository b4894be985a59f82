"""Settings: defaults, then ``PLANTSTORE_*`` environment variables, checked once at start-up."""

import base64
import binascii
import difflib
import ipaddress
import os
import re
from urllib.parse import urlsplit

from flask import Config
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from .config_errors import (
    ConfigError,
    choice,
    integer,
    invalid,
    require_int,
    require_seconds,
    split_list,
)
from .ratelimit.settings import limit_setting, storage_url_setting

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
    # Attempts in flight: in all; to a receiver that fails; to one that answers, at most.
    "WEBHOOK_CONCURRENCY": 256,
    "WEBHOOK_RECEIVER_CONCURRENCY": 4,
    "WEBHOOK_RECEIVER_CONCURRENCY_MAX": 128,
    # Seconds a delivered delivery is kept, and how many old ones one transaction deletes.
    "WEBHOOK_RETENTION": 7 * 24 * 3600,
    "WEBHOOK_RETENTION_BATCH": 1000,
    # Endpoints registered through the API: CIDRs they may reach although not public; how many
    # at most; seconds an old secret still signs; seconds of failures before one is disabled.
    "WEBHOOK_ALLOWED_NETWORKS": "",
    "WEBHOOK_MAX_ENDPOINTS": 100,
    "WEBHOOK_SECRET_OVERLAP": 24 * 3600,
    "WEBHOOK_DISABLE_AFTER": 5 * 24 * 3600,
    # Fernet keys that endpoint secrets are stored encrypted with: the first encrypts.
    "WEBHOOK_KEYS": "",
    "LOG_FORMAT": "text",
    "METRICS_TOKEN": "",
    # Rate limits, as flask-limiter writes them ("100/second"); empty means no limit.
    "RATE_LIMIT": "",
    "RATE_LIMIT_UNAUTHENTICATED": "",
    "RATE_LIMIT_STORAGE_URL": "memory://",
    # Seconds a request may wait for the rate limit store.
    "RATE_LIMIT_STORAGE_TIMEOUT": 0.25,
    "RATE_LIMIT_FAIL": "open",
}

# Shorter static tokens could be guessed; issued ones are 47 characters.
MIN_TOKEN_LENGTH = 32

# Variables with this prefix that are not settings of ours, but of the test suite.
OTHER_VARIABLES = ("PLANTSTORE_TEST_POSTGRES_URL", "PLANTSTORE_TEST_REDIS_URL")

# RFC 6750 b64token: what Werkzeug reads back as a bearer token.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def load(app, overrides=None):
    """Fill app.config from defaults, the environment and overrides, then check it."""
    _read(app.config, overrides)
    if app.config["DATABASE_URL"] is None:
        os.makedirs(app.instance_path, exist_ok=True)
        path = os.path.join(app.instance_path, "plantstore.sqlite")
        app.config["DATABASE_URL"] = f"sqlite:///{path}"
    _check(app.config)


def check_environment():
    """The configuration the PLANTSTORE_* variables make; ConfigError unless it is valid."""
    config = Config(os.getcwd())
    _read(config)
    if config["DATABASE_URL"] is None:
        # The default file is in the app's instance folder, which only the app knows.
        config["DATABASE_URL"] = "sqlite://"
    _check(config)
    return config


def check_port():
    """Raise ConfigError unless PORT, which gunicorn binds to when it is set, is a port number.

    gunicorn's own answer to a bad one is a line without the variable's name, or a traceback.
    """
    port = os.environ.get("PORT")
    if port is not None and integer(port, 1, 65535) is None:
        raise invalid("PORT", "a port number from 1 to 65535", port)


def worker_count(default):
    """The number of gunicorn workers: WEB_CONCURRENCY, or default when it is not set."""
    given = os.environ.get("WEB_CONCURRENCY")
    if given is None:
        return default
    number = integer(given, 1)
    if number is None:
        raise invalid("WEB_CONCURRENCY", "an integer >= 1", given)
    return number


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
    # Each value stays the text it was given until its check converts it, so that a refusal
    # shows it as given (from_prefixed_env would read "1.0" as 1.0 and "true" as True).
    for key in DEFAULTS:
        if f"PLANTSTORE_{key}" in os.environ:
            config[key] = os.environ[f"PLANTSTORE_{key}"]
    if overrides:
        config.from_mapping(overrides)


def _check(config):
    for key in ("DATABASE_POOL_SIZE", "MAX_CONTENT_LENGTH"):
        require_int(config, key, minimum=1)
    require_seconds(config, "DATABASE_TIMEOUT")
    require_int(config, "TRUSTED_PROXIES", minimum=0)
    config["DATABASE_URL"] = _database_url(config["DATABASE_URL"])
    config["SQLITE_SYNCHRONOUS"] = choice(
        config, "SQLITE_SYNCHRONOUS", ("NORMAL", "FULL", "EXTRA"), str.upper
    )
    config["API_TOKENS"] = _token_list(config["API_TOKENS"])
    _check_webhooks(config)
    config["LOG_FORMAT"] = choice(config, "LOG_FORMAT", ("text", "json"), str.lower)
    metrics_token = config["METRICS_TOKEN"]
    if metrics_token and (
        not isinstance(metrics_token, str) or len(metrics_token) < MIN_TOKEN_LENGTH
    ):
        raise invalid(
            "PLANTSTORE_METRICS_TOKEN",
            f"at least {MIN_TOKEN_LENGTH} characters long",
            metrics_token,
        )
    _check_rate_limits(config)


def _check_webhooks(config):
    for key in (
        "WEBHOOK_MAX_ATTEMPTS",
        "WEBHOOK_CONCURRENCY",
        "WEBHOOK_RECEIVER_CONCURRENCY",
        "WEBHOOK_RETENTION_BATCH",
        "WEBHOOK_MAX_ENDPOINTS",
    ):
        require_int(config, key, minimum=1)
    require_int(
        config, "WEBHOOK_RECEIVER_CONCURRENCY_MAX", minimum=config["WEBHOOK_RECEIVER_CONCURRENCY"]
    )
    for key in (
        "WEBHOOK_RETRY_DELAY",
        "WEBHOOK_RETRY_MAX_DELAY",
        "WEBHOOK_TIMEOUT",
        "WEBHOOK_POLL_INTERVAL",
        "WEBHOOK_RETENTION",
        "WEBHOOK_SECRET_OVERLAP",
        "WEBHOOK_DISABLE_AFTER",
    ):
        require_seconds(config, key)
    config["WEBHOOK_ALLOWED_NETWORKS"] = _networks(config["WEBHOOK_ALLOWED_NETWORKS"])
    config["WEBHOOK_KEYS"] = _fernet_keys(config["WEBHOOK_KEYS"])
    config["WEBHOOK_URLS"] = _webhook_urls(config["WEBHOOK_URLS"])
    if config["WEBHOOK_URLS"] and not config["WEBHOOK_SECRET"]:
        raise invalid(
            "PLANTSTORE_WEBHOOK_SECRET",
            "set when PLANTSTORE_WEBHOOK_URLS is",
            config["WEBHOOK_SECRET"],
        )


def _webhook_urls(value):
    urls = split_list(value, "WEBHOOK_URLS")
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname or not _port_ok(parts):
            raise invalid(
                "PLANTSTORE_WEBHOOK_URLS",
                "comma-separated http(s) URLs with a host, and a port of 1 to 65535 if any",
                value,
            )
    return tuple(urls)


def _port_ok(parts):
    # urlsplit reads the port only when asked, and raises then: a worker's traceback, later.
    try:
        return parts.port != 0
    except ValueError:
        return False


def _networks(value):
    networks = []
    for cidr in split_list(value, "WEBHOOK_ALLOWED_NETWORKS"):
        try:
            networks.append(ipaddress.ip_network(cidr, strict=False))
        except ValueError:
            raise invalid(
                "PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS", "comma-separated CIDRs", value
            ) from None
    return tuple(networks)


def _fernet_keys(value):
    keys = split_list(value, "WEBHOOK_KEYS")
    for number, key in enumerate(keys, start=1):
        # The key itself is never shown: the message may end up in a log.
        if not isinstance(key, str) or len(_urlsafe_b64decode(key)) != 32:
            raise ConfigError(
                f"PLANTSTORE_WEBHOOK_KEYS: key #{number} is not a Fernet key (the url-safe "
                "base64 of 32 bytes, as Fernet.generate_key() prints it)"
            )
    return tuple(keys)


def _urlsafe_b64decode(text):
    # The check Fernet makes of a key, without loading cryptography in every process.
    try:
        return base64.urlsafe_b64decode(text.encode("ascii"))
    except (ValueError, binascii.Error):
        return b""


def _database_url(value):
    expected = "a SQLAlchemy URL naming sqlite or postgresql"
    if not isinstance(value, str):
        raise invalid("PLANTSTORE_DATABASE_URL", expected, value)
    # PaaS add-ons hand out postgres:// URLs, a scheme SQLAlchemy no longer accepts.
    url = value
    if url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    try:
        backend = make_url(url).get_backend_name()
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        backend = None
    if backend not in ("sqlite", "postgresql"):
        raise invalid("PLANTSTORE_DATABASE_URL", expected, value)
    return url


def _check_rate_limits(config):
    for key in ("RATE_LIMIT", "RATE_LIMIT_UNAUTHENTICATED"):
        config[key] = limit_setting(f"PLANTSTORE_{key}", config[key])
    url = config["RATE_LIMIT_STORAGE_URL"]
    config["RATE_LIMIT_STORAGE_URL"] = storage_url_setting(url)
    require_seconds(config, "RATE_LIMIT_STORAGE_TIMEOUT")
    config["RATE_LIMIT_FAIL"] = choice(config, "RATE_LIMIT_FAIL", ("open", "closed"), str.lower)


def _token_list(value):
    tokens = split_list(value, "API_TOKENS")
    for number, token in enumerate(tokens, start=1):
        # The token itself is never shown: the message may end up in a log.
        if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
            raise ConfigError(
                f"PLANTSTORE_API_TOKENS: token #{number}, of {len(str(token))} characters, is "
                "not a valid bearer token (letters, digits and -._~+/ only)"
            )
        if len(token) < MIN_TOKEN_LENGTH:
            raise ConfigError(
                f"PLANTSTORE_API_TOKENS: token #{number} has {len(token)} characters, fewer than "
                f"{MIN_TOKEN_LENGTH}; make one with: python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'"
            )
    return tuple(tokens)
