"""One attempt of the sender against a receiver on the wire, in process: once the status line
and headers are in, the status is the answer, however the body then comes."""

import pytest

from app.webhooks.worker.sender import Answer
from harness.receivers import TricklingBodyReceiver
from support.sending import MARGIN, TIMEOUT, send

# A body of ten bytes, one every half second: five seconds, far past the deadline.
INTERVAL = 0.5


def without_body(answer):
    """answer without its body, checked to be the start of the trickle's: the deadline cuts it
    after a byte or two, as the clock falls."""
    assert (b"a" * TricklingBodyReceiver.LENGTH).startswith(answer.body), answer
    return answer._replace(body=None)


@pytest.fixture
def make_trickler():
    """TricklingBodyReceiver(...) for the test, closed after it."""
    made = []

    def make(*args, **kwargs):
        made.append(TricklingBodyReceiver(*args, **kwargs))
        return made[-1]

    yield make
    for each in made:
        each.close()


def test_a_2xx_whose_body_trickles_past_the_deadline_is_delivered(make_trickler):
    receiver = make_trickler(INTERVAL)
    [(answer, took)] = send(receiver.url)
    assert without_body(answer) == Answer(None, 200)
    assert took < TIMEOUT + MARGIN


def test_a_2xx_whose_body_is_cut_short_is_delivered(make_trickler):
    receiver = make_trickler(0.01, sent=3)
    [(answer, took)] = send(receiver.url)
    assert answer == Answer(None, 200, body=b"aaa")
    assert took < TIMEOUT + MARGIN


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        ("500 Internal Server Error", None, Answer("HTTP 500", 500)),
        ("503 Service Unavailable", {"Retry-After": "7"}, Answer("HTTP 503", 503, 7.0)),
    ],
)
def test_a_failure_whose_body_trickles_keeps_its_status(make_trickler, status, headers, expected):
    receiver = make_trickler(INTERVAL, status=status, headers=headers)
    [(answer, took)] = send(receiver.url)
    assert without_body(answer) == expected
    assert took < TIMEOUT + MARGIN


def test_a_connection_whose_body_was_not_read_carries_no_next_delivery(make_trickler):
    receiver = make_trickler(INTERVAL)
    timed = send(receiver.url, times=2)
    # A connection of its own for each: reused, the second would read the first's late bytes.
    assert [without_body(answer) for answer, _ in timed] == [Answer(None, 200)] * 2
    assert all(took < TIMEOUT + MARGIN for _, took in timed)
    assert len(receiver.attempts) == 2
