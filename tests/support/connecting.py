"""TCP sockets in the midst of connecting (their SYN sent, no answer yet), as /proc/net/tcp
shows them, watched in a thread while the test's sender runs on its loop."""

import socket
import struct
import threading

# /proc/net/tcp's state of a socket whose SYN got no answer yet (include/net/tcp_states.h).
SYN_SENT = "02"
# Seconds between looks: well under the 0.25 s between two connection attempts.
EVERY = 0.002


class Connecting:
    """While in its with block, watches the sockets connecting to any of addresses (IPv4 texts)
    at port, those already connecting when it began aside: ``most`` is how many there were at
    once at most, ``tried`` the addresses they went to."""

    def __init__(self, addresses, port):
        self.targets = {(address, port) for address in addresses}
        self.most = 0
        self.tried = set()
        self._stop = threading.Event()
        self._before = set()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def __enter__(self):
        self._before = set(self._connecting())
        self._thread.start()
        return self

    def __exit__(self, *exception):
        self._stop.set()
        self._thread.join()

    def _watch(self):
        # Counted in two looks one after the other: the kernel writes the table out piece by
        # piece, so one look may hold a socket closed and the one opened after it.
        last = set()
        while not self._stop.wait(EVERY):
            now = {
                inode: to for inode, to in self._connecting().items() if inode not in self._before
            }
            self.most = max(self.most, len(now.keys() & last))
            self.tried.update(address for address, _ in now.values())
            last = now.keys()

    def _connecting(self):
        # inode -> (address, port) of each socket connecting to one of the targets.
        with open("/proc/net/tcp") as table:
            rows = [line.split() for line in table.readlines()[1:]]
        found = {row[9]: _endpoint(row[2]) for row in rows if row[3] == SYN_SENT}
        return {inode: to for inode, to in found.items() if to in self.targets}


def _endpoint(text):
    # "0100007F:1F90": the address as the host's bytes order holds it, in hex; the port in hex.
    address, port = text.split(":")
    return socket.inet_ntoa(struct.pack("=I", int(address, 16))), int(port, 16)
