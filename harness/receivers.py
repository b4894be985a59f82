"""Webhook receivers that misbehave on the wire: one that hangs, one that trickles its answer,
one that trickles only its body, one that answers from a script, one that speaks first, one
whose answer never ends, and one that answers before it has read the request; and one that
stamps each request as its host's kernel received it."""

import contextlib
import itertools
import select
import socket
import struct
import threading
import time

import httptools

# Linux's SO_TIMESTAMPNS (asm-generic/socket.h), which Python's socket module does not name; the
# control message that carries the stamp has the same number.
SO_TIMESTAMPNS = 35


class _RawReceiver:
    """A TCP listener that hands each connection to serve(conn) in a thread of its own.

    ``attempts`` holds, per connection, when it opened and when the client gave it up.
    """

    def __init__(self, host="127.0.0.1"):
        self.attempts = []
        self._stop = threading.Event()
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.server = socket.create_server((host, 0), family=family)
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        self.url = f"http://{shown}:{self.server.getsockname()[1]}/hook"
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

    def __init__(self, answer, tls=None, host="127.0.0.1"):
        self.answer = answer
        self.tls = tls
        self.requests = []
        self._connections = itertools.count()
        super().__init__(host)
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


class EndlessReceiver(_RawReceiver):
    """Reads the request, sends head, then filler and more filler until the client closes: a
    header, a trailer or a body without end, as head leaves off."""

    def __init__(self, head, filler=b"a" * 16384):
        self.head = head
        self.filler = filler
        super().__init__()

    def serve(self, conn):
        """Answer without end."""
        try:
            _read_request(conn.makefile("rb"))
            conn.sendall(self.head)
            while not self._stop.is_set():
                conn.sendall(self.filler)
        except OSError:  # the client closed
            pass


class EarlyAnswerReceiver(_RawReceiver):
    """Reads a request's head alone, answers it, and reads nothing more: as a receiver that
    refuses a body before it comes (a 413, say). ``heads`` holds each connection's first line."""

    def __init__(self, answer):
        self.answer = answer
        self.heads = []
        super().__init__()

    def serve(self, conn):
        """Answer after the head; leave the body unread until the receiver closes."""
        reader = conn.makefile("rb")
        with contextlib.suppress(OSError):
            self.heads.append(reader.readline())
            while reader.readline() not in (b"\r\n", b""):
                pass
            conn.sendall(self.answer)
            self._stop.wait()


class StampingReceiver(_RawReceiver):
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
