"""Webhook receivers that misbehave on the wire: one that hangs, one that trickles its answer,
one that trickles only its body, one that answers from a script (at once, or in pieces paced
apart), one that speaks first, one whose answer never ends, and one that answers before it has
read the request. The one that stamps each request as its kernel received it is in stamping.py."""

import contextlib
import itertools
import select
import socket
import threading
import time


class RawReceiver:
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


class SilentReceiver(RawReceiver):
    """Takes each connection and its request, and never answers: a receiver that hangs."""

    def serve(self, conn):
        """Read until the client gives up."""
        try:
            while conn.recv(65536):
                pass
        except OSError:
            pass


class TricklingReceiver(RawReceiver):
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


class TricklingBodyReceiver(RawReceiver):
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


class ScriptedReceiver(RawReceiver):
    """Answers the requests on each connection from a script: answer(number) gives the raw bytes
    of the answer to a connection's request number (0 first), or None to close it unanswered.
    tls, an ssl.SSLContext, serves https; closes, True to close each connection once answered.
    ``requests`` holds (connection, number, bytes)."""

    def __init__(self, answer, tls=None, host="127.0.0.1", closes=False):
        self.answer = answer
        self.tls = tls
        self.closes = closes
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
                self.send(conn, answer)
                if self.closes:
                    return
        except OSError:
            pass
        finally:
            conn.close()

    def send(self, conn, answer):
        """Send one answer whole."""
        conn.sendall(answer)


class PacedReceiver(ScriptedReceiver):
    """A ScriptedReceiver whose answer(number) gives an answer's pieces, sent one at a time
    pause seconds apart: bursts, trickles, or both; pieces without end are sent until the client
    closes (or the receiver does)."""

    def __init__(self, answer, pause, host="127.0.0.1"):
        self.pause = pause
        super().__init__(answer, host=host)

    def send(self, conn, answer):
        """Send each piece of answer, the pause before each but the first."""
        for number, piece in enumerate(answer):
            if number and (_closed(conn, self.pause) or self._stop.is_set()):
                raise ConnectionResetError("the client closed")
            conn.sendall(piece)


def _closed(conn, timeout):
    # Whether the client closed within timeout, the bytes it sent left unread.
    readable, _, _ = select.select([conn], [], [], timeout)
    return bool(readable) and not conn.recv(1, socket.MSG_PEEK)


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


class GreetingReceiver(RawReceiver):
    """Sends greeting as each connection opens, without waiting for a request, and closes it:
    a server of another protocol that speaks first, or one that closes at once."""

    def __init__(self, greeting):
        self.greeting = greeting
        super().__init__()

    def serve(self, conn):
        """Greet, then close."""
        with contextlib.suppress(OSError):  # the client may be gone already
            conn.sendall(self.greeting)


class EndlessReceiver(RawReceiver):
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


class EarlyAnswerReceiver(RawReceiver):
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
