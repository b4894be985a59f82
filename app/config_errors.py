"""A refused setting: one line naming the variable and the value it was given, safe to log."""

import re

import click
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

# Shown by their length only: the line may end up in a log.
SECRETS = ("PLANTSTORE_API_TOKENS", "PLANTSTORE_WEBHOOK_SECRET", "PLANTSTORE_METRICS_TOKEN")
# URLs may hold a password, or a token in their query string: both are left out.
URLS = (
    "PLANTSTORE_DATABASE_URL",
    "PLANTSTORE_WEBHOOK_URLS",
    "PLANTSTORE_RATE_LIMIT_STORAGE_URL",
)
# What stands between "user:" and "@" in a URL SQLAlchemy cannot read.
PASSWORD_RE = re.compile(r"(//[^/:@]*:)[^@]*@")


class ConfigError(click.ClickException):
    """A setting has a value the service cannot run with.

    A ClickException, so that every command (flask's, plantstore's) ends with this one line.
    """


def invalid(variable, expected, value):
    """The ConfigError for a variable whose value is not what it must be, showing the value.

    For example ``PLANTSTORE_LOG_FORMAT must be text or json, not 'xml'``: a secret is shown by
    its length only, a URL with its password hidden.
    """
    return ConfigError(f"{variable} must be {expected}, not {_shown(variable, value)}")


def _shown(variable, value):
    if variable in SECRETS:
        length = len(str(value))
        return f"a value of {length} characters" if length else "empty"
    if variable in URLS and isinstance(value, str):
        return repr(",".join(_without_password(url.split("?")[0]) for url in value.split(",")))
    return repr(value)


def _without_password(url):
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        return PASSWORD_RE.sub(r"\1***@", url)
