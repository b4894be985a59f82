"""Rate limits: one bucket per token, one per address for refused requests (flask-limiter).

Nothing here is attached unless PLANTSTORE_RATE_LIMIT or PLANTSTORE_RATE_LIMIT_UNAUTHENTICATED
is set. The checks are called by app/auth.py, after the token is looked up and before the view
runs, so a refused request has no effect.
"""

import math
import time

from flask import request
from flask_limiter import Limiter, RateLimitExceeded
from redis.backoff import NoBackoff
from redis.retry import Retry
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

# Sliding window counter: two round trips to Redis per request (the hit, then the window's
# stats for the headers), and no burst of twice the limit across a window's edge.
STRATEGY = "sliding-window-counter"
KEY_PREFIX = "plantstore"
# Where the app keeps its RateLimits, when a limit is configured.
EXTENSION = "plantstore.ratelimit"
# Where this request's headers wait for the response (see add_headers).
HEADERS = "plantstore.ratelimit_headers"
# The identity of the token being counted, for the key function.
IDENTITY = "plantstore.ratelimit_identity"
# A fail-open warning is logged at most this often per worker, in seconds.
WARNING_INTERVAL = 60
# What a 503 asks a client to wait while the counter store does not answer, in seconds.
UNAVAILABLE_RETRY_AFTER = 5


def _token_key():
    return "token:" + request.environ[IDENTITY]


def _address_key():
    # Never empty: flask-limiter silently skips a limit whose key is empty.
    return "address:" + (request.remote_addr or "unknown")


def _token_checkpoint():
    """Where flask-limiter counts a token's request."""


def _address_checkpoint():
    """Where flask-limiter counts a refused request by its address."""


class RateLimits:
    """The app's limiter, its two limits, and what a refusal or a store failure does."""

    def __init__(self, app):
        config = app.config
        self.logger = app.logger
        self.fail_closed = config["RATE_LIMIT_FAIL"] == "closed"
        self.limiter = Limiter(
            key_func=_token_key,
            strategy=STRATEGY,
            storage_uri=config["RATE_LIMIT_STORAGE_URL"],
            storage_options=storage_options(config),
            key_prefix=KEY_PREFIX,
            # Its headers would add Retry-After to a 200: add_headers writes ours.
            headers_enabled=False,
            # Swallowing logs a traceback per request: failed() applies the policy instead.
            swallow_errors=False,
        )
        self.limiter.init_app(app)
        self.store_errors = self.limiter.storage.base_exceptions
        self.token_check = self._checkpoint(config["RATE_LIMIT"], _token_key, _token_checkpoint)
        self.address_check = self._checkpoint(
            config["RATE_LIMIT_UNAUTHENTICATED"], _address_key, _address_checkpoint
        )
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

    def _checkpoint(self, limit, key_func, checkpoint):
        if not limit:
            return None
        # One scope for every /plants operation: a single bucket per key.
        shared = self.limiter.shared_limit(limit, scope="plants", key_func=key_func)
        return shared(checkpoint)

    def check_token(self, identity):
        """Count a request of the token known as identity; 429 past its limit."""
        if self.token_check is not None:
            request.environ[IDENTITY] = identity
            self._check(self.token_check)

    def check_refused(self):
        """Count a request that failed authentication against its address; 429 past its limit."""
        if self.address_check is not None:
            self._check(self.address_check)

    def _check(self, checkpoint):
        try:
            checkpoint()
        except RateLimitExceeded as exceeded:
            self._refuse(exceeded.description)
        except self.store_errors as error:
            self.failed(error)
            return
        try:
            # The limit closest to refusing: the fewest remaining, then the shorter window.
            closest = min(
                self.limiter.current_limits,
                key=lambda each: (each.window.remaining, each.limit.get_expiry()),
            )
            request.environ[HEADERS] = _header_values(closest)
        except self.store_errors as error:
            self.failed(error)

    def _refuse(self, description):
        self.refused.inc()
        breached = self.limiter.current_limit
        wait = breached.limit.get_expiry()
        try:
            request.environ[HEADERS] = _header_values(breached)
            wait = max(1, math.ceil(breached.window.reset_time - time.time()))
        except self.store_errors as error:
            self.failed(error)
        raise TooManyRequests(f"Too many requests: the limit is {description}.", retry_after=wait)

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


def _header_values(limit):
    window = limit.window  # one round trip to the store, made once
    return (
        ("X-RateLimit-Limit", str(limit.limit.amount)),
        ("X-RateLimit-Remaining", str(window.remaining)),
        ("X-RateLimit-Reset", str(math.ceil(window.reset_time))),
    )


def add_headers(response):
    """Give an answer to a limited request the X-RateLimit-* headers of its check."""
    values = request.environ.get(HEADERS)
    if values:
        response.headers.extend(values)
    return response


def storage_options(config):
    """redis-py options: no wait for the store longer than the timeout, and no retry."""
    if not config["RATE_LIMIT_STORAGE_URL"].startswith("redis:"):
        return {}
    timeout = config["RATE_LIMIT_STORAGE_TIMEOUT"]
    return {
        "socket_timeout": timeout,
        "socket_connect_timeout": timeout,
        # A retry would double the wait; the next request reconnects anyway.
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
    """Attach the limiter only when a limit is configured: otherwise nothing runs."""
    if app.config["RATE_LIMIT"] or app.config["RATE_LIMIT_UNAUTHENTICATED"]:
        app.extensions[EXTENSION] = RateLimits(app)
