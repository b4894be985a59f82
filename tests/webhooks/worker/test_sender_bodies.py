"""The first bytes of an answer's body, in process against receivers on the wire: an attempt
gives the first 1024 bytes of the final answer's body beside its status, however the answer
frames it; an answer that ends its connection is read that far, or to its end or the
connection's, and no further; a body that trickles past the deadline leaves the status standing
with the bytes read by then, at the deadline."""

import pytest

from app.webhooks.worker.sender import Answer
from support.sending import TIMEOUT, answers, at_deadline, connections, send

# 2400 bytes, no run of 1024 of them found anywhere else in it.
LONG = b"".join(b"%04d" % n for n in range(600))
CHUNKED = b"HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
ERROR = b"no such order"
FAILED = b"HTTP/1.1 503 Service Unavailable\r\n"


def pieces(data, size):
    """data cut into pieces of size bytes."""
    return [data[at : at + size] for at in range(0, len(data), size)]


def chunked(body, size):
    """body as chunks of size bytes, then the last chunk."""
    chunks = pieces(body, size)
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks) + b"0\r\n\r\n"


@pytest.mark.parametrize(
    "answer",
    [
        b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 2400\r\n\r\n" + LONG,
        CHUNKED + chunked(LONG, 700),
        CHUNKED + chunked(LONG, 1),
    ],
    ids=["a length", "chunks across the 1024th byte", "a byte a chunk"],
)
def test_a_body_over_1024_bytes_gives_its_first_1024_and_keeps_the_connection(scripted, answer):
    receiver = scripted(lambda number: answer)
    assert answers(send(receiver.url, times=2)) == [Answer("HTTP 500", 500, body=LONG[:1024])] * 2
    assert connections(receiver) == 1


@pytest.mark.parametrize(
    ("answer", "closes"),
    [
        (FAILED + b"Connection: close\r\nContent-Length: 13\r\n\r\n" + ERROR, False),
        (b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 13\r\n\r\n" + ERROR, False),
        (
            FAILED + b"Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(ERROR, 5),
            False,
        ),
        (b"HTTP/1.0 503 Service Unavailable\r\n\r\n" + ERROR, True),
        (FAILED + b"Connection: close\r\n\r\n" + ERROR, True),
    ],
    ids=["close, a length", "1.0, a length", "close, chunked", "1.0, ended by the close", "close"],
)
def test_an_answer_that_ends_its_connection_gives_its_body(scripted, answer, closes):
    receiver = scripted(lambda number: answer, closes=closes)
    timed = send(receiver.url, times=2)
    assert [read for read, _ in timed] == [Answer("HTTP 503", 503, body=ERROR)] * 2
    assert max(took for _, took in timed) < TIMEOUT / 2, timed
    assert connections(receiver) == 2


@pytest.mark.parametrize(
    "head",
    [b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", b"HTTP/1.0 200 OK\r\n\r\n"],
    ids=["close", "1.0"],
)
def test_an_answer_that_ends_its_connection_is_read_no_further_than_1024_bytes(paced, head):
    # 100 bytes a piece after the first 1000, and no end but the connection's: the attempt ends
    # as the 1024th byte comes, not at the deadline.
    receiver = paced(lambda number: [head + LONG[:1000], *pieces(LONG[1000:], 100)])
    [(answer, took)] = send(receiver.url)
    assert answer == Answer(None, 200, body=LONG[:1024])
    assert took < TIMEOUT / 2


@pytest.mark.parametrize(
    "head",
    [
        b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 10\r\n\r\n",
        b"HTTP/1.0 200 OK\r\n\r\n",
    ],
    ids=["kept alive", "close", "1.0"],
)
def test_a_body_that_trickles_past_the_deadline_keeps_the_status_and_the_bytes_read(paced, head):
    # The rest of the body comes long after the deadline: the attempt ends at it, no later.
    receiver = paced(lambda number: [head + b"abc", b"defghij"], pause=3 * TIMEOUT)
    [(answer, took)] = send(receiver.url)
    assert answer == Answer(None, 200, body=b"abc")
    assert at_deadline(took)


@pytest.mark.parametrize(
    ("answer", "closes"),
    [
        (b"HTTP/1.1 204 No Content\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", False),
        (b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n", False),
        (b"HTTP/1.0 200 OK\r\n\r\n", True),
    ],
    ids=["204", "a length of 0", "chunked", "close", "1.0, ended by the close"],
)
def test_an_empty_body_is_empty_bytes(scripted, answer, closes):
    receiver = scripted(lambda number: answer, closes=closes)
    [(read, took)] = send(receiver.url)
    assert read == Answer(None, int(answer.split()[1]), body=b"")
    assert took < TIMEOUT / 2


def test_a_body_whose_framing_breaks_gives_what_came_before(scripted):
    receiver = scripted(lambda number: CHUNKED + b"2\r\nok\r\nzz\r\n")
    assert answers(send(receiver.url)) == [Answer("HTTP 500", 500, body=b"ok")]
