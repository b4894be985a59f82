"""Rate limits: one bucket per token, one per address for refused requests (``limits``).

Nothing here is attached unless PLANTSTORE_RATE_LIMIT or PLANTSTORE_RATE_LIMIT_UNAUTHENTICATED
is set. app/auth.py calls the checks once the token is looked up and before the view runs, so a
refused request has no effect. flask-limiter's request path is not used: its hooks run on every
request, exempt paths included, and cost more than the whole budget of a limit (README).
"""

import math
import time

from flask import request
from limits import parse_many
from limits.storage import storage_from_string
from redis.backoff import NoBackoff
from redis.retry import Retry
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

# Where the app keeps its RateLimits, when a limit is configured.
EXTENSION = "plantstore.ratelimit"
# The first part of every bucket's key; the kind and the token's identity or the address
# follow. Never a token.
KEY_PREFIX = "plantstore"
# Where a request's X-RateLimit-* headers wait for its response (see add_headers).
HEADERS = "plantstore.ratelimit_headers"
# Window ends a worker remembers; past this many, those already over are forgotten.
MAX_REMEMBERED = 10_000
# A fail-open warning is logged at most this often per worker, in seconds.
WARNING_INTERVAL = 60
# What a 503 asks a client to wait while the counter store does not answer, in seconds.
UNAVAILABLE_RETRY_AFTER = 5


def _limits(value):
    # Shorter windows first: a request one of them refuses is not counted by the longer ones.
    return sorted(parse_many(value)) if value else []


class RateLimits:
    """The counter store, the two limits, and what a refusal or a store failure does."""

    def __init__(self, app):
        config = app.config
        self.logger = app.logger
        self.fail_closed = config["RATE_LIMIT_FAIL"] == "closed"
        self.storage = storage_from_string(
            config["RATE_LIMIT_STORAGE_URL"], **storage_options(config)
        )
        # Each bucket's current window ends when its counter expires: asked once per window.
        self.window_ends = {}
        self.store_errors = self.storage.base_exceptions
        self.token_limits = _limits(config["RATE_LIMIT"])
        self.address_limits = _limits(config["RATE_LIMIT_UNAUTHENTICATED"])
        app_metrics = app.extensions["plantstore.metrics"]
        self.refused = app_metrics.counter(
            "plantstore_rate_limited", "Requests refused with 429 by a rate limit."
        )
        self.store_failures = app_metrics.counter(
            "plantstore_rate_limit_storage_errors",
            "Requests whose rate limit counter store failed or did not answer in time.",
        )
        self.warned_at = -math.inf
        app.after_request(add_headers)

    def check_token(self, identity):
        """Count a request of the token known as identity; 429 past its limit."""
        if self.token_limits:
            self._check(self.token_limits, "token", identity)

    def check_refused(self):
        """Count a request that failed authentication against its address; 429 past its limit."""
        if self.address_limits:
            self._check(self.address_limits, "address", request.remote_addr or "unknown")

    def _check(self, limits, kind, who):
        counted = []
        try:
            for item in limits:
                counted.append(self._count(item, item.key_for(KEY_PREFIX, kind, who)))
                if counted[-1][1] < 0:
                    break  # the longer windows do not count a refused request
        except self.store_errors as error:
            self.failed(error)
            return
        # The limit closest to refusing: the fewest remaining, then the shorter window.
        item, remaining, ends = min(counted, key=lambda each: (each[1], each[0].get_expiry()))
        request.environ[HEADERS] = (
            ("X-RateLimit-Limit", str(item.amount)),
            ("X-RateLimit-Remaining", str(max(remaining, 0))),
            ("X-RateLimit-Reset", str(math.ceil(ends))),
        )
        if remaining < 0:
            self.refused.inc()
            raise TooManyRequests(
                f"Too many requests: the limit is {item}.",
                retry_after=max(1, math.ceil(ends - time.time())),
            )

    def _count(self, item, key):
        """Count a request in the fixed window of item at key: the limit, what remains (below
        0 when refused), and when the window ends.

        One round trip: the storage's increment starts the window (and its expiry) with the
        first request, atomically; its end is only asked for once per worker and window.
        """
        count = self.storage.incr(key, item.get_expiry())
        ends = self.window_ends.get(key, 0)
        if ends <= time.time():
            if len(self.window_ends) >= MAX_REMEMBERED:
                now = time.time()
                self.window_ends = {k: end for k, end in self.window_ends.items() if end > now}
            ends = self.window_ends[key] = self.storage.get_expiry(key)
        return item, item.amount - count, ends

    def failed(self, error):
        """The counter store failed: serve unlimited (fail open), or answer 503 (closed)."""
        self.store_failures.inc()
        self.window_ends.clear()  # a store that comes back may have lost its windows
        if self.fail_closed:
            raise ServiceUnavailable(
                "The rate limit store is unavailable.", retry_after=UNAVAILABLE_RETRY_AFTER
            )
        now = time.monotonic()
        if now - self.warned_at >= WARNING_INTERVAL:
            self.warned_at = now
            self.logger.warning(
                "rate limit store unavailable, serving requests unlimited (logged at most once "
                "a minute; plantstore_rate_limit_storage_errors_total counts them): %s: %s",
                type(error).__name__,
                error,
            )


def add_headers(response):
    """Give the answer to a counted request the X-RateLimit-* headers of its check."""
    values = request.environ.get(HEADERS)
    if values:
        response.headers.extend(values)
    return response


def storage_options(config):
    """redis-py options: no wait for the store longer than the timeout, and no retry."""
    if config["RATE_LIMIT_STORAGE_URL"] == "memory://":
        return {}
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


def init_app(app):
    """Attach the limits only when one is configured: otherwise nothing runs."""
    if app.config["RATE_LIMIT"] or app.config["RATE_LIMIT_UNAUTHENTICATED"]:
        app.extensions[EXTENSION] = RateLimits(app)
