"""Webhook receivers over real HTTP for the tests: they record every request they get."""

import itertools
import json
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.webhooks.signatures import standard_secret


class Receiver:
    """Answers each POST with the next scripted status (``status`` once the script runs out).

    Given a secret, it checks every request with the standardwebhooks library, as a receiver
    would, and keeps those that fail in ``unverified``.
    """

    def __init__(self, secret=None, status=200):
        self.requests = []
        self.arrivals = []
        self.unverified = []
        self.script = []
        self.status = status
        self.delay = 0
        self._lock = threading.Lock()
        self._verifier = Webhook(standard_secret(secret)) if secret else None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            # Kept-alive connections, as a receiver behind any real server has them.
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver._verify(self.headers, body)
                with receiver._lock:
                    receiver.requests.append((dict(self.headers), body))
                    receiver.arrivals.append(time.monotonic())
                    status = receiver.script.pop(0) if receiver.script else receiver.status
                time.sleep(receiver.delay)
                self.send_response(status)
                if 300 <= status < 400:
                    self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _verify(self, headers, body):
        if self._verifier is None:
            return
        try:
            self._verifier.verify(body, dict(headers))
        except WebhookVerificationError as error:
            self.unverified.append((dict(headers), str(error)))

    def arrived(self):
        """{plant id: when its first delivery arrived (time.monotonic())}."""
        first = {}
        with self._lock:
            for (_, body), at in zip(self.requests, self.arrivals, strict=True):
                first.setdefault(json.loads(body)["id"], at)
        return first

    def deliveries(self):
        """The X-Plantstore-Delivery id of every request so far, in order."""
        with self._lock:
            return [headers["X-Plantstore-Delivery"] for headers, _ in self.requests]

    def close(self):
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


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
