"""Receivers' names looked up, in process on uvloop as the worker runs, against a name server of
the test's own: names whose server never answers hold up their own attempts alone, to their
deadline; an IP literal is never looked up; a name is looked up once at a time, and its
addresses kept for the connections of the next seconds."""

from app.webhooks.worker.sender import Answer
from support.sending import OK, TIMEOUT, answers, at_deadline, at_once, connections, send

HUNG = [f"hung-{number}.example" for number in range(6)]
CLOSING = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"


def test_names_whose_server_never_answers_hold_up_no_other_receiver(scripted, name_server):
    # A worker whose name server never answers: six endpoints' names hang, each tried three
    # times at once, beside a receiver reached by an IP literal and by a name in /etc/hosts.
    healthy = scripted(lambda number: OK)
    name_server.hung.update(HUNG)
    hung = [healthy.url.replace("127.0.0.1", name) for name in HUNG] * 3
    reached = [healthy.url, healthy.url.replace("127.0.0.1", "localhost")] * 3
    timed = at_once(hung + reached, [name_server.address])
    assert [answer for answer, _ in timed] == [Answer("timeout")] * 18 + [Answer(None, 200)] * 6
    assert all(at_deadline(took) for _, took in timed[:18]), timed
    assert all(took < TIMEOUT / 2 for _, took in timed[18:])
    # One lookup of each name for its three attempts (A, and AAAA on a host with IPv6); none
    # of an address, nor of a name the hosts file holds.
    assert all(name_server.questions(name) in (1, 2) for name in HUNG)
    assert set(name_server.asked) <= {(name, kind) for name in HUNG for kind in ("A", "AAAA")}


def test_a_name_is_looked_up_once_for_the_connections_of_the_next_seconds(scripted, name_server):
    receiver = scripted(lambda number: CLOSING)  # a connection of its own for each attempt
    name_server.names["shop.example"] = "127.0.0.1"
    url = receiver.url.replace("127.0.0.1", "shop.example")
    assert answers(send(url, times=3, nameservers=[name_server.address])) == [Answer(None, 200)] * 3
    assert connections(receiver) == 3
    assert set(name_server.asked.values()) == {1}


def test_a_name_that_does_not_exist_fails_the_attempt_at_once(name_server):
    [answer] = answers(send("http://nowhere.example/hook", nameservers=[name_server.address]))
    assert answer == Answer("ClientConnectorDNSError: Domain name not found")
