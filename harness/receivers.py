"""Webhook receivers that misbehave on the wire: one that hangs, one that trickles its answer,
one that trickles only its body."""

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
