"""The rate limits' settings, declared once: app/config.py checks them with every other at
start; and what they make of the counter store."""

from urllib.parse import urlsplit

from ..config_errors import invalid, one_of, seconds
from ..config_spec import Feature, Setting


def _limit(variable, value) -> str:
    """A limit setting, checked with the parser of the limits library; empty is no limit."""
    if isinstance(value, str) and not value.strip():
        return ""
    # limits (a tenth of a second to import) only once a limit is set: most processes have none.
    from limits import parse_many

    try:
        if isinstance(value, str) and parse_many(value):
            return value.strip()
    except ValueError:
        pass
    expected = "a rate limit such as '100/second' or '5000 per hour; 100 per second'"
    raise invalid(variable, expected, value)


def _storage_url(variable, value) -> str:
    """The store's URL, checked: memory:// or redis://host:port/db."""
    if value == "memory://":
        return value
    parts = urlsplit(value) if isinstance(value, str) else None
    try:
        valid = (
            parts is not None
            and parts.scheme == "redis"
            and bool(parts.hostname)
            and (parts.port or 0) >= 0  # reading the port checks that it is a number
            and (parts.path.strip("/") or "0").isdigit()
        )
    except ValueError:
        valid = False
    if not valid:
        expected = "memory:// or redis://host:port/db"
        raise invalid(variable, expected, value)
    return value


FEATURE = Feature(
    "Rate limits",
    (
        Setting(
            "RATE_LIMIT",
            "",
            _limit,
            "requests each token may make, as flask-limiter writes them (`100/second`; see "
            "[rate limits](rate-limits.md))",
        ),
        Setting(
            "RATE_LIMIT_UNAUTHENTICATED",
            "",
            _limit,
            "requests that fail authentication each address may make",
        ),
        Setting(
            "RATE_LIMIT_STORAGE_URL",
            "memory://",
            _storage_url,
            "`memory://` or `redis://host:port/db`",
        ),
        Setting(
            "RATE_LIMIT_STORAGE_TIMEOUT",
            0.25,
            seconds,
            "longest wait for the storage, seconds",
        ),
        Setting(
            "RATE_LIMIT_FAIL",
            "open",
            one_of(("open", "closed"), str.lower),
            "when the storage fails: `open` (serve) or `closed` (503)",
        ),
    ),
    field_prefix="RATE_LIMIT_",
)


RateLimitSettings = FEATURE.typed_class(
    "RateLimitSettings",
    "The rate limits' settings as checked: PLANTSTORE_RATE_LIMIT is the field rate_limit, and "
    "PLANTSTORE_RATE_LIMIT_<NAME> the field <name>, lower-cased; the timeout is in seconds.",
)


def of(config):
    """The RateLimitSettings of a checked config (app.config, or gunicorn's master's)."""
    return FEATURE.typed(RateLimitSettings, config)


def storage_options(settings):
    """redis-py options: no wait for the store longer than the timeout, and no retry."""
    if settings.storage_url == "memory://":
        return {}
    # redis-py only for a Redis store: limits imports it for one too, and nothing else does.
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    timeout = settings.storage_timeout
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        # A retry would double the wait; the next request connects again anyway.
        "retry": Retry(NoBackoff(), 0),
    }


def per_worker_note(config, workers):
    """The start-up line saying that memory storage counts per worker, or None."""
    settings = of(config)
    limited = settings.rate_limit or settings.unauthenticated
    if not limited or workers < 2 or settings.storage_url != "memory://":
        return None
    return (
        f"rate limits count in memory: each of the {workers} workers counts alone, so a client "
        f"may get up to {workers} times the limit; set PLANTSTORE_RATE_LIMIT_STORAGE_URL to a "
        "redis:// URL for one count across workers and hosts"
    )
