"""Webhook receivers over real HTTP for the tests: they record every request they get."""

import itertools
import select
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Receiver:
    """Answers each POST with the next scripted status (200 once the script runs out)."""

    def __init__(self):
        self.requests = []
        self.script = []
        self.delay = 0
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver._lock:
                    receiver.requests.append((dict(self.headers), body))
                    status = receiver.script.pop(0) if receiver.script else 200
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

    def deliveries(self):
        """The X-Plantstore-Delivery id of every request so far, in order."""
        with self._lock:
            return [headers["X-Plantstore-Delivery"] for headers, _ in self.requests]

    def close(self):
        """Stop serving."""
        self.server.shutdown()
        self.server.server_close()


class TricklingReceiver:
    """Reads each request, then answers one byte every interval seconds and never finishes.

    ``attempts`` holds, per connection, when it opened and when the client gave it up.
    """

    def __init__(self, interval):
        self.interval = interval
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
            threading.Thread(target=self._trickle, args=(conn,), daemon=True).start()

    def _trickle(self, conn):
        attempt = [time.monotonic(), None]
        self.attempts.append(attempt)
        answer = itertools.chain(b"HTTP/1.1 200 OK\r\nX-Slow: ", itertools.repeat(ord("a")))
        with conn:
            for byte in answer:
                readable, _, _ = select.select([conn], [], [], self.interval)
                try:
                    if (readable and not conn.recv(65536)) or self._stop.is_set():
                        break
                    conn.sendall(bytes([byte]))
                except OSError:
                    break
        attempt[1] = time.monotonic()

    def close(self):
        """Stop accepting and answering."""
        self._stop.set()
        self.server.close()
