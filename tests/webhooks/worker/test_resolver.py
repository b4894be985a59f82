"""Receivers' names looked up, in process on uvloop as the worker runs, against a name server of
the test's own: names whose server never answers hold up their own attempts alone, to their
deadline, and a family whose questions go unanswered holds up none past RFC 8305's resolution
delay; an IP literal is never looked up; a name is looked up once at a time, and its addresses
kept for the connections of the next seconds, no longer than their TTL, as is an answer that it
does not exist."""

import socket

import pytest

from app.webhooks.worker.resolver import RESOLUTION_DELAY
from app.webhooks.worker.sender import Answer
from support.sending import (
    OK,
    OK_READ,
    PAUSE,
    TIMEOUT,
    answers,
    at_deadline,
    at_once,
    connections,
    send,
    until,
)

HUNG = [f"hung-{number}.example" for number in range(6)]
CLOSING = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"
# Seconds an attempt that asks the test's name server, on loopback, takes at most on a busy
# machine (the first of a Sender's makes its c-ares channels too).
AT_ONCE = 0.25
NOT_FOUND = Answer("ClientConnectorDNSError: Domain name not found")


def test_names_whose_server_never_answers_hold_up_no_other_receiver(scripted, name_server):
    # A worker whose name server never answers: six endpoints' names hang, each tried three
    # times at once, beside a receiver reached by an IP literal and by a name in /etc/hosts.
    healthy = scripted(lambda number: OK)
    name_server.hung.update(HUNG)
    hung = [healthy.url.replace("127.0.0.1", name) for name in HUNG] * 3
    reached = [healthy.url, healthy.url.replace("127.0.0.1", "localhost")] * 3
    timed = at_once(hung + reached, [name_server.address])
    assert [answer for answer, _ in timed] == [Answer("timeout")] * 18 + [OK_READ] * 6
    assert all(at_deadline(took) for _, took in timed[:18]), timed
    assert all(took < TIMEOUT / 2 for _, took in timed[18:])
    # One lookup of each name for its three attempts, A and AAAA; none of an address, nor of a
    # name the hosts file holds.
    assert all(name_server.questions(name) in (1, 2) for name in HUNG)
    assert set(name_server.asked) <= {(name, kind) for name in HUNG for kind in ("A", "AAAA")}


def test_a_name_is_looked_up_once_for_the_connections_of_the_next_seconds(scripted, name_server):
    receiver = scripted(lambda number: CLOSING)  # a connection of its own for each attempt
    name_server.names["shop.example"] = "127.0.0.1"
    url = receiver.url.replace("127.0.0.1", "shop.example")
    assert answers(send(url, times=3, nameservers=[name_server.address])) == [OK_READ] * 3
    assert connections(receiver) == 3
    assert set(name_server.asked.values()) == {1}


def test_a_name_that_does_not_exist_fails_the_attempt_at_once(name_server):
    [answer] = answers(send("http://nowhere.example/hook", nameservers=[name_server.address]))
    assert answer == NOT_FOUND


def _loopback6():
    # Whether this host has ::1 to listen on: a host without IPv6 runs the IPv4 case alone.
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.parametrize(
    ("unanswered", "address"),
    [
        ("AAAA", "127.0.0.1"),
        pytest.param("A", "::1", marks=pytest.mark.skipif(not _loopback6(), reason="no ::1")),
    ],
    ids=["AAAA unanswered", "A unanswered"],
)
def test_a_family_whose_questions_go_unanswered_holds_up_a_lookup_no_longer_than_50_ms(
    scripted, name_server, unanswered, address
):
    # A TTL of 0: each attempt's connection looks the name up afresh. One family's question is
    # never answered; c-ares asked for both at once, and answered after 2 s (10 s when the
    # other's answer was in its cache), whatever the host's IPv6.
    receiver = scripted(lambda number: CLOSING, host=address)
    name_server.names["half.example"] = address
    name_server.ttls["half.example"] = 0
    name_server.hung.add(("half.example", unanswered))
    url = receiver.url.replace(f"[{address}]" if ":" in address else address, "half.example")
    timed = send(url, times=3, nameservers=[name_server.address])
    assert answers(timed) == [OK_READ] * 3
    # Each waited the resolution delay for the unanswered family, and no longer.
    assert all(RESOLUTION_DELAY - 0.005 <= took < RESOLUTION_DELAY + AT_ONCE for _, took in timed)
    answered = "A" if unanswered == "AAAA" else "AAAA"
    assert name_server.asked["half.example", answered] == 3


def test_a_name_that_does_not_exist_is_asked_about_once_for_the_attempts_of_the_next_seconds(
    name_server,
):
    # The test's server says so without an SOA, which c-ares alone would keep it by.
    timed = send("http://nowhere.example/hook", times=3, nameservers=[name_server.address])
    assert answers(timed) == [NOT_FOUND] * 3
    assert all(took < AT_ONCE for _, took in timed[1:]), timed  # the kept answer, at once
    assert name_server.asked == {("nowhere.example", "A"): 1, ("nowhere.example", "AAAA"): 1}


def test_a_name_s_addresses_are_kept_no_longer_than_their_ttl(scripted, name_server):
    # A TTL of 1 s, under the 10 s addresses are kept at most: a connection after it asks again.
    receiver = scripted(lambda number: CLOSING)
    name_server.names["shop.example"] = "127.0.0.1"
    name_server.ttls["shop.example"] = 1
    url = receiver.url.replace("127.0.0.1", "shop.example")

    def asked_again():
        return name_server.asked["shop.example", "A"] == 2

    timed = until(url, asked_again, 3, nameservers=[name_server.address])
    assert [answer for answer, _ in timed] == [OK_READ] * len(timed)
    assert asked_again()
    # Asked again by the first attempt to begin a second after the first: not before it.
    assert 1 - 0.01 <= timed[-1][1] < 1 + PAUSE + AT_ONCE, timed
