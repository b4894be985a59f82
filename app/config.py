"""Settings: defaults, then ``PLANTSTORE_*`` environment variables, checked once at start-up."""

import difflib
import os
import re

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

# Every setting: those every part shares, here, and each feature's own, added by add_feature.
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

# The checks of the features' own settings, which app/__init__.py adds (add_feature): importing
# app.config runs app/__init__.py first, so no process reads the settings without them.
_FEATURE_CHECKS = []

# Shorter static tokens could be guessed; issued ones are 47 characters.
MIN_TOKEN_LENGTH = 32

# Variables with this prefix that are not settings of ours, but of the test suite.
OTHER_VARIABLES = ("PLANTSTORE_TEST_POSTGRES_URL", "PLANTSTORE_TEST_REDIS_URL")

# RFC 6750 b64token: what Werkzeug reads back as a bearer token.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")


def add_feature(defaults, check):
    """Read a feature's settings with these: its defaults (a dict), and check(config), which
    converts each of them in place and raises the ConfigError of the first bad one."""
    DEFAULTS.update(defaults)
    _FEATURE_CHECKS.append(check)


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
    # The features' settings: after those they stand on, before logs, metrics and limits.
    for check in _FEATURE_CHECKS:
        check(config)
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
