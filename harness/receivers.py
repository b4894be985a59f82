"""Webhook receivers that misbehave on the wire: one that hangs, one that trickles its answer,
one that trickles only its body, one that answers from a script, one that speaks first."""

import contextlib
import itertools
import select
import socket
import threading
import time


class _RawReceiver:
    """A TCP listener that hands each connection to serve(conn) in a thread of its own.

    ``attempts`` holds, per connection, when it opened and when the client gave it up.
    """

    def __init__(self):
        self.attempts = []
        self._stop = threading.Event()
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/hook"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self._attempt, args=(conn,), daemon=True).start()

    def _attempt(self, conn):
        attempt = [time.monotonic(), None]
        self.attempts.append(attempt)
        with conn:
            self.serve(conn)
        attempt[1] = time.monotonic()

    def close(self):
        """Stop accepting and answering."""
        self._stop.set()
        self.server.close()


class SilentReceiver(_RawReceiver):
    """Takes each connection and its request, and never answers: a receiver that hangs."""

    def serve(self, conn):
        """Read until the client gives up."""
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass


class TricklingReceiver(_RawReceiver):
    """Reads each request, then answers one byte every interval seconds and never finishes."""

    def __init__(self, interval):
        self.interval = interval
        super().__init__()

    def serve(self, conn):
        """Answer a byte at a time until the client gives up or the receiver closes."""
        answer = itertools.chain(b"HTTP/1.1 200 OK\r\nX-Slow: ", itertools.repeat(ord("a")))
        for byte in answer:
            readable, _, _ = select.select([conn], [], [], self.interval)
            try:
                if (readable and not conn.recv(65536)) or self._stop.is_set():
                    break
                conn.sendall(bytes([byte]))
            except OSError:
                break


class TricklingBodyReceiver(_RawReceiver):
    """Reads each request and answers its status line and headers at once, announcing a body of
    LENGTH bytes; then sends one byte of it every interval seconds, and closes after sent."""

    LENGTH = 10

    def __init__(self, interval, status="200 OK", headers=None, sent=LENGTH):
        self.interval = interval
        lines = [f"HTTP/1.1 {status}", f"Content-Length: {self.LENGTH}"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        self.head = ("\r\n".join(lines) + "\r\n\r\n").encode()
        self.sent = sent
        super().__init__()

    def serve(self, conn):
        """Answer the head once the request arrives, then the body a byte at a time until the
        client gives up, sent bytes are out, or the receiver closes."""
        try:
            if not conn.recv(65536):
                return
            conn.sendall(self.head)
            for _ in range(self.sent):
                readable, _, _ = select.select([conn], [], [], self.interval)
                if (readable and not conn.recv(65536)) or self._stop.is_set():
                    return
                conn.sendall(b"a")
        except OSError:
            pass


class ScriptedReceiver(_RawReceiver):
    """Answers the requests on each connection from a script: answer(number) gives the raw bytes
    of the answer to a connection's request number (0 first), or None to close it unanswered.
    tls, an ssl.SSLContext, serves https. ``requests`` holds (connection, number, bytes)."""

    def __init__(self, answer, tls=None):
        self.answer = answer
        self.tls = tls
        self.requests = []
        self._connections = itertools.count()
        super().__init__()
        if tls is not None:
            self.url = self.url.replace("http://", "https://")

    def serve(self, conn):
        """Read each request whole, then answer it as the script says."""
        connection = next(self._connections)
        try:
            if self.tls is not None:
                conn = self.tls.wrap_socket(conn, server_side=True)
            reader = conn.makefile("rb")
            for number in itertools.count():
                request = _read_request(reader)
                if request is None:
                    return
                self.requests.append((connection, number, request))
                answer = self.answer(number)
                if answer is None:
                    return
                conn.sendall(answer)
        except OSError:
            pass
        finally:
            conn.close()


def _read_request(reader):
    # The head up to its blank line, then Content-Length bytes; None when the client closed.
    head = b""
    while not head.endswith(b"\r\n\r\n"):
        line = reader.readline()
        if not line:
            return None
        head += line
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    return head + reader.read(length)


class GreetingReceiver(_RawReceiver):
    """Sends greeting as each connection opens, without waiting for a request, and closes it:
    a server of another protocol that speaks first, or one that closes at once."""

    def __init__(self, greeting):
        self.greeting = greeting
        super().__init__()

    def serve(self, conn):
        """Greet, then close."""
        with contextlib.suppress(OSError):  # the client may be gone already
            conn.sendall(self.greeting)
