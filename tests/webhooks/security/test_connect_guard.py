"""The guard at connect time, in process over real HTTP: an endpoint's name that resolves to an
address outside PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS only once the worker connects (DNS
rebinding) is refused on the address it would connect to; the operator's receivers are not
guarded."""

import asyncio
import ipaddress
import time

import pytest

from app.webhooks.worker.sender import Answer
from harness.processes import wait_for
from support.endpoints import NOT_PUBLIC
from support.sending import OK, OK_READ, attempts, send

# Reserved (RFC 6761): it resolves nowhere, but where the test's name server says.
NAME = "rebind.invalid"
REFUSED = f"ClientConnectorError: 127.0.0.1 {NOT_PUBLIC}"
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"),)
# Seconds a refusal may take: no connection is opened, so no timeout is waited for.
REFUSED_WITHIN = 1


@pytest.fixture
def rebound(name_server):
    """bind(address): from then on NAME resolves to address at the test's name server, as a
    name whose DNS records changed after it was registered; before, it does not resolve."""

    def bind(address):
        name_server.names[NAME] = address

    return bind


def test_an_endpoint_never_takes_a_connection_the_operator_s_receiver_kept(scripted):
    # The same origin, first as the operator's receiver (not guarded), then as an endpoint.
    receiver = scripted(lambda number: OK)
    sends = [(receiver.url, False), (receiver.url, True)]
    [(trusted, _), (guarded, took)] = asyncio.run(attempts(sends))
    assert (trusted, guarded) == (OK_READ, Answer(REFUSED))
    assert took < REFUSED_WITHIN
    assert len(receiver.requests) == 1


def rebound_url(receiver):
    """The receiver's URL under NAME."""
    return receiver.url.replace("127.0.0.1", NAME)


def test_a_name_rebound_to_loopback_is_refused_at_connect_time(make_receiver, name_server, rebound):
    receiver = make_receiver()
    rebound("127.0.0.1")
    [(answer, took)] = send(rebound_url(receiver), guarded=True, nameservers=[name_server.address])
    assert answer == Answer(REFUSED)
    assert took < REFUSED_WITHIN
    assert receiver.requests == []


def test_a_name_rebound_inside_the_allowed_networks_is_reached(make_receiver, name_server, rebound):
    receiver = make_receiver()
    rebound("127.0.0.1")
    url, at = rebound_url(receiver), [name_server.address]
    [(answer, _)] = send(url, guarded=True, allowed=LOOPBACK, nameservers=at)
    assert answer == Answer(None, 200, body=b"")
    assert len(receiver.requests) == 1


def test_the_operator_s_receivers_are_not_guarded(make_receiver, name_server, rebound):
    receiver = make_receiver()
    rebound("127.0.0.1")
    [(answer, _)] = send(rebound_url(receiver), nameservers=[name_server.address])
    assert answer == Answer(None, 200, body=b"")
    assert len(receiver.requests) == 1


# The guard is the worker's socket factory: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_endpoint_registered_before_its_name_pointed_to_loopback_is_never_reached(
    app_stack, make_receiver, name_server, rebound
):
    receiver = make_receiver()
    server, admin, start = app_stack(WEBHOOK_ALLOWED_NETWORKS="")
    # Its name resolved to nothing when the API checked it, which lets it in.
    endpoint = admin.register(rebound_url(receiver), events=["plant.created"])
    rebound("127.0.0.1")
    start(count=1, WEBHOOK_NAMESERVERS=name_server.address)
    created = time.monotonic()
    assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "failed", 10, "the failure")
    # Three attempts, refused at once, 0.1 then 0.2 s apart at the most.
    assert time.monotonic() - created < 5
    delivery = admin.newest(endpoint["id"])
    assert (delivery["last_error"], delivery["response_status"]) == (REFUSED, None)
    assert delivery["attempts"] == 3
    assert receiver.requests == []
