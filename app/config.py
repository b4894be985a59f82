"""Settings: defaults, then ``PLANTSTORE_*`` environment variables, checked once at start-up.

The features whose settings they are come from create_app (and gunicorn.conf.py), each
declared once in its own module as a Feature (app/config_spec.py); CORE, here, is the settings
no one feature owns.
"""

import difflib
import os
import re

from flask import Config

from .config_errors import ConfigError, at_least, integer, invalid, one_of, split_list
from .config_spec import PREFIX, Feature, Setting, check, defaults

# Shorter static tokens could be guessed; issued ones are 47 characters.
MIN_TOKEN_LENGTH = 32

# Variables with this prefix that are not settings of ours, but of the test suite.
OTHER_VARIABLES = ("PLANTSTORE_TEST_POSTGRES_URL", "PLANTSTORE_TEST_REDIS_URL")

# RFC 6750 b64token: what Werkzeug reads back as a bearer token.
TOKEN_RE = re.compile(r"[A-Za-z0-9\-._~+/]+=*")

# Where the app keeps the features create_app read its settings for.
EXTENSION = "plantstore.features"


def _token_list(variable, value):
    tokens = split_list(variable, value)
    for number, token in enumerate(tokens, start=1):
        # The token itself is never shown: the message may end up in a log.
        if not isinstance(token, str) or not TOKEN_RE.fullmatch(token):
            raise ConfigError(
                f"{variable}: token #{number}, of {len(str(token))} characters, is "
                "not a valid bearer token (letters, digits and -._~+/ only)"
            )
        if len(token) < MIN_TOKEN_LENGTH:
            raise ConfigError(
                f"{variable}: token #{number} has {len(token)} characters, fewer than "
                f"{MIN_TOKEN_LENGTH}; make one with: python3 -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'"
            )
    return tuple(tokens)


def _metrics_token(variable, value):
    if value and (not isinstance(value, str) or len(value) < MIN_TOKEN_LENGTH):
        raise invalid(variable, f"at least {MIN_TOKEN_LENGTH} characters long", value)
    return value


CORE = Feature(
    "Requests, tokens, proxies, logs, metrics",
    (
        Setting(
            "API_TOKENS",
            "",
            _token_list,
            "static read-write tokens, comma-separated (letters, digits and `-._~+/`), each at "
            f"least {MIN_TOKEN_LENGTH} characters (see [tokens](tokens.md))",
        ),
        Setting(
            "MAX_CONTENT_LENGTH",
            64 * 1024,
            at_least(1),
            "largest request body, bytes (chunked bodies included)",
        ),
        Setting(
            "TRUSTED_PROXIES",
            0,
            at_least(0),
            "reverse proxies in front that set (or clear) all five `X-Forwarded-*` headers "
            "(see [deploying](deploying.md#the-reverse-proxy))",
        ),
        Setting(
            "LOG_FORMAT",
            "text",
            one_of(("text", "json"), str.lower),
            "`text`, or `json` for one JSON object per line (see [logs](operating.md#logs))",
        ),
        Setting(
            "METRICS_TOKEN",
            "",
            _metrics_token,
            f"bearer token `/metrics` requires, at least {MIN_TOKEN_LENGTH} characters",
            "open",
        ),
    ),
)


def init_app(app, features, overrides=None):
    """Fill app.config with the settings of features (Feature tuples) from their defaults, the
    environment and overrides, then check them; features_of(app) gives the features."""
    _read(app.config, features, overrides)
    check(features, app.config)
    app.extensions[EXTENSION] = features


def features_of(app):
    """The features whose settings app.config holds, as create_app gave them."""
    return app.extensions[EXTENSION]


def check_environment(features):
    """The configuration the PLANTSTORE_* variables make of features' settings; ConfigError
    unless it is valid."""
    config = Config(os.getcwd())
    _read(config, features)
    check(features, config)
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


def warn_unknown_variables(app):
    """Log a warning for each PLANTSTORE_* variable that is no setting, with the closest one."""
    known = [setting.variable for feature in features_of(app) for setting in feature.settings]
    for name in sorted(os.environ):
        if name.startswith(PREFIX) and name not in known + list(OTHER_VARIABLES):
            closest = difflib.get_close_matches(name, known, n=1)
            hint = f"; did you mean {closest[0]}?" if closest else ""
            app.logger.warning("%s is not a plantstore setting and is ignored%s", name, hint)


def _read(config, features, overrides=None):
    # Each value stays the text it was given until its check converts it, so that a refusal
    # shows it as given (from_prefixed_env would read "1.0" as 1.0 and "true" as True).
    for name, default in defaults(features).items():
        config[name] = os.environ.get(PREFIX + name, default)
    if overrides:
        config.from_mapping(overrides)
