"""How an answer is read, in process against receivers on the wire: the forms aiohttp's response
parser accepts are read as it reads them, and those it refuses fail the attempt; a head (status
line, headers, trailers) over 64 KiB fails it at once, not at its deadline; a trailer never
changes what the head said."""

import pytest

from app.webhooks.worker.sender import Answer
from harness.receivers import EndlessReceiver
from support.sending import MARGIN, OK_READ, TIMEOUT, answers, connections, send

TOO_LONG = "ClientResponseError: the answer's head is over 65536 bytes"
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
        b"HTTP/1.1 200 OK\r\nX-Note: a\x01b\r\nContent-Length: 2\r\n\r\nok",
        CHUNKED + b"2  \r\nok\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nX-Note: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
    ],
    ids=["bare LF", "a control character in a value", "spaces after a chunk size", "folded"],
)
def test_an_answer_aiohttp_accepts_is_read_as_it_reads_it(scripted, answer):
    receiver = scripted(lambda number: answer)
    assert answers(send(receiver.url, times=2)) == [OK_READ] * 2
    assert connections(receiver) == 1


@pytest.mark.parametrize(
    "answer",
    [
        # The contract's example, refused by both of aiohttp 3.14's parsers (RFC 9112, 5.1).
        b"HTTP/1.1 200 OK\r\nX-Note : a\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
    ],
    ids=["a space before a colon", "a length and chunked", "two lengths"],
)
def test_an_answer_aiohttp_refuses_fails_the_attempt(scripted, answer):
    receiver = scripted(lambda number: answer)
    assert answers(send(receiver.url)) == [Answer("ClientResponseError")]


@pytest.mark.parametrize(
    ("head", "filler"),
    [
        (b"HTTP/1.1 200 ", b"a" * 16384),
        (b"HTTP/1.1 200 OK\r\nX-Big: ", b"a" * 16384),
        (b"HTTP/1.1 200 OK\r\n", b"X-Many: " + b"a" * 100 + b"\r\n"),
        (b"HTTP/1.1 103 Early Hints\r\n", b"Link: </a>; rel=preload\r\n"),
    ],
    ids=["status line", "header", "headers", "an interim answer's headers"],
)
def test_a_head_without_end_fails_the_attempt_at_once(head, filler):
    receiver = EndlessReceiver(head, filler)
    try:
        [(answer, took)] = send(receiver.url)
    finally:
        receiver.close()
    assert answer == Answer(TOO_LONG)
    assert took < TIMEOUT / 2


@pytest.mark.parametrize(
    "filler",
    [b"a" * 16384, b"X-Many: " + b"a" * 100 + b"\r\n"],
    ids=["trailer", "trailers"],
)
def test_trailers_without_end_leave_the_status_standing(filler):
    # The status decided once the headers were in; the connection closes at the limit.
    receiver = EndlessReceiver(CHUNKED + b"2\r\nok\r\n0\r\nX-Big: ", filler)
    try:
        [(answer, took)] = send(receiver.url)
    finally:
        receiver.close()
    assert answer == OK_READ
    assert took < TIMEOUT / 2


def test_a_head_just_within_the_limit_is_read(scripted):
    headers = b"".join(b"X-Many-%03d: %s\r\n" % (n, b"a" * 100) for n in range(500))
    answer = b"HTTP/1.1 200 OK\r\n" + headers + b"Content-Length: 0\r\n\r\n"
    receiver = scripted(lambda number: answer)
    assert answers(send(receiver.url)) == [Answer(None, 200, body=b"")]


def test_a_trailer_never_changes_what_the_head_said(scripted):
    answer = (
        b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"0\r\nRetry-After: 3000\r\n\r\n"
    )
    receiver = scripted(lambda number: answer)
    [(outcome, took)] = send(receiver.url)
    assert outcome == Answer("HTTP 503", 503, 5.0, b"")
    assert took < TIMEOUT + MARGIN
