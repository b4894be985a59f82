"""How an attempt fails, in process against receivers on the wire: each fault ends the attempt
at once with the error recorded as it was when the worker used aiohttp, or at its deadline; and
TLS, verified against the trusted authorities."""

import socket
import ssl

import pytest
import trustme

from app.webhooks.worker.sender import Answer
from harness.receivers import GreetingReceiver, SilentReceiver, TricklingReceiver
from support.sending import OK, OK_READ, answers, at_deadline, send


@pytest.fixture(scope="module")
def authority():
    """A certificate authority of the test's own, and a server context it signed for
    127.0.0.1."""
    ca = trustme.CA()
    served = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(served)
    return ca, served


@pytest.mark.parametrize("kind", [SilentReceiver, TricklingReceiver], ids=["hung", "trickling"])
def test_an_attempt_ends_at_its_deadline(kind):
    receiver = kind() if kind is SilentReceiver else kind(0.2)
    try:
        [(answer, took)] = send(receiver.url)
    finally:
        receiver.close()
    assert answer == Answer("timeout")
    assert at_deadline(took)


def test_a_refused_connection_is_a_failed_attempt_named_for_its_reason():
    with socket.socket() as unused:  # a port bound but never listened on refuses
        unused.bind(("127.0.0.1", 0))
        [answer] = answers(send(f"http://127.0.0.1:{unused.getsockname()[1]}/hook"))
    assert answer.error.startswith("ClientConnectorError: ") and answer.status is None


@pytest.mark.parametrize(
    ("script", "error"),
    [
        pytest.param(lambda number: None, "ServerDisconnectedError", id="closed unanswered"),
        pytest.param(
            lambda number: b"SSH-2.0-OpenSSH\r\n\r\n", "ClientResponseError", id="not HTTP"
        ),
    ],
)
def test_a_fresh_connection_that_gets_no_http_answer_fails_the_attempt(scripted, script, error):
    receiver = scripted(script)
    assert answers(send(receiver.url)) == [Answer(error)]
    assert len(receiver.requests) == 1


@pytest.mark.parametrize(
    "greeting", [b"220 mail.example ESMTP\r\n", b""], ids=["speaks first", "closes at once"]
)
def test_a_receiver_that_does_not_wait_for_the_request_fails_the_attempt(greeting):
    receiver = GreetingReceiver(greeting)
    try:
        [answer] = answers(send(receiver.url))
    finally:
        receiver.close()
    # Which of these depends on when the bytes or the close cross the request.
    failures = ("ServerDisconnectedError", "ClientResponseError", "ClientOSError: ")
    assert answer.status is None and answer.error.startswith(failures)


def test_tls_is_verified_against_the_trusted_authorities(scripted, authority, monkeypatch):
    ca, served = authority
    receiver = scripted(lambda number: OK, tls=served)
    with ca.cert_pem.tempfile() as trusted:
        monkeypatch.setenv("SSL_CERT_FILE", trusted)
        assert answers(send(receiver.url, times=2)) == [OK_READ] * 2
    assert len({connection for connection, _, _ in receiver.requests}) == 1


def test_a_certificate_nobody_trusted_fails_the_attempt(scripted, authority):
    _, served = authority
    receiver = scripted(lambda number: OK, tls=served)
    [answer] = answers(send(receiver.url))
    assert answer.error.startswith("ClientConnectorCertificateError: [SSL: CERTIFICATE_VERIFY")
    assert receiver.requests == []


def test_a_tls_handshake_that_hangs_ends_at_the_deadline():
    receiver = SilentReceiver()
    try:
        [(answer, took)] = send(receiver.url.replace("http://", "https://"))
    finally:
        receiver.close()
    assert answer == Answer("timeout")
    assert at_deadline(took)
