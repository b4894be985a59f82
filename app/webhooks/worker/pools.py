"""The worker's kept-alive connections to one origin, and how long an idle one is kept."""

# Seconds an idle connection is kept (aiohttp's default): a receiver quiet for longer reconnects.
KEEP_IDLE = 15


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
