"""A total deadline for one HTTP exchange: httpx's timeouts restart with every byte read."""

import contextlib
import socket
import threading

# httpcore's trace events that hand over a new connection's network stream.
NEW_STREAM_EVENTS = ("connection.connect_tcp.complete", "connection.start_tls.complete")


class Deadline:
    """Shuts down the sockets of an exchange once ``seconds`` have passed, whatever it awaits.

    Use it as a context manager around the exchange, and pass ``trace`` as the request's
    ``trace`` extension: httpcore reports each connection it opens through it. A shut-down
    socket makes the pending read or write fail at once, as an ``httpx`` error.
    """

    def __init__(self, seconds):
        self.expired = False
        self._sockets = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True

    def __enter__(self):
        self._timer.start()
        return self

    def __exit__(self, *exc_info):
        self._timer.cancel()

    def trace(self, event, info):
        """httpx's trace extension: remember the socket of every connection the exchange opens."""
        if event not in NEW_STREAM_EVENTS:
            return
        sock = info["return_value"].get_extra_info("socket")
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut_down(sock)

    def _expire(self):
        with self._lock:
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut_down(sock)


def _shut_down(sock):
    # A socket already closed belongs to an exchange that ended by itself.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
