"""The outcome of an attempt that the sender's differential judge expects: what aiohttp's client
makes of the answer, then the contract's rules (CONTRACT.md, "An answer is read as HTTP clients
read it"; issue 57) where aiohttp or h11 read otherwise, each a function named for its rule that
returns the outcome it decides, or None where it decides nothing."""

from typing import NamedTuple

from support.differential_answers import LIMIT
from support.differential_readers import aiohttp_reads, h11_keeps

# Go's net/http cap on interim answers, which the contract takes.
INTERIM_LIMIT = 5


class Outcome(NamedTuple):
    """An attempt's outcome: its answer ((status, Retry-After, the body's first bytes),
    "refused", "disconnected", "head over limit" or "too many interim"), whether the head limit
    failed it, and whether its connection may carry the next request."""

    answer: object
    head_limit: bool
    reusable: bool


class Start(bytes):
    """The start of a body: equal to any start of it."""

    def __eq__(self, other):
        return isinstance(other, bytes) and self.startswith(other)

    __hash__ = bytes.__hash__


def aiohttp_client(reading, answer):
    """What aiohttp's client makes of the answer: the final answer's status, Retry-After and
    the first bytes of its body once its head is in, else "refused" or "disconnected"; the
    connection kept when the answer was read whole, keeps it, and the receiver did not close
    it."""
    if reading.head is None:
        return Outcome("refused" if reading.refused else "disconnected", False, False)
    retry_after = None if reading.retry_after is None else reading.retry_after.strip()
    kept = reading.end is not None and reading.keeps and not answer.closes
    return Outcome((reading.status, retry_after, reading.kept), False, kept)


def head_over_limit(reading, answer, outcome):
    """An answer whose head (interim answers, leading blank lines included) is over 64 KiB
    fails the attempt as its 65537th byte arrives: a refusal or a sixth interim answer that
    ends after that byte comes too late."""
    # CONTRACT.md: "whose head ... is over 64 KiB fails the attempt", "counted as its bytes arrive".
    ends = (reading.head, reading.refused, *reading.interims[INTERIM_LIMIT:])
    if len(answer.data) > LIMIT and min((at for at in ends if at), default=LIMIT + 1) > LIMIT:
        return Outcome("head over limit", True, False)
    return None


def too_many_interim(reading, answer, outcome):
    """The sixth interim answer fails the attempt."""
    # docs/webhooks.md, "A head of 64 KiB at most": "A sixth interim answer fails the attempt".
    if len(reading.interims) > INTERIM_LIMIT and not outcome.head_limit:
        return Outcome("too many interim", False, False)
    return None


def http10_closes(reading, answer, outcome):
    """An HTTP/1.0 answer closes its connection, whatever its Connection header says."""
    # CONTRACT.md: "An answer that ends its connection (..., or HTTP/1.0) closes that connection".
    return _closed(outcome) if reading.http10 else None


def trailer_closes(reading, answer, outcome):
    """`Connection: close` in the trailers closes the connection as in the headers."""
    # CONTRACT.md: "(`Connection: close`, in its headers or its trailers, ...) closes" it.
    closing = any(line.lower() == b"connection: close" for line in answer.trailers)
    return _closed(outcome) if closing and reading.end is not None else None


def stray_closes(reading, answer, outcome):
    """Bytes after the answer (a blank line included) end the connection."""
    # CONTRACT.md: "bytes that a receiver sends after its answer end the connection".
    stray = reading.end is not None and reading.end < len(answer.data)
    return _closed(outcome) if stray else None


def body_over_keep_limit(reading, answer, outcome):
    """A body of more than 64 KiB once decoded closes the connection; the status stands."""
    # docs/webhooks.md: a body that passes 64 KiB "only closes its connection, with the status".
    return _closed(outcome) if reading.body > LIMIT else None


def framing_over_keep_limit(reading, answer, outcome):
    """More than 64 KiB of bytes that are not body (head, chunk size lines and extensions,
    trailers) closes the connection; the status stands."""
    # CONTRACT.md: "a body whose framing (chunk sizes, extensions) or trailers pass the limits".
    over = reading.end is not None and reading.end - reading.body > LIMIT
    return _closed(outcome) if over else None


def framing_cuts_the_body(reading, answer, outcome):
    """Once the bytes that are not body pass 64 KiB, the attempt ends with the status and the
    body read by then, as the reads fell: a start of what aiohttp read."""
    # CONTRACT.md: framing or trailers that "pass the limits" end the connection, "the status
    # stands"; docs/webhook-endpoints.md, "The delivery log".
    if not isinstance(outcome.answer, tuple) or len(answer.data) - reading.received <= LIMIT:
        return None
    status, retry_after, kept = outcome.answer
    return outcome._replace(answer=(status, retry_after, Start(kept)))


def _closed(outcome):
    return outcome._replace(reusable=False) if outcome.reusable else None


RULES = [
    head_over_limit,
    too_many_interim,
    http10_closes,
    trailer_closes,
    stray_closes,
    body_over_keep_limit,
    framing_over_keep_limit,
    framing_cuts_the_body,
]


def expected(answer):
    """(Outcome, the names of the rules that decided it) of answer: aiohttp's client's, then
    the contract's rules; h11's reuse is held to it where h11 reads the answer and no rule
    decided. An AssertionError when aiohttp and h11 differ where no rule decides."""
    reading = aiohttp_reads(answer.data)
    outcome, applied = aiohttp_client(reading, answer), []
    for rule in RULES:
        ruled = rule(reading, answer, outcome)
        if ruled is not None:
            outcome = ruled
            applied.append(rule.__name__)
    if isinstance(outcome.answer, tuple) and not applied:
        keeps = h11_keeps(answer.data, answer.closes)
        assert keeps in (None, outcome.reusable), f"aiohttp and h11 differ on reuse: {answer}"
    return outcome, applied
