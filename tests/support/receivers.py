"""A webhook receiver over real HTTP for the tests: it records and verifies every request."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from app.webhooks.security.signatures import standard_secret


def plant_of(body):
    """The plant a delivery's body carries, whatever its payload: a "plant" body is the plant,
    an "event" one's data is (a "thin" one's data holds its id alone)."""
    value = json.loads(body)
    return value["data"] if "type" in value else value


class Server(ThreadingHTTPServer):
    """A thread per connection, and room for a window's worth of connections opened at once."""

    request_queue_size = 256


class Receiver:
    """Answers each POST with the next scripted status (``status`` once the script runs out); a
    script entry may be (status, {header: value}).

    Given a secret (an endpoint's whsec_ one, or the operator's), it checks every request with
    the standardwebhooks library, as a receiver would, and keeps those that fail in
    ``unverified``.
    """

    def __init__(self, secret=None, status=200):
        self.requests = []
        self.arrivals = []
        # [arrived, answered] of each request (answered None while it is open).
        self.attempts = []
        self.unverified = []
        self.script = []
        self.status = status
        self.delay = 0
        self._lock = threading.Lock()
        self._verifier = None
        if secret:
            self.verify_with(secret)
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            # Kept-alive connections, as a receiver behind any real server has them.
            protocol_version = "HTTP/1.1"

            def do_POST(self):
                arrived = time.monotonic()
                attempt = [arrived, None]
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver._verify(self.headers, body)
                with receiver._lock:
                    receiver.requests.append((dict(self.headers), body))
                    receiver.arrivals.append(arrived)
                    receiver.attempts.append(attempt)
                    status = receiver.script.pop(0) if receiver.script else receiver.status
                status, headers = status if isinstance(status, tuple) else (status, {})
                time.sleep(receiver.delay)
                self.send_response(status)
                if 300 <= status < 400:
                    headers.setdefault("Location", "/elsewhere")
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "0")
                self.end_headers()
                attempt[1] = time.monotonic()

            def log_message(self, *args):
                pass

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def verify_with(self, secret):
        """Check the requests from now on with this secret."""
        if not secret.startswith("whsec_"):
            secret = standard_secret(secret)
        self._verifier = Webhook(secret)

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
                first.setdefault(plant_of(body)["id"], at)
        return first

    def deliveries(self):
        """The X-Plantstore-Delivery id of every request so far, in order."""
        with self._lock:
            return [headers["X-Plantstore-Delivery"] for headers, _ in self.requests]

    def close(self):
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


class FirstAnswerLate(Receiver):
    """Answers its first request after first_delay seconds, every other one at once."""

    def __init__(self, first_delay, **kwargs):
        self.first_delay = first_delay
        super().__init__(**kwargs)

    @property
    def delay(self):
        """Read by the handler after it recorded the request: the first one waits."""
        return self.first_delay if len(self.requests) <= 1 else 0

    @delay.setter
    def delay(self, _value):
        pass
