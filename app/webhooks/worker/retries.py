"""The retry rule: how many attempts a delivery has, and when the next is due."""

import logging
import random

from ..tables.records import Outcome

# Seconds past the backoff that a receiver's Retry-After may put the next attempt off.
RETRY_AFTER_CAP = 3600


class Retries:
    """At most max_attempts attempts, the next after an exponential delay with jitter, or
    later when the receiver asked so with Retry-After (at most RETRY_AFTER_CAP later)."""

    def __init__(self, settings):
        self.max_attempts = settings.max_attempts
        self.delay = settings.retry_delay
        self.max_delay = settings.retry_max_delay

    def another_allowed(self, attempts):
        """Whether a delivery that had attempts attempts may have one more."""
        return attempts < self.max_attempts

    def outcome(self, delivery, answer):
        """The Outcome of an attempt of delivery that ended with answer (a sender.Answer)."""
        retry_in = None
        if answer.error is not None and self.another_allowed(delivery.attempts):
            delay = self._backoff(delivery.attempts)
            if answer.retry_after is not None:
                delay = min(max(delay, answer.retry_after), delay + RETRY_AFTER_CAP)
            # Seconds, not a time: the database's clock makes it a due time (queue.record).
            retry_in = delay
        return Outcome(
            id=delivery.id,
            receiver=delivery.receiver,
            error=answer.error,
            retry_in=retry_in,
            response_status=answer.status,
            claim=delivery.claim,
            response_body=None if answer.body is None else _shown(answer.body),
        )

    def _backoff(self, attempts):
        # Jitter, so that failing receivers are not hit in lockstep.
        delay = min(self.max_delay, self.delay * 2 ** (attempts - 1))
        return random.uniform(delay / 2, delay)


def _shown(body):
    # NUL becomes U+FFFD too: PostgreSQL's text cannot hold it.
    return body.decode("utf-8", "replace").replace("\x00", "\ufffd")


def said(logger, name, delivery, outcome, raised):
    """Log an attempt of delivery to the receiver named name, which ended in outcome, with the
    traceback of what it raised (None when it raised nothing)."""
    if outcome.error is None:
        # DEBUG: at the API's pace, a line per delivery would cost a third of the worker's CPU.
        level, text = logging.DEBUG, "delivered"
    elif outcome.retry_in is None:
        level, text = logging.WARNING, f"{outcome.error}; no attempts left, kept as failed"
    else:
        level, text = logging.INFO, outcome.error
    logger.log(
        level,
        "delivery %s to %s attempt %d: %s",
        delivery.id,
        name,
        delivery.attempts,
        text,
        exc_info=raised,
    )
