"""/webhooks: the contract's 'Validating an endpoint', each row its own case with its status
and message, on POST and PATCH, through HTTP on both backends; and the address rule's bounded
wait for DNS."""

import threading
import time

import pytest
from marshmallow import ValidationError

from app.webhooks.api import registration
from app.webhooks.worker.dialer import refusal
from support.endpoints import NOT_PUBLIC, URL, register, send
from support.errors import assert_error
from support.tokens import issue_admin_token

pytestmark = pytest.mark.backend_independent

EVERY_TYPE = ["plant.created", "plant.deleted", "plant.updated"]
VALID = {"url": URL}
PAYLOADS = "payload: Must be one of: plant, event, thin."


@pytest.mark.parametrize(
    ("change", "message"),
    [
        pytest.param({"url": 7}, "url: Not a valid string.", id="url not a string"),
        pytest.param({"url": None}, "url: Field may not be null.", id="url null"),
        pytest.param(
            {"url": "https://a.example/" + "x" * 2031},
            "url: Longer than maximum length 2048.",
            id="url over 2048",
        ),
        pytest.param(
            {"url": "/hooks"},
            "url: Must be an absolute http:// or https:// URL with a host.",
            id="url relative",
        ),
        pytest.param(
            {"url": "ftp://files.example/in"},
            "url: Must be an absolute http:// or https:// URL with a host.",
            id="url not http",
        ),
        pytest.param(
            {"url": "http:///in"},
            "url: Must be an absolute http:// or https:// URL with a host.",
            id="url without host",
        ),
        pytest.param(
            {"url": "https://a.example/in#top"}, "url: Must not have a fragment.", id="fragment"
        ),
        pytest.param(
            {"url": "https://a.example/in#"}, "url: Must not have a fragment.", id="empty fragment"
        ),
        pytest.param(
            {"url": "https://a.example/a b"},
            "url: Must not contain spaces or control characters.",
            id="url with a space",
        ),
        pytest.param(
            {"url": "https://a.exa\nmple/"},
            "url: Must not contain spaces or control characters.",
            id="url with a newline",
        ),
        pytest.param(
            {"url": "https://a.example:99999/"}, "url: Not a valid URL.", id="port out of range"
        ),
        pytest.param({"url": "https://[::1/"}, "url: Not a valid URL.", id="unclosed bracket"),
        pytest.param(
            {"url": f"https://{'a' * 64}.example/"},
            "url: Not a valid URL: its host is not a valid name.",
            id="host label over 63",
        ),
        pytest.param(
            {"url": "https://a\u200bb.example/"},
            "url: Not a valid URL: its host is not a valid name.",
            id="host with a zero-width space",
        ),
        pytest.param(
            {"url": "http://[v1.a:b]/x"},
            "url: Not a valid URL: its host is not a valid name.",
            id="IPvFuture host, a literal the client reads as IPv6",
        ),
        pytest.param(
            {"url": "http://[vF.localhost]/x"},
            "url: Not a valid URL: its host is not a valid name.",
            id="IPvFuture host, a name in brackets",
        ),
        pytest.param(
            {"url": "http://[2606:4700::1%25eth0]/in"},
            "url: Must not name an IPv6 zone: it is an interface of one host.",
            id="IPv6 zone",
        ),
        pytest.param(
            {"url": "https://a.example/\u0000"},
            "url: Must not contain a NUL character.",
            id="url NUL",
        ),
        pytest.param(
            {"url": "https://a.example/\ud800"},
            "url: Must not contain an unpaired surrogate.",
            id="url surrogate",
        ),
        pytest.param({"events": "plant.created"}, "events: Not a valid list.", id="events str"),
        pytest.param({"events": None}, "events: Field may not be null.", id="events null"),
        pytest.param(
            {"events": []}, "events: Must name at least one event type.", id="events empty"
        ),
        pytest.param(
            {"events": ["plant.created", "plant.eaten"]},
            "events.1: Must be one of: plant.created, plant.deleted, plant.updated.",
            id="events unknown type",
        ),
        pytest.param({"events": [1]}, "events.0: Not a valid string.", id="events item int"),
        pytest.param(
            {"events": ["plant.created\u0000"]},
            "events.0: Must be one of: plant.created, plant.deleted, plant.updated.",
            id="events NUL",
        ),
        pytest.param({"description": 5}, "description: Not a valid string.", id="description int"),
        pytest.param(
            {"description": None}, "description: Field may not be null.", id="description null"
        ),
        pytest.param(
            {"description": "x" * 256},
            "description: Longer than maximum length 255.",
            id="description over 255",
        ),
        pytest.param(
            {"description": "a\u0000b"},
            "description: Must not contain a NUL character.",
            id="description NUL",
        ),
        pytest.param(
            {"description": "\udc00"},
            "description: Must not contain an unpaired surrogate.",
            id="description surrogate",
        ),
        pytest.param({"enabled": "true"}, "enabled: Not a valid boolean.", id="enabled string"),
        pytest.param({"enabled": 1}, "enabled: Not a valid boolean.", id="enabled 1"),
        pytest.param({"enabled": None}, "enabled: Field may not be null.", id="enabled null"),
        pytest.param(
            {"throttle_rate": "20"}, "throttle_rate: Not a valid integer.", id="throttle string"
        ),
        pytest.param(
            {"throttle_rate": True}, "throttle_rate: Not a valid integer.", id="throttle true"
        ),
        pytest.param(
            {"throttle_rate": 20.0}, "throttle_rate: Not a valid integer.", id="throttle float"
        ),
        pytest.param(
            {"throttle_rate": 0},
            "throttle_rate: Must be greater than or equal to 1 and less than or equal to 10000.",
            id="throttle 0",
        ),
        pytest.param(
            {"throttle_rate": 10001},
            "throttle_rate: Must be greater than or equal to 1 and less than or equal to 10000.",
            id="throttle over 10000",
        ),
        pytest.param({"payload": "Event"}, PAYLOADS, id="payload capitalised"),
        pytest.param({"payload": "full"}, PAYLOADS, id="payload unknown"),
        pytest.param({"payload": None}, "payload: Field may not be null.", id="payload null"),
        pytest.param({"payload": 1}, PAYLOADS, id="payload number"),
        pytest.param({"payload": ["event"]}, PAYLOADS, id="payload list"),
        pytest.param({"secret": "whsec_x"}, "secret: Unknown field.", id="unknown key"),
        pytest.param({"id": "ep_mine"}, "id: Unknown field.", id="id given"),
    ],
)
@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_each_bad_input_is_a_400_naming_the_field(client, admin_headers, method, change, message):
    path = "/webhooks"
    if method == "PATCH":
        path += "/" + register(client, admin_headers)["id"]
    body = {**VALID, **change} if method == "POST" else change
    response = send(client, method, path, admin_headers, body)
    assert assert_error(response, 400) == message
    assert len(client.get("/webhooks", headers=admin_headers).get_json()) == (method == "PATCH")


def test_a_create_without_url_is_a_400(client, admin_headers):
    response = send(client, "POST", "/webhooks", admin_headers, {"events": EVERY_TYPE})
    assert assert_error(response, 400) == "url: Missing data for required field."


@pytest.mark.parametrize(
    ("url", "address"),
    [
        pytest.param("http://10.0.0.1/in", "10.0.0.1", id="private"),
        pytest.param("http://127.0.0.1:8080/in", "127.0.0.1", id="loopback"),
        pytest.param("http://169.254.169.254/latest/meta-data", "169.254.169.254", id="metadata"),
        pytest.param("http://[::1]/in", "::1", id="IPv6 loopback"),
        pytest.param("http://100.64.0.1/", "100.64.0.1", id="carrier-grade NAT"),
        pytest.param("http://[fd00::1]/", "fd00::1", id="unique-local"),
        pytest.param("http://224.0.0.1/", "224.0.0.1", id="multicast"),
        pytest.param("http://0.0.0.0/", "0.0.0.0", id="unspecified"),
        pytest.param("http://240.0.0.1/", "240.0.0.1", id="reserved"),
        pytest.param("http://[::ffff:10.0.0.1]/", "10.0.0.1", id="IPv4-mapped"),
        # The client maps a host with IDNA (UTS-46): these are the addresses it would reach.
        pytest.param("http://127.0.0.\U0001fbf1:8080/x", "127.0.0.1", id="Unicode digit"),
        pytest.param(
            "http://169.254.169.\U0001fbf2\U0001fbf5\U0001fbf4/",
            "169.254.169.254",
            id="Unicode digits, metadata",
        ),
        pytest.param("http://\uff11\uff12\uff17.0.0.1/", "127.0.0.1", id="fullwidth digits"),
        # IPv6 forms that carry an IPv4 address are judged by it.
        pytest.param("http://[64:ff9b::7f00:1]/x", "127.0.0.1", id="NAT64 loopback"),
        pytest.param("http://[64:ff9b::a00:1]/x", "10.0.0.1", id="NAT64 private"),
        pytest.param("http://[64:ff9b:1::a00:1]/", "64:ff9b:1::a00:1", id="NAT64 local use"),
        pytest.param("http://[2002:7f00:1::]/x", "127.0.0.1", id="6to4 loopback"),
        pytest.param("http://[2002:a9fe:a9fe::]/x", "169.254.169.254", id="6to4 metadata"),
        pytest.param("http://[::127.0.0.1]/x", "127.0.0.1", id="IPv4-compatible"),
        pytest.param("http://[::8.8.8.8]/", "::808:808", id="IPv4-compatible, deprecated"),
        pytest.param(
            "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "127.0.0.1", id="Teredo client"
        ),
        pytest.param("http://[fec0::1]/x", "fec0::1", id="site-local"),
        pytest.param("http://[fe80::1]/", "fe80::1", id="IPv6 link-local"),
        pytest.param("http://[4000::1]/", "4000::1", id="IPv6 outside global unicast"),
    ],
)
@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_an_address_that_is_not_public_is_a_400_naming_it(
    client, admin_headers, method, url, address
):
    path = "/webhooks"
    if method == "PATCH":
        path += "/" + register(client, admin_headers)["id"]
    response = send(client, method, path, admin_headers, {"url": url})
    assert assert_error(response, 400) == f"url: {address} {NOT_PUBLIC}."


@pytest.mark.parametrize("host", ["localhost", "2130706433"], ids=["localhost", "integer"])
def test_a_name_that_resolves_to_a_private_address_is_a_400_naming_both(
    client, admin_headers, host
):
    response = send(client, "POST", "/webhooks", admin_headers, {"url": f"http://{host}:9/"})
    message = assert_error(response, 400)
    assert message in {
        f"url: {address} {NOT_PUBLIC} ({host} resolves to it)." for address in ("127.0.0.1", "::1")
    }


def test_a_name_that_does_not_resolve_and_a_public_address_are_accepted(client, admin_headers):
    for url in (
        "https://nowhere.invalid/in",
        "https://93.184.215.14/in",
        "http://[2606:4700::1]/",
        # Forms that carry a public IPv4 address are judged by it, and pass.
        "http://[::ffff:93.184.215.14]/",
        "http://[64:ff9b::5db8:d70e]/",
        "http://[2002:5db8:d70e::]/",
    ):
        assert send(client, "POST", "/webhooks", admin_headers, {"url": url}).status_code == 201


def test_allowed_networks_let_private_addresses_in(make_app):
    app = make_app(WEBHOOK_ALLOWED_NETWORKS="127.0.0.0/8,::1/128,10.0.0.0/8")
    client, headers = app.test_client(), issue_admin_token(app)
    for url in ("http://127.0.0.1:8080/", "http://localhost/", "http://[::1]/", "http://10.1.2.3/"):
        assert send(client, "POST", "/webhooks", headers, {"url": url}).status_code == 201
    refused = send(client, "POST", "/webhooks", headers, {"url": "http://192.168.1.1/"})
    assert assert_error(refused, 400) == f"url: 192.168.1.1 {NOT_PUBLIC}."


def test_an_unchanged_url_is_not_checked_again(make_app):
    app = make_app(WEBHOOK_ALLOWED_NETWORKS="10.0.0.0/8")
    client, headers = app.test_client(), issue_admin_token(app)
    created = register(client, headers, url="http://10.0.0.1/")
    client = make_app().test_client()  # the operator narrowed it since, and restarted
    path = f"/webhooks/{created['id']}"
    response = send(client, "PATCH", path, headers, {"url": "http://10.0.0.1/", "description": "x"})
    assert response.status_code == 200
    moved = send(client, "PATCH", path, headers, {"url": "http://10.0.0.2/"})
    assert assert_error(moved, 400) == f"url: 10.0.0.2 {NOT_PUBLIC}."


def _resolving_to(address, waiting=None):
    def resolve(host, port, **_kwargs):
        if waiting is not None:
            waiting.wait(30)
        return [(None, None, None, "", (address, 0))]

    return resolve


def test_the_connection_guard_refuses_what_is_not_an_address():
    # A row stored before registration refused IPvFuture hosts: yarl reads one as IPv6.
    assert refusal("v1.a:b", []) == "v1.a:b is not an address"


def test_a_name_is_refused_when_any_address_it_resolves_to_is_not_public():
    with pytest.raises(ValidationError) as refused:
        registration.check("https://shop.example/", [], _resolving_to("10.9.8.7"))
    assert refused.value.messages == {
        "url": [f"10.9.8.7 {NOT_PUBLIC} (shop.example resolves to it)."]
    }
    registration.check("https://shop.example/", [], _resolving_to("93.184.215.14"))


def test_a_resolver_that_hangs_holds_a_registration_no_longer_than_the_timeout():
    release = threading.Event()
    started = time.monotonic()
    try:
        registration.check("https://slow.example/", [], _resolving_to("10.0.0.1", release), 0.2)
        assert registration.addresses("slow.example", _resolving_to("10.0.0.1", release), 0.2) == []
    finally:
        release.set()
    assert time.monotonic() - started < 5
