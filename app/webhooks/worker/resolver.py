"""Receivers' names looked up without a thread each: c-ares (aiodns) on the worker's loop, one
lookup per name at a time that whoever connects to it then shares, and its addresses kept for a
few seconds. A name server that never answers holds up the attempts to its names alone; an IP
literal is never looked up."""

import asyncio
import ipaddress
import socket

import aiodns

# Seconds a name's addresses are kept (aiohttp's ttl_dns_cache): new connections within them
# ask no name server.
KEEP_ADDRESSES = 10


class Resolver:
    """The addresses of the hosts the worker connects to, asked of nameservers (IP[:port]
    texts), or of the system's (/etc/resolv.conf, and /etc/hosts first) when there are none."""

    def __init__(self, loop, nameservers=()):
        self.loop = loop
        self._dns = aiodns.DNSResolver(list(nameservers) or None, loop=loop)
        self._known = {}
        self._asking = {}

    async def addresses(self, host):
        """[(family, address text)] of host, in the resolver's order; OSError when it has none.
        An attempt that stops waiting leaves the lookup to the next one."""
        literal = _literal(host)
        if literal is not None:
            return [literal]
        known = self._known.get(host)
        if known is not None and known[0] > self.loop.time():
            return known[1]
        asking = self._asking.get(host)
        if asking is None:
            asking = self._asking[host] = self.loop.create_task(self._ask(host))
            asking.add_done_callback(lambda done: self._asked(host, done))
        return await asyncio.shield(asking)

    async def _ask(self, host):
        try:
            found = await self._dns.getaddrinfo(
                host, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG
            )
        except aiodns.error.DNSError as error:
            code, why = error.args[:2]
            raise socket.gaierror(code, why) from None
        addresses = [_address(node.family, node.addr) for node in found.nodes]
        if not addresses:
            raise socket.gaierror(socket.EAI_NONAME, "no address")
        self._known[host] = (self.loop.time() + KEEP_ADDRESSES, addresses)
        return addresses

    def _asked(self, host, done):
        del self._asking[host]
        if not done.cancelled():
            done.exception()  # read here: every attempt that waited for it may have gone

    def expire(self):
        """Forget the addresses kept past their time."""
        now = self.loop.time()
        self._known = {host: kept for host, kept in self._known.items() if kept[0] > now}

    async def close(self):
        """Stop every lookup."""
        for asking in list(self._asking.values()):
            asking.cancel()
        await self._dns.close()


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
