"""A name server of the test's own for the worker's lookups (PLANTSTORE_WEBHOOK_NAMESERVERS),
served by dnslib: it answers the names it is given, A with their IPv4 addresses and AAAA with
their IPv6 ones, never answers those it is told to hang on (or only their A or AAAA), and says
the rest do not exist, with no SOA; it keeps every question it was asked."""

import collections

from dnslib import AAAA, QTYPE, RCODE, RR, A, DNSError
from dnslib.server import BaseResolver, DNSLogger, DNSServer

RECORDS = {QTYPE.A: A, QTYPE.AAAA: AAAA}


class NameServer(BaseResolver):
    """names: name -> address, or a list of them in the order given, changed as the test goes;
    ttls: name -> the seconds its answers may be kept (60 unless given); hung: names never
    answered, or (name, "A" or "AAAA") for the questions of one type alone.
    ``address`` is what the worker is given; ``asked`` counts questions by name and type."""

    def __init__(self):
        self.names = {}
        self.ttls = {}
        self.hung = set()
        self.asked = collections.Counter()
        self._server = DNSServer(self, "127.0.0.1", 0, logger=DNSLogger("-request,-reply,-error"))
        self.address = f"127.0.0.1:{self._server.server.server_address[1]}"
        self._server.start_thread()

    def resolve(self, request, handler):
        """dnslib: the reply to request, or DNSError for no reply at all."""
        name, kind = str(request.q.qname).rstrip("."), request.q.qtype
        self.asked[name, QTYPE[kind]] += 1
        if name in self.hung or (name, QTYPE[kind]) in self.hung:
            raise DNSError("never answered")
        reply = request.reply()
        if name not in self.names:
            reply.header.rcode = RCODE.NXDOMAIN
        elif kind in RECORDS:
            addresses = self.names[name]
            for address in [addresses] if isinstance(addresses, str) else addresses:
                if (":" in address) == (kind == QTYPE.AAAA):
                    record = RECORDS[kind](address)
                    ttl = self.ttls.get(name, 60)
                    reply.add_answer(RR(request.q.qname, kind, rdata=record, ttl=ttl))
        return reply

    def questions(self, name):
        """How many questions of any type were asked about name."""
        return sum(count for (asked, _), count in self.asked.items() if asked == name)

    def close(self):
        """Stop answering."""
        self._server.stop()
        self._server.server.server_close()
