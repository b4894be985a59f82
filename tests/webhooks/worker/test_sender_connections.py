"""The sender's connections, in process against receivers on the wire: kept alive from one
delivery to the next, and given up when the answer says so, leaves them unfit, or came with
bytes after it (one read given by hand, where TCP cuts the bytes is the point); a
request goes once, whatever becomes of its connection; the request's head."""

import asyncio
import base64
import socket
import time

import pytest
import uvloop

from app.webhooks.worker import sender
from app.webhooks.worker.connections import Connection
from app.webhooks.worker.pools import Pool
from app.webhooks.worker.sender import Answer, Sender
from app.webhooks.worker.targets import Target
from harness.processes import wait_for
from harness.receivers import EarlyAnswerReceiver
from support.sending import OK, OK_READ, TIMEOUT, answers, at_deadline, connections, send

CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
CLOSING = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
# No length and not chunked: the body ends only with the connection.
UNENDING = b"HTTP/1.1 200 OK\r\n\r\nok"
LARGE = b"HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n" + b"x" * 70000
OLD_KEPT = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"
OLD = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"


def test_deliveries_to_a_receiver_go_on_one_kept_connection(scripted):
    receiver = scripted(lambda number: OK)
    assert answers(send(receiver.url, times=5)) == [OK_READ] * 5
    assert connections(receiver) == 1


def test_a_chunked_answer_is_read_to_its_end_and_keeps_the_connection(scripted):
    receiver = scripted(lambda number: CHUNKED)
    assert answers(send(receiver.url, times=2)) == [OK_READ] * 2
    assert connections(receiver) == 1


def test_an_http_1_0_answer_never_keeps_its_connection(scripted):
    # Not even when it says keep-alive: h11's rule, and httpcore's.
    kept, closed = scripted(lambda number: OLD_KEPT), scripted(lambda number: OLD)
    assert answers(send(kept.url, times=2) + send(closed.url, times=2)) == [OK_READ] * 4
    assert (connections(kept), connections(closed)) == (2, 2)


def test_an_answer_that_leaves_the_connection_unfit_gives_the_next_a_new_one(scripted):
    closing, large = scripted(lambda n: CLOSING), scripted(lambda number: LARGE)
    timed = send(closing.url, times=2) + send(large.url, times=2)
    assert answers(timed) == [OK_READ] * 2 + [Answer(None, 200, body=b"x" * 1024)] * 2
    assert [connections(each) for each in (closing, large)] == [2, 2]


def test_a_body_that_ends_only_with_a_connection_left_open_is_read_until_the_deadline(scripted):
    # Its end never comes: the status stands with the body read, and the next goes on a new one.
    unending = scripted(lambda n: UNENDING)
    timed = send(unending.url, times=2)
    assert [answer for answer, _ in timed] == [OK_READ] * 2
    assert all(at_deadline(took) for _, took in timed), timed
    assert connections(unending) == 2


def test_an_interim_answer_is_passed_over_for_the_final_one(scripted):
    receiver = scripted(lambda number: b"HTTP/1.1 100 Continue\r\n\r\n" + OK)
    assert answers(send(receiver.url, times=2)) == [OK_READ] * 2
    assert connections(receiver) == 1


def test_an_answer_nobody_asked_for_closes_the_connection(scripted):
    # An early hint after the answer, in the same packet: the connection is not given back
    # twice, so no two attempts ever share it.
    receiver = scripted(lambda number: OK + b"HTTP/1.1 103 Early Hints\r\n\r\n")
    assert answers(send(receiver.url, times=3)) == [OK_READ] * 3
    assert connections(receiver) == 3


def test_a_request_on_a_connection_closed_while_idle_fails_its_attempt_and_goes_once(scripted):
    # The receiver reads the second request and closes unanswered, as one that timed the
    # connection out as the request crossed, or that acted on it and then closed: the attempt
    # fails, and counts; a POST is never sent again behind it (RFC 9112, 9.3.1.1). The next
    # attempt opens a fresh connection.
    receiver = scripted(lambda number: OK if number == 0 else None)
    assert answers(send(receiver.url, times=3)) == [
        OK_READ,
        Answer("ServerDisconnectedError"),
        OK_READ,
    ]
    assert [(connection, number) for connection, number, _ in receiver.requests] == [
        (0, 0),
        (0, 1),
        (1, 0),
    ]


@pytest.mark.parametrize(
    "stray",
    [
        b"HTTP/1.1 200 OK\r\nX-Stray: ",
        b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
        b"\x00garbage",
    ],
    ids=["an answer begun", "a whole answer", "not HTTP"],
)
def test_bytes_after_an_answer_close_its_connection_and_answer_no_later_request(scripted, stray):
    # In the same packet as the first answer: the second request's 500 is read as its own.
    receiver = scripted(lambda number: None)
    failed = b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n"
    receiver.answer = lambda number: OK + stray if len(receiver.requests) == 1 else failed
    assert answers(send(receiver.url, times=2)) == [OK_READ, Answer("HTTP 500", 500, body=b"")]
    assert connections(receiver) == 2


def test_a_lone_line_end_in_the_read_that_ends_an_answer_of_64_kib_closes_its_connection():
    # The read is cut at the head's limit, where the answer ends: the CR is the cut's rest. The
    # read is given to the connection here, whole: TCP may deliver the bytes in other pieces.
    start = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Pad: "
    whole = start + b"a" * (65536 - len(start) - 6) + b"\r\n\r\nok"

    async def read():
        loop = asyncio.get_running_loop()
        pool, (ours, peer) = Pool(loop), socket.socketpair()
        _, connection = await loop.create_connection(lambda: Connection(pool), sock=ours)
        try:
            answer = connection.exchange(b"POST / HTTP/1.1\r\n\r\n", loop.time() + TIMEOUT)
            connection.data_received(whole + b"\r")
            return await answer, connection in pool.idle
        finally:
            pool.close()
            peer.close()

    started = time.monotonic()
    assert uvloop.run(read()) == ((200, None, b"ok"), False)
    assert time.monotonic() - started < TIMEOUT


def test_an_answer_before_the_request_is_written_whole_closes_the_connection():
    # A body larger than the sockets' buffers, refused after its head: the rest of it is never
    # written ahead of the next request.
    receiver = EarlyAnswerReceiver(b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\n\r\n")
    try:
        timed = send(receiver.url, times=2, body=b"x" * (16 << 20))
    finally:
        receiver.close()
    assert answers(timed) == [Answer("HTTP 413", 413, body=b"")] * 2
    assert len(receiver.heads) == 2


def test_the_request_names_its_path_host_and_the_url_s_credentials(scripted):
    receiver = scripted(lambda number: OK)
    port = receiver.url.split(":")[2].split("/")[0]
    url = receiver.url.replace("http://", "http://shop:s%20cret@") + "?x=1"
    assert answers(send(url)) == [OK_READ]
    [(_, _, sent)] = receiver.requests
    head = sent.split(b"\r\n\r\n")[0].split(b"\r\n")
    assert head[:2] == [b"POST /hook?x=1 HTTP/1.1", f"Host: 127.0.0.1:{port}".encode()]
    # base64 of "shop:s cret", as aiohttp sent a URL's user name and password.
    assert b"Authorization: Basic c2hvcDpzIGNyZXQ=" in head
    assert sent.endswith(b"\r\n\r\n{}")


def test_credentials_latin_1_cannot_hold_are_sent_in_utf_8(scripted):
    # "ğ" has no Latin-1 byte: RFC 7617's charset, not a traceback at every attempt.
    receiver = scripted(lambda number: OK)
    assert answers(send(receiver.url.replace("http://", "http://%C4%9Fshop:p@"))) == [OK_READ]
    [(_, _, sent)] = receiver.requests
    assert b"Authorization: Basic " + base64.b64encode("ğshop:p".encode()) in sent


def test_an_ipv6_zone_id_is_connected_through_and_never_sent_in_host(scripted):
    receiver = scripted(lambda number: OK, host="::1")
    assert answers(send(receiver.url.replace("[::1]", "[::1%25lo]"))) == [OK_READ]
    [(_, _, sent)] = receiver.requests
    port = receiver.url.rsplit(":", 1)[1].split("/")[0]
    assert sent.split(b"\r\n")[1] == f"Host: [::1]:{port}".encode()


def test_a_connection_idle_past_its_time_is_closed(scripted, monkeypatch):
    monkeypatch.setattr(sender, "KEEP_IDLE", 0.2)
    receiver = scripted(lambda number: OK)

    async def send_then_idle():
        kept = Sender(TIMEOUT, [])
        answer = await kept.send(Target(receiver.url, "r", (b"k",)), "d", "e", b"{}")
        started = time.monotonic()
        while kept.pools and time.monotonic() - started < 5:
            await asyncio.sleep(0.05)
        await kept.close()
        return answer, kept.pools

    assert asyncio.run(send_then_idle()) == (OK_READ, {})
    wait_for(lambda: receiver.attempts[0][1] is not None, 5, "the receiver to see it closed")
