"""What an endpoint's answers leave in its delivery log as `response_body`, delivered by workers in
the test's process over real HTTP (two on PostgreSQL): the first 1024 bytes of the last answer's
body decoded as UTF-8, U+FFFD for what does not decode (and for NUL, which PostgreSQL's text
cannot hold), "" for an empty body, null when there was no answer; an answer that ends its
connection gives its body too; a body that trickles past the deadline leaves the status and the
part read, at the deadline. One case reads the log on real gunicorn."""

import socket
import time

import pytest

from harness.processes import wait_for
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token
from support.live_servers import environment

# One attempt each: the log shows it once it has failed or been delivered.
ONCE = {"WEBHOOK_MAX_ATTEMPTS": 1}
TIMEOUT = ENDPOINT_SETTINGS["WEBHOOK_TIMEOUT"]
# What a busy machine may add to an attempt that ends at its deadline.
MARGIN = 1
# 2400 bytes, no run of 1024 of them found anywhere else in it.
LONG = "".join(f"{n:04d}" for n in range(600))
# 511 two-byte characters and an "a": the 1024th byte is the first of a 512th "é".
CUT = "é" * 511 + "a" + "é" * 10


def answer(status, body, *headers):
    """The bytes of an answer of status with body, its length and headers given."""
    lines = [f"HTTP/1.1 {status}", *headers, f"Content-Length: {len(body)}", "", ""]
    return "\r\n".join(lines).encode() + body


# (name, the receiver's answer, whether it closes after it, the log's response_body).
BODIES = [
    ("over 1024 bytes", answer("500 Oops", LONG.encode()), False, LONG[:1024]),
    ("a character cut", answer("500 Oops", CUT.encode()), False, "é" * 511 + "a\ufffd"),
    ("not UTF-8", answer("500 Oops", b"caf\xe9 ferm\xe9"), False, "caf\ufffd ferm\ufffd"),
    ("NUL", answer("500 Oops", b"a\x00b"), False, "a\ufffdb"),
    ("empty", answer("200 OK", b""), False, ""),
    ("close", answer("503 Busy", b"no such order", "Connection: close"), False, "no such order"),
    ("1.0", b"HTTP/1.0 503 Busy\r\n\r\nno such order", True, "no such order"),
]


def test_the_log_shows_the_first_1024_bytes_of_each_answer_s_body_decoded(app_stack, scripted):
    server, admin, start = app_stack(**ONCE)
    endpoints = {}
    for name, sent, closes, _ in BODIES:
        receiver = scripted(lambda number, sent=sent: sent, closes=closes)
        endpoints[name] = admin.register(receiver.url, events=["plant.created"])["id"]
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})

    def shown():
        return {name: admin.newest(endpoint) for name, endpoint in endpoints.items()}

    def recorded():
        return all(each.get("status", "pending") != "pending" for each in shown().values())

    wait_for(recorded, 30, "the attempts recorded")
    assert {name: each["response_body"] for name, each in shown().items()} == {
        name: expected for name, _, _, expected in BODIES
    }


def test_a_refused_connection_leaves_no_body(app_stack):
    # A deadline far off: the attempt fails at once, well before it.
    timeout = 5
    with socket.socket() as unused:  # a port bound but never listened on refuses
        unused.bind(("127.0.0.1", 0))
        server, admin, start = app_stack(WEBHOOK_TIMEOUT=timeout, **ONCE)
        endpoint = admin.register(f"http://127.0.0.1:{unused.getsockname()[1]}/hook")
        start()
        created = time.monotonic()
        server.request("POST", "/plants", {"id": 1, "name": "Fern"})
        wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "failed", 30, "failure")
    assert time.monotonic() - created < timeout / 2
    delivery = admin.newest(endpoint["id"])
    assert delivery["last_error"].startswith("ClientConnectorError: ")
    assert (delivery["response_status"], delivery["response_body"]) == (None, None)


def test_a_body_that_trickles_past_the_deadline_leaves_the_status_and_the_part_read(
    app_stack, paced
):
    # The rest of the body comes long after the deadline: the attempt ends at it.
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
    receiver = paced(lambda number: [head + b"half of it", b"the rest"], pause=10 * TIMEOUT)
    server, admin, start = app_stack(**ONCE)
    endpoint = admin.register(receiver.url)
    start()
    created = time.monotonic()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "delivered", 30, "delivery")
    assert time.monotonic() - created < TIMEOUT + MARGIN + 1  # a round to record it
    delivery = admin.newest(endpoint["id"])
    assert (delivery["response_status"], delivery["response_body"]) == (200, "half of it")
    wait_for(lambda: receiver.attempts[0][1] is not None, 10, "the worker to close it")
    [(opened, closed)] = receiver.attempts
    assert TIMEOUT / 2 <= closed - opened < TIMEOUT + MARGIN  # ended at the deadline


@pytest.mark.e2e
@pytest.mark.backend_independent
def test_the_log_on_gunicorn_shows_the_receiver_s_own_error(
    live_server, database_url, make_app, scripted
):
    receiver = scripted(lambda number: answer("422 Unprocessable", b'{"error": "unknown plant"}'))
    server = live_server(database_url, **environment({**ENDPOINT_SETTINGS, **ONCE}))
    admin = Admin(server, issue_admin_token(database_url))
    endpoint = admin.register(receiver.url, events=["plant.created"])
    with running(make_app(**{**ENDPOINT_SETTINGS, **ONCE})):
        assert server.request("POST", "/plants", {"id": 1, "name": "Fern"}).status == 200
        wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "failed", 30, "failure")
    delivery = admin.newest(endpoint["id"])
    assert (delivery["response_status"], delivery["last_error"]) == (422, "HTTP 422")
    assert delivery["response_body"] == '{"error": "unknown plant"}'
