"""Kept-alive HTTP/1.1 connections to the receivers: one asyncio protocol each, which writes a
prepared request and reads its answer with llhttp's parser (httptools), as lenient as aiohttp's,
kept in a pool per origin (pools.py). No task and no stream: the parser's callbacks settle the
attempt's future.

A connection carries the next request only when this one was written whole and its answer read
whole, still kept alive at its end (a trailer may say close), with nothing after it (h11's and
httpcore's rule): bytes that come with no attempt in flight, or after an answer, close it, so
that no answer is ever read as another request's. An answer's head (interim answers with it) is
counted as its bytes arrive, however they are split, and never given to the parser past its
limit. The first BODY_KEPT bytes of the final answer's body come with its status: an answer that
ends its connection is read that far, to its end, or to the connection's, within the deadline."""

import asyncio

import httptools

# Largest answer body read to keep the connection for the next delivery; a longer one closes it.
KEEP_BODY_LIMIT = 64 * 1024
# First bytes of the final answer's body that the attempt gives with its status (the log's
# response_body).
BODY_KEPT = 1024
# Largest head of an answer (interim answers, status line, headers): a longer one fails the
# attempt; an answer's framing and trailers past it close the connection.
HEAD_LIMIT = 64 * 1024
# Most interim (1xx) answers before the final one (Go's client's cap): each costs a parse.
INTERIM_LIMIT = 5
# The leniencies aiohttp's response parser turns on in llhttp, and no other.
AIOHTTP_LENIENCIES = {
    "lenient_headers": True,
    "lenient_optional_cr_before_lf": True,
    "lenient_spaces_after_chunk_size": True,
}


class Disconnected(ConnectionError):
    """The connection ended before the answer's status."""

    def __init__(self, reason=None):
        # Named as aiohttp named them: operators' alerts may read these texts.
        why = getattr(reason, "strerror", None)
        super().__init__(f"ClientOSError: {why}" if why else "ServerDisconnectedError")


class BadAnswer(ConnectionError):
    """What came back is not an HTTP/1.x answer, or its head is too long."""

    def __init__(self, why=None):
        super().__init__(f"ClientResponseError: {why}" if why else "ClientResponseError")


class Stop(Exception):
    """Raised in a callback to stop the parser: an answer begins after the final one, or the
    attempt has already failed."""


class Connection(asyncio.Protocol):
    """One connection to a receiver: exchange() writes a request and gives a future of the
    answer's status, Retry-After and the first bytes of its body. The status decides the
    attempt; a body with a length, or chunked, is read within the deadline to keep the
    connection, and a body that runs past the deadline or its limits, or has no end but the
    connection's, closes it."""

    def __init__(self, pool):
        self.pool = pool
        self.transport = None
        # One parser for every answer: a connection is kept only with nothing left in it, and
        # only when the answer that ended last kept it (a trailer may say close).
        self.parser = httptools.HttpResponseParser(self)
        self.parser.set_dangerous_leniencies(**AIOHTTP_LENIENCIES)
        self.answer = None
        self.deadline = 0.0
        self.timer = None
        self.status = self.retry_after = None
        self.kept = b""
        self.read = self.body = self.interim = 0
        self.complete = self.keep = self.stray = self.ends = False
        self.idle_since = 0.0

    def connection_made(self, transport):
        """asyncio: the connection is open (and TLS's handshake done)."""
        self.transport = transport
        self.pool.connections.add(self)

    def exchange(self, request, deadline):
        """Write request; a future of (status, Retry-After's bytes or None, the body's first
        BODY_KEPT bytes as read by then), failed with TimeoutError at deadline (the loop's
        time), Disconnected or BadAnswer."""
        if self.transport is None:  # closed by the receiver as soon as it opened
            raise Disconnected()
        loop = self.pool.loop
        self.answer = loop.create_future()
        self.status = self.retry_after = None
        self.kept = b""
        self.read = self.body = self.interim = 0
        self.complete = self.keep = self.stray = self.ends = False
        self.deadline = deadline
        if self.timer is None:
            self.timer = loop.call_at(deadline, self._expire)
        self.transport.write(request)
        return self.answer

    def data_received(self, data):
        """asyncio: bytes of the answer. The head is never given to the parser past its limit,
        however the bytes are split: httptools keeps an unfinished header whole."""
        if self.answer is None:
            self.close()  # bytes nobody asked for: what follows cannot be trusted
            return
        room = HEAD_LIMIT - self.read
        if self.status is None and len(data) > room:
            self._feed(data[:room])
            if self.answer is not None and self.status is None:
                self._fail(BadAnswer(f"the answer's head is over {HEAD_LIMIT} bytes"))
            data = data[room:]
        if self.answer is not None:
            self._feed(data)
        if self.answer is None:
            return  # settled as it was read: the connection is closed
        if self.status is not None and self.read - self.body > HEAD_LIMIT:
            self._settle(None)  # framing and trailers past the head's limit: the status stands
        elif self.complete:
            # Whole: the connection carries the next request only if the answer kept it,
            # nothing came after it, and the request was written whole (an early answer may
            # leave some unsent).
            answer, self.answer = self.answer, None
            answer.set_result((self.status, self.retry_after, self.kept))
            if self.stray or not self.keep or self.transport.get_write_buffer_size():
                self.close()
            else:
                self.pool.give_back(self)

    def _feed(self, data):
        # Every byte read is counted before the parser keeps any of it.
        self.read += len(data)
        if self.complete:  # the rest of a read cut at the head's limit, after the answer
            self.stray = True
            return
        try:
            # llhttp passes over a CR or LF after an answer unseen: a last byte that is one goes
            # alone, so that the bytes before it tell whether the answer had ended.
            if len(data) > 1 and data[-1] in b"\r\n":
                self.parser.feed_data(data[:-1])
                self.stray = self.complete
                data = data[-1:]
            if not self.stray:
                self.parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade):  # no HTTP after it
            if not self.complete:
                self._settle(BadAnswer())
            self.stray = True  # bytes after the answer

    def on_message_begin(self):
        """llhttp: an answer starts; after the final one, a stray stops the parser at once."""
        if self.complete:
            raise Stop()

    def on_header(self, name, value):
        """llhttp: one header of the answer, or of its trailers, whole."""
        # The first, as aiohttp reads it; a trailer never changes what the head said.
        if self.status is None and len(name) == 11 and name.lower() == b"retry-after":
            self.retry_after = self.retry_after or value

    def on_headers_complete(self):
        """llhttp: the status is in; the body of an answer that ends its connection is waited
        for only up to its first BODY_KEPT bytes. HTTP/1.0 ends it, whatever it says (h11's
        rule)."""
        status = self.parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            self.retry_after = None  # informational: the answer follows
            self.interim += 1
            if self.interim > INTERIM_LIMIT:
                self._fail(BadAnswer(f"more than {INTERIM_LIMIT} interim answers"))
                raise Stop()
            return
        self.status = status
        self.ends = not self.parser.should_keep_alive() or self.parser.get_http_version() != "1.1"

    def on_body(self, body):
        """llhttp: a piece of the body: its first BODY_KEPT bytes kept, the rest counted."""
        if self.body < BODY_KEPT:
            self.kept += body[: BODY_KEPT - self.body]
        self.body += len(body)
        if self.body > KEEP_BODY_LIMIT or (self.ends and self.body >= BODY_KEPT):
            self._settle(None)

    def on_message_complete(self):
        """llhttp: an answer's end; the final one's decides the attempt once the bytes that
        came with it are read, and keeps the connection if its trailers did not end it."""
        if self.status is not None and self.answer is not None:
            self.complete = True
            self.keep = not self.ends and self.parser.should_keep_alive()

    def connection_lost(self, exc):
        """asyncio: closed, by either side."""
        self.transport = None
        self.pool.connections.discard(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self._settle(Disconnected(exc))

    def close(self):
        """Close it now: an unread body or a deadline passed leaves it unfit for another."""
        if self.transport is not None:
            self.transport.abort()
            self.transport = None

    def _expire(self):
        # One timer per connection, not one per attempt: armed at the first attempt's deadline,
        # it moves on to the deadline of the attempt in flight then, if any, when it fires.
        self.timer = None
        if self.answer is None:
            return  # idle: the next attempt arms it again
        if self.pool.loop.time() < self.deadline:
            self.timer = self.pool.loop.call_at(self.deadline, self._expire)
            return
        self._settle(TimeoutError())

    def _settle(self, error):
        # The attempt ends with its status if it has one (however the body went), else with
        # error; the connection, not read to the end of an answer, closes.
        if self.status is None:
            self._fail(error)
            return
        answer, self.answer = self.answer, None
        if answer is not None and not answer.done():
            answer.set_result((self.status, self.retry_after, self.kept))
        self.close()

    def _fail(self, error):
        # The attempt fails with error, whatever its status said; the connection closes.
        answer, self.answer = self.answer, None
        if answer is not None and not answer.done():
            answer.set_exception(error)
        self.close()
