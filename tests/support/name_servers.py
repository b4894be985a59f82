"""A name server of the test's own for the worker's lookups (PLANTSTORE_WEBHOOK_NAMESERVERS),
served by dnslib: it answers the names it is given, never answers those it is told to hang on,
and says the rest do not exist; it keeps every question it was asked."""

import collections

from dnslib import QTYPE, RCODE, RR, A, DNSError
from dnslib.server import BaseResolver, DNSLogger, DNSServer


class NameServer(BaseResolver):
    """names: name -> IPv4 address, or a list of them in the order given, changed as the test
    goes; hung: names never answered.
    ``address`` is what the worker is given; ``asked`` counts questions by name and type."""

    def __init__(self):
        self.names = {}
        self.hung = set()
        self.asked = collections.Counter()
        self._server = DNSServer(self, "127.0.0.1", 0, logger=DNSLogger("-request,-reply,-error"))
        self.address = f"127.0.0.1:{self._server.server.server_address[1]}"
        self._server.start_thread()

    def resolve(self, request, handler):
        """dnslib: the reply to request, or DNSError for no reply at all."""
        name = str(request.q.qname).rstrip(".")
        self.asked[name, QTYPE[request.q.qtype]] += 1
        if name in self.hung:
            raise DNSError("never answered")
        reply = request.reply()
        if name not in self.names:
            reply.header.rcode = RCODE.NXDOMAIN
        elif request.q.qtype == QTYPE.A:
            addresses = self.names[name]
            for address in [addresses] if isinstance(addresses, str) else addresses:
                reply.add_answer(RR(request.q.qname, QTYPE.A, rdata=A(address), ttl=60))
        return reply

    def questions(self, name):
        """How many questions of any type were asked about name."""
        return sum(count for (asked, _), count in self.asked.items() if asked == name)

    def close(self):
        """Stop answering."""
        self._server.stop()
        self._server.server.server_close()
