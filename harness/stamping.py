"""A webhook receiver that stamps each request as its host's kernel received it, and counts
how many arrived within any one second (throttling's cases, the fault schedule's checker)."""

import socket
import struct

import httptools

from harness.receivers import RawReceiver

# Linux's SO_TIMESTAMPNS (asm-generic/socket.h), which Python's socket module does not name; the
# control message that carries the stamp has the same number.
SO_TIMESTAMPNS = 35


class StampingReceiver(RawReceiver):
    """Answers every request 200 on kept-alive connections, and keeps, for each, when its first
    bytes reached this host's kernel (SO_TIMESTAMPNS, seconds of CLOCK_REALTIME): a stamp that
    no busy thread of the receiver can delay. ``stamps`` holds (stamp, webhook-id)."""

    ANSWER = b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"

    def __init__(self):
        self.stamps = []
        super().__init__()
        # On the listener: a connection's first bytes may arrive before it is accepted.
        self.server.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)

    def serve(self, conn):
        """Stamp and answer each request until the client closes; llhttp frames them."""
        request = _Stamped()
        parser = httptools.HttpRequestParser(request)
        try:
            while True:
                data, request.ancillary, _, _ = conn.recvmsg(65536, socket.CMSG_SPACE(16))
                if not data:
                    return
                parser.feed_data(data)
                # Stamped and answered here, not in llhttp's callbacks, which would wrap a
                # failure in a parser error.
                for ancillary, headers in request.whole:
                    self.respond(conn, _stamp(ancillary), headers)
                request.whole.clear()
        except OSError:
            pass

    def respond(self, conn, stamp, headers):
        """Keep the stamp of a whole request whose headers (lower-case names) are given, and
        answer it; a subclass answers otherwise."""
        self.stamps.append((stamp, headers.get("webhook-id")))
        conn.sendall(self.ANSWER)

    def per_window(self, since=-float("inf"), until=float("inf")):
        """The most requests that arrived within any one second, between since and until."""
        return most_within_a_second(stamp for stamp, _ in self.stamps if since <= stamp < until)


def most_within_a_second(times):
    """The most of times (seconds) that fall within any one second."""
    times = sorted(times)
    most, first = 0, 0
    for last, at in enumerate(times):
        while at - times[first] >= 1:
            first += 1
        most = max(most, last - first + 1)
    return most


class _Stamped:
    """llhttp's callbacks for StampingReceiver: each whole request's headers (lower-case
    names), with the ancillary data of the read that brought its first bytes."""

    def __init__(self):
        self.ancillary, self.whole = [], []
        self._first, self._headers = None, {}

    def on_message_begin(self):
        self._first, self._headers = self.ancillary, {}

    def on_header(self, name, value):
        self._headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_message_complete(self):
        self.whole.append((self._first, self._headers))


def _stamp(ancillary):
    for level, kind, data in ancillary:
        if (level, kind) == (socket.SOL_SOCKET, SO_TIMESTAMPNS):
            seconds, nanoseconds = struct.unpack("qq", data)
            return seconds + nanoseconds / 1e9
    raise AssertionError("a request arrived without its kernel's stamp")
