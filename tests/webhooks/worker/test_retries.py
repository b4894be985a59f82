"""The retry rule on its own (worker/retries.py), and the Retry-After the sender reads off a real
receiver's answer: no database."""

import datetime
import email.utils

import pytest

from app import create_app
from app.webhooks import settings
from app.webhooks.tables.records import Delivery
from app.webhooks.worker.retries import RETRY_AFTER_CAP, Retries
from app.webhooks.worker.sender import Answer
from support.sending import answers, send

FAILED = Answer("HTTP 500", 500)
# When the delivery's event was written: the retry rule never reads it.
CREATED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
# Samples of each jittered delay: a schedule off by a doubling misses its range in all of them.
SAMPLES = 20


def retries(**values):
    """Retries on the webhook settings values (WEBHOOK_* names) as the app checks them."""
    return Retries(settings.of(create_app({"TESTING": True, **values})))


def delay_of(rule, attempts, answer=FAILED):
    """Seconds from the attempt's recording to its retry (retry_in) of an attempt number
    attempts ending with answer, as (at least, at most)."""
    delivery = Delivery(
        "d", "http://a.example/hook", "plant.created", "{}", CREATED, attempts, "claim"
    )
    outcome = rule.outcome(delivery, answer)
    assert (outcome.error, outcome.response_status, outcome.claim) == (
        answer.error,
        answer.status,
        "claim",
    )
    return outcome.retry_in, outcome.retry_in


def test_the_backoff_doubles_from_the_retry_delay_up_to_its_most_with_jitter():
    rule = retries(WEBHOOK_RETRY_DELAY=2, WEBHOOK_RETRY_MAX_DELAY=20, WEBHOOK_MAX_ATTEMPTS=10)
    for attempts, longest in ((1, 2), (2, 4), (3, 8), (4, 16), (5, 20), (9, 20)):
        delays = [delay_of(rule, attempts) for _ in range(SAMPLES)]
        assert all(longest / 2 <= low and high <= longest for low, high in delays), attempts
        # Jitter: failing receivers are not all tried again at the same moment.
        assert len({round(low, 3) for low, _ in delays}) > 1


def test_the_last_attempt_allowed_leaves_the_delivery_failed():
    rule = retries(WEBHOOK_MAX_ATTEMPTS=3)
    delivery = Delivery("d", "http://a.example/hook", "plant.created", "{}", CREATED, 3)
    assert [rule.another_allowed(n) for n in (1, 2, 3)] == [True, True, False]
    failed = rule.outcome(delivery, Answer("timeout"))
    assert (failed.error, failed.retry_in, failed.response_status) == ("timeout", None, None)
    delivered = rule.outcome(delivery._replace(attempts=1), Answer(None, 204))
    assert (delivered.error, delivered.retry_in, delivered.response_status) == (None, None, 204)


@pytest.mark.parametrize(
    ("body", "shown"),
    [
        (None, None),
        (b"", ""),
        (b"no such order", "no such order"),
        ("é".encode() * 511 + b"a" + "é".encode()[:1], "é" * 511 + "a\ufffd"),
        (b"caf\xe9", "caf\ufffd"),
        (b"\xed\xa0\x80", "\ufffd" * 3),
        (b"a\x00b", "a\ufffdb"),
    ],
    ids=["no answer", "empty", "UTF-8", "a character cut", "Latin-1", "a surrogate", "NUL"],
)
def test_the_outcome_holds_the_body_decoded_as_utf_8(body, shown):
    delivery = Delivery("d", "http://a.example/hook", "plant.created", "{}", CREATED, 1)
    error, status = ("timeout", None) if body is None else ("HTTP 500", 500)
    outcome = retries().outcome(delivery, Answer(error, status, body=body))
    assert outcome.response_body == shown


def test_a_retry_after_past_the_backoff_puts_the_next_attempt_off_to_it():
    rule = retries(WEBHOOK_RETRY_DELAY=1, WEBHOOK_RETRY_MAX_DELAY=1)
    low, high = delay_of(rule, 1, Answer("HTTP 503", 503, 120.0))
    assert low >= 120 - 1 and high <= 120 + 1
    # One sooner than the backoff does not bring the next attempt forward.
    low, high = delay_of(rule, 4, Answer("HTTP 429", 429, 0.0))
    assert low >= 0.5 and high <= 1


def test_a_retry_after_is_honoured_up_to_an_hour_past_the_backoff():
    rule = retries(WEBHOOK_RETRY_DELAY=10, WEBHOOK_RETRY_MAX_DELAY=10)
    low, high = delay_of(rule, 1, Answer("HTTP 503", 503, 10 * 3600.0))
    assert low >= 5 + RETRY_AFTER_CAP and high <= 10 + RETRY_AFTER_CAP


def http_date(seconds):
    """An HTTP date seconds from now."""
    when = datetime.datetime.now(datetime.UTC) + datetime.timedelta(seconds=seconds)
    return email.utils.format_datetime(when, usegmt=True)


def test_the_sender_reads_retry_after_in_seconds_and_as_an_http_date(make_receiver):
    receiver = make_receiver()
    receiver.script = [
        (503, {"Retry-After": "120"}),
        (429, {"Retry-After": http_date(600)}),
        (503, {"Retry-After": http_date(-600)}),  # a date past: due at once
        (500, {"Retry-After": "120"}),  # only a 429 or a 503 asks to wait
    ]
    seconds, dated, past, other = answers(send(receiver.url, times=4))
    assert seconds == Answer("HTTP 503", 503, 120.0, b"")
    assert (dated.error, dated.status) == ("HTTP 429", 429)
    assert 600 - 5 <= dated.retry_after <= 600  # HTTP dates are in whole seconds
    assert past == Answer("HTTP 503", 503, 0.0, b"")
    assert other == Answer("HTTP 500", 500, None, b"")


UNREADABLE = [
    # A digit to str.isdigit() that float() refuses; sent as UTF-8, as a receiver's server would.
    pytest.param("²".encode().decode("latin-1"), id="superscript two"),
    pytest.param("Mon, 01 Jan 99999999999999999999 00:00:00 GMT", id="year past datetime"),
    pytest.param("Mon, 01 Jan 2035 00:00:00", id="date without a zone"),
    pytest.param("soon", id="words"),
    pytest.param("-5", id="negative"),
]


@pytest.mark.parametrize("value", UNREADABLE)
def test_an_unreadable_retry_after_is_ignored(make_receiver, value):
    receiver = make_receiver()
    receiver.script = [(503, {"Retry-After": value})]
    (answer,) = answers(send(receiver.url))
    assert answer == Answer("HTTP 503", 503, None, b"")
