"""The rate limit settings, checked once at start, and what they make of the counter store."""

from urllib.parse import urlsplit

from ..config_errors import invalid


def limit_setting(variable, value):
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


def storage_url_setting(value):
    """PLANTSTORE_RATE_LIMIT_STORAGE_URL, checked: memory:// or redis://host:port/db."""
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
        raise invalid("PLANTSTORE_RATE_LIMIT_STORAGE_URL", expected, value)
    return value


def storage_options(config):
    """redis-py options: no wait for the store longer than the timeout, and no retry."""
    if config["RATE_LIMIT_STORAGE_URL"] == "memory://":
        return {}
    # redis-py only for a Redis store: limits imports it for one too, and nothing else does.
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    timeout = config["RATE_LIMIT_STORAGE_TIMEOUT"]
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        # A retry would double the wait; the next request connects again anyway.
        "retry": Retry(NoBackoff(), 0),
    }


def per_worker_note(config, workers):
    """The start-up line saying that memory storage counts per worker, or None."""
    limited = config["RATE_LIMIT"] or config["RATE_LIMIT_UNAUTHENTICATED"]
    if not limited or workers < 2 or config["RATE_LIMIT_STORAGE_URL"] != "memory://":
        return None
    return (
        f"rate limits count in memory: each of the {workers} workers counts alone, so a client "
        f"may get up to {workers} times the limit; set PLANTSTORE_RATE_LIMIT_STORAGE_URL to a "
        "redis:// URL for one count across workers and hosts"
    )
