"""PgBouncer, which the suite starts itself from Debian's package, in front of a PostgreSQL
server of the suite's, as a PaaS pooler stands in front of production's."""

import os
import shutil
import signal
import socket
import subprocess

import pytest
from sqlalchemy.engine import make_url

from harness.processes import wait_for
from support.local_servers import SERVER_USER, has_server_user, on_a_free_port, server_folder


def pgbouncer():
    """The pgbouncer program (Debian installs it in /usr/sbin); None if there is none."""
    return shutil.which("pgbouncer") or shutil.which("pgbouncer", path="/usr/sbin")


def pgbouncer_or_skip(why):
    """pgbouncer(), or skip the test saying why it needs it and which package has it."""
    program = pgbouncer()
    if program is None or (os.geteuid() == 0 and not has_server_user()):
        pytest.skip(f"{why} (Debian package pgbouncer)")
    return program


class PgBouncer:
    """PgBouncer in front of the PostgreSQL server of server_url, as a PaaS pooler serves:
    pool_mode = transaction (or the mode given), and its defaults otherwise (no
    ignore_startup_parameters, no prepared statements kept). ``url`` is server_url through it."""

    def __init__(self, program, server_url, mode="transaction"):
        self.program = program
        self.mode = mode
        self.server = make_url(server_url)
        self.dir = server_folder("plantstore-pgbouncer-")
        self.process = None
        (self.dir / "users.txt").write_text(f'"{self.server.username}" ""\n')
        port = on_a_free_port(self._start_on, RuntimeError)
        self.url = self.server.set(port=port).render_as_string(hide_password=False)

    def _start_on(self, port):
        (self.dir / "pgbouncer.ini").write_text(
            "[databases]\n"
            f"* = host={self.server.host} port={self.server.port}\n"
            "[pgbouncer]\n"
            f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
            f"auth_type = trust\nauth_file = {self.dir / 'users.txt'}\n"
            f"pool_mode = {self.mode}\n"
            f"logfile = {self.dir / 'pgbouncer.log'}\n"
        )
        # It will not run as root: it switches to SERVER_USER itself, and so takes signals.
        user = ["-u", SERVER_USER] if os.geteuid() == 0 else []
        # -q: its log goes to its logfile alone, not to the stderr of whoever started it.
        ini = str(self.dir / "pgbouncer.ini")
        self.process = subprocess.Popen([self.program, "-q", *user, ini])
        wait_for(
            lambda: _listening(port) or self.process.poll() is not None, 10, "PgBouncer's start"
        )
        if self.process.poll() is not None:  # the port was taken meanwhile
            raise RuntimeError(f"PgBouncer did not start on {port}")

    def destroy(self):
        """Stop PgBouncer, and remove its files."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # its immediate shutdown
            self.process.wait(10)
        shutil.rmtree(self.dir, ignore_errors=True)


def _listening(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
