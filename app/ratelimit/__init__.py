"""Rate limits: one bucket per token, one per address for refused requests (``limits``).

Nothing here is attached unless PLANTSTORE_RATE_LIMIT or PLANTSTORE_RATE_LIMIT_UNAUTHENTICATED
is set. app/auth.py calls the checks once the token is looked up and before the view runs, so a
refused request has no effect. flask-limiter's request path is not used: its hooks
run on every request, exempt paths included, and cost more than the whole budget of a limit
(docs/rate-limits.md).
"""

import math
import time

from flask import request
from werkzeug.exceptions import ServiceUnavailable, TooManyRequests

from .. import apidoc, metrics
from . import settings
from .settings import per_worker_note, storage_options

# Where the app keeps its RateLimits, when a limit is configured.
EXTENSION = "plantstore.ratelimit"

__all__ = ["EXTENSION", "documented", "init_app", "middleware", "per_worker_note"]
# The first part of every bucket's key; the kind and the token's identity or the address
# follow. Never a token.
KEY_PREFIX = "plantstore"
# Where a request's X-RateLimit-* headers wait for its answer (see RateLimitHeaders).
HEADERS = "plantstore.ratelimit_headers"
# Buckets a worker remembers; past this many, those whose windows all ended are forgotten.
MAX_REMEMBERED = 10_000
# A fail-open warning is logged at most this often per worker, in seconds.
WARNING_INTERVAL = 60
# What a 503 asks a client to wait while the counter store does not answer, in seconds.
UNAVAILABLE_RETRY_AFTER = 5


def _limits(value):
    from limits import parse_many  # imported with RateLimits, once a limit is set

    # Shorter windows first: a request one of them refuses is not counted by the longer ones.
    return sorted(parse_many(value)) if value else []


class Bucket:
    """One limit of one token or address: its key in the store, and when its window ends."""

    __slots__ = ("amount", "ends", "expiry", "key", "limit", "shown")

    def __init__(self, limit, kind, who):
        self.limit = limit
        self.key = limit.key_for(KEY_PREFIX, kind, who)
        self.amount = limit.amount
        self.shown = str(limit.amount)
        self.expiry = limit.get_expiry()
        self.ends = 0.0

    def count(self, storage):
        """Count one request in this fixed window; what remains (below 0: refused).

        One round trip: the store's increment starts the window, with its expiry, at the first
        request, atomically. The window's end is asked once per worker and window.
        """
        remaining = self.amount - storage.incr(self.key, self.expiry)
        if self.ends <= time.time():
            self.ends = storage.get_expiry(self.key)
        return remaining


class RateLimits:
    """The counter store, the two limits, and what a refusal or a store failure does."""

    def __init__(self, app, values):
        # limits (a tenth of a second to import) only once a limit is set: most apps have none.
        from limits.storage import storage_from_string

        self.logger = app.logger
        self.fail_closed = values.fail == "closed"
        self.storage = storage_from_string(values.storage_url, **storage_options(values))
        self.store_errors = self.storage.base_exceptions
        self.token_limits = _limits(values.rate_limit)
        self.address_limits = _limits(values.unauthenticated)
        # (kind, token identity or address) -> its buckets, one per limit.
        self.buckets = {}
        app_metrics = metrics.of(app)
        self.refused = app_metrics.counter(
            "plantstore_rate_limited", "Requests refused with 429 by a rate limit."
        )
        self.store_failures = app_metrics.counter(
            "plantstore_rate_limit_storage_errors",
            "Requests whose rate limit counter store failed or did not answer in time.",
        )
        self.warned_at = -math.inf

    def check_token(self, identity):
        """Count a request of the token known as identity; 429 past its limit."""
        if self.token_limits:
            self._check(request.environ, self.token_limits, "token", identity)

    def check_refused(self):
        """Count a request that failed authentication against its address; 429 past its limit."""
        if self.address_limits:
            environ = request.environ
            self._check(environ, self.address_limits, "address", environ.get("REMOTE_ADDR", ""))

    def _buckets(self, limits, kind, who):
        buckets = self.buckets.get((kind, who))
        if buckets is None:
            if len(self.buckets) >= MAX_REMEMBERED:
                now = time.time()
                self.buckets = {
                    key: each
                    for key, each in list(self.buckets.items())
                    if any(bucket.ends > now for bucket in each)
                }
            buckets = self.buckets[kind, who] = [Bucket(limit, kind, who) for limit in limits]
        return buckets

    def _check(self, environ, limits, kind, who):
        counted = []
        try:
            for bucket in self._buckets(limits, kind, who):
                counted.append((bucket.count(self.storage), bucket))
                if counted[-1][0] < 0:
                    break  # the longer windows do not count a refused request
        except self.store_errors as error:
            self.failed(error)
            return
        # The limit closest to refusing: the fewest remaining, then the shorter window.
        remaining, bucket = min(counted, key=_closeness) if len(counted) > 1 else counted[0]
        environ[HEADERS] = [
            ("X-RateLimit-Limit", bucket.shown),
            ("X-RateLimit-Remaining", str(max(remaining, 0))),
            ("X-RateLimit-Reset", str(math.ceil(bucket.ends))),
        ]
        if remaining < 0:
            self.refused.inc()
            raise TooManyRequests(
                f"Too many requests: the limit is {bucket.limit}.",
                retry_after=max(1, math.ceil(bucket.ends - time.time())),
            )

    def failed(self, error):
        """The counter store failed: serve unlimited (fail open), or answer 503 (closed)."""
        self.store_failures.inc()
        self.buckets = {}  # a store that comes back may have lost its windows
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


def _closeness(counted):
    remaining, bucket = counted
    return remaining, bucket.expiry


class RateLimitHeaders:
    """WSGI middleware: the X-RateLimit-* headers a check left in environ, on the answer.

    Cheaper than an after_request hook adding them to Flask's response, which checks each one.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        """Serve the request, adding the headers its check left, if any."""

        def start_with_headers(status, headers, exc_info=None):
            return start_response(status, headers + environ.get(HEADERS, []), exc_info)

        return self.app(environ, start_with_headers)


def init_app(app):
    """Attach the limits only when one is configured: otherwise nothing runs."""
    values = settings.of(app.config)
    if values.rate_limit or values.unauthenticated:
        app.extensions[EXTENSION] = RateLimits(app, values)


def middleware(app, wsgi_app):
    """wsgi_app, adding the X-RateLimit-* headers when a limit is configured."""
    return RateLimitHeaders(wsgi_app) if EXTENSION in app.extensions else wsgi_app


# What the document says of a rate-limited operation: its 429, and the headers of its answers.
REFUSED = (
    429,
    "Past the rate limit of the token, or, for a request that fails authentication, of its "
    "address; the request had no effect. Retry-After says when to try again.",
    "Too many requests: the limit is 100 per 1 second.",
)
STORE_UNAVAILABLE = " Or the rate limit store does not, with PLANTSTORE_RATE_LIMIT_FAIL=closed."
HEADER_DESCRIPTIONS = {
    "Retry-After": "Whole seconds to wait before trying again, at least 1: on a 429, and on "
    "every 503.",
    "X-RateLimit-Limit": "While a rate limit applies: the requests it allows in its window "
    "(of the limit closest to refusing).",
    "X-RateLimit-Remaining": "While a rate limit applies: the requests it still allows now.",
    "X-RateLimit-Reset": "While a rate limit applies: when a request is allowed again, in Unix "
    "time (seconds).",
}
ANSWER_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def documented(view):
    """Document view as counted by the rate limits: its 429, and their headers."""
    return apidoc.error(*REFUSED)(apidoc.limited(view))
