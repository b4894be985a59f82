"""The sender's connections, in process against receivers on the wire: kept alive from one
delivery to the next, given up when the answer says so or leaves them unfit, and an attempt
written on a connection the receiver closed while idle goes again on a fresh one."""

import asyncio
import time

from sender_helpers import OK, TIMEOUT, answers, connections, send

from app.webhooks.worker import sender
from app.webhooks.worker.sender import Answer, Sender
from app.webhooks.worker.targets import Target
from harness.processes import wait_for

CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n"
CLOSING = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
# No length and not chunked: the body ends only with the connection.
UNENDING = b"HTTP/1.1 200 OK\r\n\r\nok"
LARGE = b"HTTP/1.1 200 OK\r\nContent-Length: 70000\r\n\r\n" + b"x" * 70000
OLD_KEPT = b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok"
OLD = b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok"


def test_deliveries_to_a_receiver_go_on_one_kept_connection(scripted):
    receiver = scripted(lambda number: OK)
    assert answers(send(receiver.url, times=5)) == [Answer(None, 200)] * 5
    assert connections(receiver) == 1


def test_a_chunked_answer_is_read_to_its_end_and_keeps_the_connection(scripted):
    receiver = scripted(lambda number: CHUNKED)
    assert answers(send(receiver.url, times=2)) == [Answer(None, 200)] * 2
    assert connections(receiver) == 1


def test_an_http_1_0_answer_keeps_the_connection_only_when_it_says_so(scripted):
    kept, closed = scripted(lambda number: OLD_KEPT), scripted(lambda number: OLD)
    assert answers(send(kept.url, times=2) + send(closed.url, times=2)) == [Answer(None, 200)] * 4
    assert (connections(kept), connections(closed)) == (1, 2)


def test_an_answer_that_leaves_the_connection_unfit_gives_the_next_a_new_one(scripted):
    closing, unending = scripted(lambda n: CLOSING), scripted(lambda n: UNENDING)
    large = scripted(lambda number: LARGE)
    timed = send(closing.url, times=2) + send(unending.url, times=2) + send(large.url, times=2)
    assert answers(timed) == [Answer(None, 200)] * 6
    assert [connections(each) for each in (closing, unending, large)] == [2, 2, 2]


def test_an_interim_answer_is_passed_over_for_the_final_one(scripted):
    receiver = scripted(lambda number: b"HTTP/1.1 100 Continue\r\n\r\n" + OK)
    assert answers(send(receiver.url, times=2)) == [Answer(None, 200)] * 2
    assert connections(receiver) == 1


def test_an_answer_nobody_asked_for_closes_the_connection(scripted):
    # An early hint after the answer, in the same packet: the connection is not given back
    # twice, so no two attempts ever share it.
    receiver = scripted(lambda number: OK + b"HTTP/1.1 103 Early Hints\r\n\r\n")
    assert answers(send(receiver.url, times=3)) == [Answer(None, 200)] * 3
    assert connections(receiver) == 3


def test_a_connection_closed_by_the_receiver_while_idle_is_retried_on_a_fresh_one(scripted):
    # The receiver reads the second request and closes unanswered, as one that timed the
    # connection out as the request crossed: sent again, and once, not counted as an attempt.
    receiver = scripted(lambda number: OK if number == 0 else None)
    assert answers(send(receiver.url, times=2)) == [Answer(None, 200)] * 2
    assert [(connection, number) for connection, number, _ in receiver.requests] == [
        (0, 0),
        (0, 1),
        (1, 0),
    ]


def test_a_request_is_sent_again_once_only(scripted):
    # Only the very first request is answered: the retry's fresh connection is closed
    # unanswered too, which fails the attempt rather than trying again.
    receiver = scripted(lambda number: None)
    receiver.answer = lambda number: OK if len(receiver.requests) == 1 else None
    assert answers(send(receiver.url, times=2)) == [
        Answer(None, 200),
        Answer("ServerDisconnectedError"),
    ]
    assert len(receiver.requests) == 3


def test_the_request_names_its_path_host_and_the_url_s_credentials(scripted):
    receiver = scripted(lambda number: OK)
    port = receiver.url.split(":")[2].split("/")[0]
    url = receiver.url.replace("http://", "http://shop:s%20cret@") + "?x=1"
    assert answers(send(url)) == [Answer(None, 200)]
    [(_, _, sent)] = receiver.requests
    head = sent.split(b"\r\n\r\n")[0].split(b"\r\n")
    assert head[:2] == [b"POST /hook?x=1 HTTP/1.1", f"Host: 127.0.0.1:{port}".encode()]
    # base64 of "shop:s cret", as aiohttp sent a URL's user name and password.
    assert b"Authorization: Basic c2hvcDpzIGNyZXQ=" in head
    assert sent.endswith(b"\r\n\r\n{}")


def test_a_connection_idle_past_its_time_is_closed(scripted, monkeypatch):
    monkeypatch.setattr(sender, "KEEP_IDLE", 0.2)
    receiver = scripted(lambda number: OK)

    async def send_then_idle():
        kept = Sender(TIMEOUT, [])
        answer = await kept.send(Target(receiver.url, "r", (b"k",), False), "d", "e", b"{}")
        started = time.monotonic()
        while kept.pools and time.monotonic() - started < 5:
            await asyncio.sleep(0.05)
        await kept.close()
        return answer, kept.pools

    assert asyncio.run(send_then_idle()) == (Answer(None, 200), {})
    wait_for(lambda: receiver.attempts[0][1] is not None, 5, "the receiver to see it closed")
