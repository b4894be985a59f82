"""Checking one setting: its text converted to a value, or refused in one line naming the
variable and the value it was given, safe to log.

A converter is called as ``convert(variable, value)``, variable the full name
(``PLANTSTORE_LOG_FORMAT``), value as given: the text of the environment, or a test's value.
"""

import math
import re

import click
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

# Shown by their length only, by the name's ending, so that a new token is hidden too: the
# line may end up in a log.
SECRET_ENDINGS = ("_TOKEN", "_TOKENS", "_SECRET")
# URLs may hold a password, or a token in their query string: both are left out.
URL_ENDINGS = ("_URL", "_URLS")
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
    if variable.endswith(SECRET_ENDINGS):
        length = len(str(value))
        return f"a value of {length} characters" if length else "empty"
    if variable.endswith(URL_ENDINGS) and isinstance(value, str):
        return repr(",".join(_without_password(url.split("?")[0]) for url in value.split(",")))
    return repr(value)


def _without_password(url):
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # ValueError: a port that is no number
        return PASSWORD_RE.sub(r"\1***@", url)


def as_number(value):
    """value as an int or a float, given as one or as its text; None if it is neither."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    if isinstance(value, str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
    return None


def integer(value, minimum, maximum=math.inf):
    """value as an int from minimum to maximum, given as one or as its text; None otherwise."""
    found = as_number(value)
    return found if isinstance(found, int) and minimum <= found <= maximum else None


def at_least(minimum):
    """The converter of an integer setting of minimum or more."""

    def convert(variable, value) -> int:
        number = integer(value, minimum)
        if number is None:
            raise invalid(variable, f"an integer >= {minimum}", value)
        return number

    return convert


def seconds(variable, value) -> float:
    """The converter of a number of seconds > 0: an int or a float, as given."""
    found = as_number(value)
    # NaN and infinity are floats too, but no timeout.
    if found is None or not math.isfinite(found) or found <= 0:
        raise invalid(variable, "a number of seconds > 0", value)
    return found


def one_of(choices, normalise):
    """The converter of a setting that is one of choices, once normalise (str.lower) made it."""

    def convert(variable, value) -> str:
        chosen = normalise(value) if isinstance(value, str) else None
        if chosen not in choices:
            expected = ", ".join(choices[:-1]) + f" or {choices[-1]}"
            raise invalid(variable, expected, value)
        return chosen

    return convert


def text(variable, value) -> str:
    """The converter of a setting any text will do for: the text itself."""
    if not isinstance(value, str):
        raise invalid(variable, "text", value)
    return value


def split_list(variable, value) -> list[str]:
    """A comma-separated list's items, stripped, the empty ones left out; a list as it is."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if not isinstance(value, str):
        raise invalid(variable, "a comma-separated list", value)
    return [item.strip() for item in value.split(",") if item.strip()]
