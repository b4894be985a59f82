"""Kept-alive HTTP/1.1 connections to the receivers: one asyncio protocol each, which writes a
prepared request and reads its answer with llhttp's parser (httptools), and a pool of idle ones
per origin. No task and no stream: the parser's callbacks settle the attempt's future."""

import asyncio

import httptools

# Largest answer body read to keep the connection for the next delivery; a longer one closes it.
KEEP_BODY_LIMIT = 64 * 1024
# Seconds an idle connection is kept (aiohttp's default): a receiver quiet for longer reconnects.
KEEP_IDLE = 15


class Disconnected(ConnectionError):
    """The connection ended before the answer's status: retry when it had carried a request
    before and nothing of this answer came (the receiver closed it while idle), so that the
    request goes again on a fresh connection without counting as an attempt."""

    def __init__(self, retry, reason=None):
        # Named as aiohttp named them: operators' alerts may read these texts.
        why = getattr(reason, "strerror", None)
        super().__init__(f"ClientOSError: {why}" if why else "ServerDisconnectedError")
        self.retry = retry


class BadAnswer(ConnectionError):
    """What came back is not an HTTP/1.x answer."""

    def __init__(self):
        super().__init__("ClientResponseError")


class Connection(asyncio.Protocol):
    """One connection to a receiver: exchange() writes a request and gives a future of the
    answer's status and Retry-After. The status decides the attempt; a body with a length, or
    chunked, is read within the deadline to keep the connection, and a body that runs past the
    deadline or KEEP_BODY_LIMIT, or has no end but the connection's, closes it."""

    def __init__(self, pool):
        self.pool = pool
        self.transport = None
        self.parser = httptools.HttpResponseParser(self)
        self.answer = None
        self.deadline = 0.0
        self.timer = None
        self.carried = 0
        self.received = False
        self.status = self.retry_after = None
        self.body = 0
        self.idle_since = 0.0

    def connection_made(self, transport):
        """asyncio: the connection is open (and TLS's handshake done)."""
        self.transport = transport
        self.pool.connections.add(self)

    def exchange(self, request, deadline):
        """Write request; a future of (status, Retry-After's bytes or None), failed with
        TimeoutError at deadline (the loop's time), Disconnected or BadAnswer."""
        if self.transport is None:  # closed by the receiver as soon as it opened
            raise Disconnected(False)
        loop = self.pool.loop
        self.answer = loop.create_future()
        self.status = self.retry_after = None
        self.body, self.received = 0, False
        self.carried += 1
        self.deadline = deadline
        if self.timer is None:
            self.timer = loop.call_at(deadline, self._expire)
        self.transport.write(request)
        return self.answer

    def data_received(self, data):
        """asyncio: bytes of the answer."""
        if self.answer is None:
            self.close()  # bytes nobody asked for: what follows cannot be trusted
            return
        self.received = True
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            self._settle(BadAnswer())  # a protocol switched to: no more HTTP on it
        except httptools.HttpParserError:
            self._settle(BadAnswer())

    def on_header(self, name, value):
        """llhttp: one header of the answer, whole."""
        if len(name) == 11 and name.lower() == b"retry-after":
            self.retry_after = value

    def on_headers_complete(self):
        """llhttp: the status is in; a body that can only end with the connection is not
        waited for."""
        if self.answer is None:
            self.close()  # a second answer to one request
            return
        status = self.parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            self.retry_after = None  # informational: the answer follows
            return
        self.status = status
        if not self.parser.should_keep_alive():
            self._settle(None)

    def on_body(self, body):
        """llhttp: a piece of the body, counted only."""
        self.body += len(body)
        if self.body > KEEP_BODY_LIMIT:
            self._settle(None)

    def on_message_complete(self):
        """llhttp: the answer's end; the connection carries the next delivery."""
        if self.answer is None or self.status is None:
            return  # an informational answer's end, or an attempt already settled
        self.answer.set_result((self.status, self.retry_after))
        self.answer = None
        self.pool.give_back(self)

    def connection_lost(self, exc):
        """asyncio: closed, by either side."""
        self.transport = None
        self.pool.connections.discard(self)
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self._settle(Disconnected(self.carried > 1 and not self.received, exc))

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
        answer, self.answer = self.answer, None
        if answer is not None and not answer.done():
            if self.status is not None:
                answer.set_result((self.status, self.retry_after))
            else:
                answer.set_exception(error)
        self.close()


class Pool:
    """The connections to one origin: every one open, and the idle ones, the last given back
    taken first."""

    def __init__(self, loop):
        self.loop = loop
        self.connections = set()
        self.opening = 0
        self.idle = []

    def take(self):
        """An idle connection still open, or None."""
        while self.idle:
            connection = self.idle.pop()
            if connection.transport is not None:
                return connection
        return None

    def give_back(self, connection):
        """Keep connection for the next request."""
        connection.idle_since = self.loop.time()
        self.idle.append(connection)

    def expire(self, before):
        """Close the connections idle since before; whether any is left open, or opening."""
        kept = []
        for connection in self.idle:
            if connection.idle_since < before:
                connection.close()
            elif connection.transport is not None:
                kept.append(connection)
        self.idle = kept
        return bool(self.connections or self.opening)

    def close(self):
        """Close every connection, idle or not."""
        for connection in list(self.connections):
            connection.close()
        self.idle = []
