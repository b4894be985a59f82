"""New connections, in process on uvloop against a name server of the test's own: a name's
addresses tried as Happy Eyeballs says (in aiohappyeyeballs' order, the next when one fails, or
0.25 s after it began), the first to connect taken and the others closed, no more than two of a
family in flight; an endpoint's addresses each judged by the guard before they are tried."""

import ipaddress
import socket

import pytest
from aiohappyeyeballs.impl import _interleave_addrinfos
from hypothesis import given
from hypothesis import strategies as st

from app.webhooks.worker.dialer import HAPPY_EYEBALLS_DELAY, IN_FLIGHT_PER_FAMILY, _interleaved
from app.webhooks.worker.sender import Answer
from support.connecting import Connecting
from support.endpoints import NOT_PUBLIC
from support.sending import OK, OK_READ, TIMEOUT, answers, at_deadline, send

NAME = "shop.example"
# Loopback addresses beside 127.0.0.1: nothing listens there unless a test says so.
SWALLOWING, REFUSING = "127.0.0.2", "127.0.0.3"
# Sixty more, for a name with as many addresses that swallow packets.
SIXTY = [f"127.0.1.{number}" for number in range(1, 61)]


@pytest.fixture
def swallowing():
    """listen(port, address=SWALLOWING): a listener on address:port whose backlog is full, so
    that the SYN of a new connection gets no answer at all, as from an address that swallows
    packets."""
    made = []

    def listen(port, address=SWALLOWING):
        listener = socket.socket()
        listener.bind((address, port))
        listener.listen(0)
        made.append(listener)
        for _ in range(3):  # the queue Linux keeps for a backlog of 0, and more
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex((address, port))
            made.append(client)

    yield listen
    for each in made:
        each.close()


def on(receiver, name_server, *addresses):
    """The receiver's URL under NAME, which the name server resolves to addresses, in order."""
    name_server.names[NAME] = list(addresses)
    return receiver.url.replace("127.0.0.1", NAME)


def port_of(receiver):
    """The port a receiver listens on."""
    return int(receiver.url.rsplit(":", 1)[1].split("/")[0])


def test_an_address_that_swallows_packets_gives_way_to_the_next_after_the_delay(
    scripted, name_server, swallowing
):
    receiver = scripted(lambda number: OK)
    swallowing(port_of(receiver))
    url = on(receiver, name_server, SWALLOWING, "127.0.0.1")
    [(answer, took)] = send(url, nameservers=[name_server.address])
    assert answer == OK_READ
    assert HAPPY_EYEBALLS_DELAY - 0.01 < took < HAPPY_EYEBALLS_DELAY + 0.5
    assert len(receiver.requests) == 1


def test_an_address_that_refuses_gives_way_to_the_next_at_once(scripted, name_server):
    receiver = scripted(lambda number: OK)
    url = on(receiver, name_server, REFUSING, "127.0.0.1")
    [(answer, took)] = send(url, nameservers=[name_server.address])
    assert answer == OK_READ
    assert took < HAPPY_EYEBALLS_DELAY


def test_sixty_addresses_that_swallow_packets_hold_two_sockets_at_a_time(
    scripted, name_server, swallowing
):
    # Before, one socket more every 0.25 s, each held to the deadline: 20 in a 5 s attempt.
    receiver = scripted(lambda number: OK)
    for address in SIXTY:
        swallowing(port_of(receiver), address)
    url = on(receiver, name_server, *SIXTY)
    with Connecting(SIXTY, port_of(receiver)) as connecting:
        [(answer, took)] = send(url, nameservers=[name_server.address])
    assert answer == Answer("timeout")
    assert at_deadline(took), took
    assert connecting.most == IN_FLIGHT_PER_FAMILY, sorted(connecting.tried)
    # Still the next address every 0.25 s, the oldest of the two given up for it.
    assert len(connecting.tried) >= TIMEOUT / HAPPY_EYEBALLS_DELAY - 1


def test_an_address_after_three_that_swallow_packets_is_reached_two_sockets_at_a_time(
    scripted, name_server, swallowing
):
    receiver = scripted(lambda number: OK)
    for address in SIXTY[:3]:
        swallowing(port_of(receiver), address)
    url = on(receiver, name_server, *SIXTY[:3], "127.0.0.1")
    with Connecting(SIXTY[:3], port_of(receiver)) as connecting:
        [(answer, took)] = send(url, nameservers=[name_server.address])
    assert answer == OK_READ
    assert 3 * HAPPY_EYEBALLS_DELAY - 0.01 < took < TIMEOUT, took
    assert connecting.most == IN_FLIGHT_PER_FAMILY
    assert len(receiver.requests) == 1


@pytest.mark.parametrize(
    ("allowed", "error"),
    [
        (None, "ClientConnectorError: Connection refused"),
        (
            "127.0.0.3/32",
            "ClientConnectorError: Multiple exceptions: [Errno 111] Connection refused, "
            f"[Errno 13] 127.0.0.1 {NOT_PUBLIC}",
        ),
    ],
    ids=["refused alike: said once", "refused apart: each said"],
)
def test_a_name_none_of_whose_addresses_connects_fails_naming_why(name_server, allowed, error):
    with socket.socket() as unused:  # a port bound but never listened on refuses
        unused.bind(("127.0.0.1", 0))
        name_server.names[NAME] = [REFUSING, "127.0.0.1"]
        url = f"http://{NAME}:{unused.getsockname()[1]}/hook"
        networks = [ipaddress.ip_network(allowed)] if allowed else []
        timed = send(
            url, guarded=bool(allowed), allowed=networks, nameservers=[name_server.address]
        )
    assert answers(timed) == [Answer(error)]


def test_an_endpoint_s_addresses_are_judged_each_before_it_is_tried(scripted, name_server):
    # The first is outside the allowed networks: refused without a packet, the next reached.
    receiver = scripted(lambda number: OK)
    url = on(receiver, name_server, REFUSING, "127.0.0.1")
    allowed = [ipaddress.ip_network("127.0.0.1/32")]
    [(answer, took)] = send(url, guarded=True, allowed=allowed, nameservers=[name_server.address])
    assert answer == OK_READ
    assert took < HAPPY_EYEBALLS_DELAY


@given(st.lists(st.sampled_from([socket.AF_INET, socket.AF_INET6]), max_size=12))
def test_a_names_addresses_are_tried_in_the_order_aiohappyeyeballs_gives_them(families):
    # The order aiohttp connected in before the dialer was ours: RFC 8305's interleaving, one
    # address of each family in turn, the resolver's first family first.
    addresses = [
        (family, f"10.0.0.{n}" if family == socket.AF_INET else f"fd00::{n}")
        for n, family in enumerate(families)
    ]
    infos = [(family, socket.SOCK_STREAM, 6, "", (address, 443)) for family, address in addresses]
    reference = [(info[0], info[4][0]) for info in _interleave_addrinfos(infos)]
    assert _interleaved(addresses) == reference
