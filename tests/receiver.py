"""A webhook receiver over real HTTP for the tests: it records every request it gets."""

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
