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
from limits.strategies import SlidingWindowCounterRateLimiter
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
        # Sliding window counter: two round trips to Redis per request (the hit, then the
        # window's stats for the headers), and no burst of twice the limit across a window's edge.
        self.strategy = SlidingWindowCounterRateLimiter(self.storage)
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
        environ = request.environ
        try:
            breached = next(
                (item for item in limits if not self.strategy.hit(item, KEY_PREFIX, kind, who)),
                None,
            )
            counted = [breached] if breached else limits
            windows = [
                self.strategy.get_window_stats(item, KEY_PREFIX, kind, who) for item in counted
            ]
        except self.store_errors as error:
            self.failed(error)
            return
        # The limit closest to refusing: the fewest remaining, then the shorter window.
        window, item = min(
            zip(windows, counted, strict=True),
            key=lambda pair: (pair[0].remaining, pair[1].get_expiry()),
        )
        environ[HEADERS] = (
            ("X-RateLimit-Limit", str(item.amount)),
            ("X-RateLimit-Remaining", str(window.remaining)),
            ("X-RateLimit-Reset", str(math.ceil(window.reset_time))),
        )
        if breached:
            self.refused.inc()
            raise TooManyRequests(
                f"Too many requests: the limit is {breached}.",
                retry_after=max(1, math.ceil(window.reset_time - time.time())),
            )

    def failed(self, error):
        """The counter store failed: serve unlimited (fail open), or answer 503 (closed)."""
        self.store_failures.inc()
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
