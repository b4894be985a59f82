"""Receivers' names looked up without a thread each: c-ares (aiodns) on the worker's loop.
/etc/hosts is read first, for the whole name; a name it does not hold has its IPv6 and IPv4
addresses asked of the name servers apart, one lookup per name and family at a time that whoever
connects to it then shares. A connection waits for the first family to answer, then 50 ms at
most for the other (RFC 8305, section 3), so that a family whose questions go unanswered holds
it up no longer. A family's addresses are kept for their TTL, 10 s at most, and a name server's
answer that there are none as long. A name server that never answers holds up the attempts to
its names alone; an IP literal is never looked up."""

import asyncio
import ipaddress
import socket

import aiodns

# Seconds a family's addresses are kept at most (aiohttp's ttl_dns_cache), less when their TTL
# says so: new connections within them ask no name server.
KEEP_ADDRESSES = 10
# Seconds a lookup still waits for a family once the other's addresses are in (RFC 8305's).
RESOLUTION_DELAY = 0.05
# IPv6 first, as RFC 6724's default policy orders them; the dialer then takes them in turn.
FAMILIES = (socket.AF_INET6, socket.AF_INET)
# c-ares's answers that a name has no address of a family (RFC 2308's NXDOMAIN and NODATA), kept
# as addresses are; a timeout or a server's failure is asked again by the next connection.
NEGATIVE = frozenset((aiodns.error.ARES_ENOTFOUND, aiodns.error.ARES_ENODATA))


class Resolver:
    """The addresses of the hosts the worker connects to, asked of nameservers (IP[:port]
    texts), or of the system's (/etc/resolv.conf) when there are none, /etc/hosts first."""

    def __init__(self, loop, nameservers=()):
        self.loop = loop
        # c-ares's getaddrinfo for both families waits for both: each is asked for apart, so
        # /etc/hosts is read apart, lest a name it holds be asked of a name server for the other.
        self._hosts = aiodns.DNSResolver(loop=loop, lookups="f")
        self._dns = aiodns.DNSResolver(list(nameservers) or None, loop=loop, lookups="b")
        self._known = {}  # (host, family): (until, its addresses, or the gaierror saying none)
        self._asking = {}  # (host, family): the lookup in flight

    async def addresses(self, host):
        """[(family, address text)] of host, IPv6 first; OSError when it has none. An attempt
        that stops waiting leaves the lookups to the next one."""
        literal = _literal(host)
        if literal is not None:
            return [literal]
        now = self.loop.time()
        answers = [self._kept(host, family, now) for family in FAMILIES]
        if None in answers and not await self._listed(host, answers):
            await self._ask(host, answers)
        return _combined(answers)

    def _kept(self, host, family, now):
        kept = self._known.get((host, family))
        return kept[1] if kept is not None and kept[0] > now else None

    async def _listed(self, host, answers):
        # Whether /etc/hosts holds host; its addresses in answers if so, kept KEEP_ADDRESSES.
        try:
            found = await self._hosts.getaddrinfo(host, type=socket.SOCK_STREAM)
        except aiodns.error.DNSError:  # not there: c-ares says so as it would of no server
            return False
        for index, family in enumerate(FAMILIES):
            listed = [_address(family, node.addr) for node in found.nodes if node.family == family]
            answers[index] = self._keep(host, family, KEEP_ADDRESSES, listed)
        return True

    async def _ask(self, host, answers):
        # Fills in the answers not kept: the first family to answer with addresses waits for the
        # other RESOLUTION_DELAY at most, a family that has none for the other's answer.
        asking = {
            self._lookup(host, family): index
            for index, family in enumerate(FAMILIES)
            if answers[index] is None
        }
        while asking:
            found = any(answer for answer in answers if isinstance(answer, list))
            done, _ = await asyncio.wait(
                asking,
                timeout=RESOLUTION_DELAY if found else None,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not done:
                return
            for task in done:
                answers[asking.pop(task)] = task.result()

    def _lookup(self, host, family):
        asking = self._asking.get((host, family))
        if asking is None:
            asking = self._asking[host, family] = self.loop.create_task(self._family(host, family))
            asking.add_done_callback(lambda done: self._asked((host, family), done))
        return asking

    async def _family(self, host, family):
        # host's addresses of family, kept for their TTL; or the gaierror of a lookup that found
        # none, kept KEEP_ADDRESSES when the name server said there are none.
        try:
            found = await self._dns.getaddrinfo(host, family=family, type=socket.SOCK_STREAM)
        except aiodns.error.DNSError as error:
            code, why = error.args[:2]
            if code in NEGATIVE:
                return self._keep(host, family, KEEP_ADDRESSES, socket.gaierror(code, why))
            return socket.gaierror(code, why)
        seconds = min([KEEP_ADDRESSES, *(node.ttl for node in found.nodes)])
        addresses = [_address(node.family, node.addr) for node in found.nodes]
        return self._keep(host, family, seconds, addresses)

    def _keep(self, host, family, seconds, answer):
        self._known[host, family] = (self.loop.time() + seconds, answer)
        return answer

    def _asked(self, key, done):
        del self._asking[key]
        if not done.cancelled():
            done.exception()  # read here: every attempt that waited for it may have gone

    def expire(self):
        """Forget the answers kept past their time."""
        now = self.loop.time()
        self._known = {key: kept for key, kept in self._known.items() if kept[0] > now}

    async def close(self):
        """Stop every lookup."""
        for asking in list(self._asking.values()):
            asking.cancel()
        await self._hosts.close()
        await self._dns.close()


def _combined(answers):
    # Every family's addresses, in FAMILIES' order; else the error that says most: a name that
    # does not exist, or a failure to ask, before a family that has no address.
    addresses = [address for answer in answers if isinstance(answer, list) for address in answer]
    if addresses:
        return addresses
    errors = [answer for answer in answers if isinstance(answer, OSError)]
    if not errors:  # a lookup c-ares said succeeded, with no address
        raise socket.gaierror(socket.EAI_NONAME, "no address")
    error = min(errors, key=lambda each: each.errno == aiodns.error.ARES_ENODATA)
    raise socket.gaierror(*error.args)


def _literal(host):
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return (socket.AF_INET6 if address.version == 6 else socket.AF_INET, host)


def _address(family, addr):
    text = addr[0].decode("ascii")
    if family == socket.AF_INET6 and addr[3]:  # link-local: its interface goes with it
        text += f"%{socket.if_indextoname(addr[3])}"
    return (family, text)
