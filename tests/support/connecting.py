"""TCP sockets in the midst of connecting (their SYN sent, no answer yet), as iproute2's `ss`
shows them, watched in a thread while the test's sender runs on its loop. `ss` asks the kernel
for those sockets alone: /proc/net/tcp lists every socket of the host, TIME_WAIT's included,
which after a suite's thousands of connections takes longer to read than an attempt lives."""

import shutil
import subprocess
import threading

import pytest

# Seconds between looks: well under the 0.25 s between two connection attempts.
EVERY = 0.005


class Connecting:
    """While in its with block, watches the sockets connecting to any of addresses (IPv4 texts)
    at port, those already connecting when it began aside: ``most`` is how many there were at
    once at most, ``tried`` the addresses they went to."""

    def __init__(self, addresses, port):
        if shutil.which("ss") is None:
            pytest.skip("needs ss, of the Debian package iproute2")
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
        # Counted in two looks one after the other: the kernel dumps the sockets piece by piece,
        # so one look may hold a socket closed and the one opened after it.
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
        command = ["ss", "-Htne", "state", "syn-sent"]
        lines = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        found = {}
        for line in lines.splitlines():
            fields = line.split()
            address, _, port = fields[3].rpartition(":")
            inode = next(field for field in fields if field.startswith("ino:"))
            found[inode] = (address, int(port))
        return {inode: to for inode, to in found.items() if to in self.targets}
