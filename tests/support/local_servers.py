"""PostgreSQL and Redis servers the suite starts itself, from the binaries on the machine.

pytest-postgresql is not used: it runs pg_ctl as the current user, which PostgreSQL refuses to
root (CI runs as root), so the servers here run as the `postgres` user when the suite is root.
"""

import contextlib
import os
import pathlib
import pwd
import shutil
import signal
import subprocess
import tempfile

import pytest
from mirakuru.exceptions import ExecutorError
from pytest_redis.executor import RedisExecutor

from harness.processes import free_port

POSTGRES_URL_VARIABLE = "PLANTSTORE_TEST_POSTGRES_URL"
REDIS_URL_VARIABLE = "PLANTSTORE_TEST_REDIS_URL"
# Who runs PostgreSQL when the suite is root; Debian's postgresql package creates the user.
SERVER_USER = "postgres"
# Throwaway data: nothing needs to survive a crash, so nothing waits for the disk.
POSTGRES_OPTIONS = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
# Free ports a server is tried on: another process may bind one between the look and the start.
PORT_TRIES = 5


def _debian_version(bin_dir):
    return tuple(int(part) for part in bin_dir.parent.name.split("."))


def postgres_bin_dir():
    """The folder of pg_ctl and initdb: on PATH, else the newest of Debian's; None if neither."""
    on_path = shutil.which("pg_ctl")
    if on_path and shutil.which("initdb"):
        return pathlib.Path(on_path).resolve().parent
    debian = [
        found.parent
        for found in pathlib.Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")
        if found.parent.parent.name.replace(".", "").isdigit()
    ]
    return max(debian, key=_debian_version, default=None)


def redis_server():
    """The redis-server program on PATH (where Debian's is); None if there is none."""
    return shutil.which("redis-server")


def has_server_user():
    try:
        return bool(pwd.getpwnam(SERVER_USER))
    except KeyError:
        return False


def postgres_binaries_or_skip(why):
    """postgres_bin_dir(), or skip the test saying why it needs them and which package has them."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None or (os.geteuid() == 0 and not has_server_user()):
        pytest.skip(f"{why} (Debian package postgresql)")
    return bin_dir


def redis_server_or_skip(why):
    """redis_server(), or skip the test saying why it needs it and which package has it."""
    program = redis_server()
    if program is None:
        pytest.skip(f"{why} (Debian package redis-server)")
    return program


def _as_server_user(command, folder, env=None):
    # PostgreSQL will not run as root: run its programs as SERVER_USER then.
    prefix = ["runuser", "-u", SERVER_USER, "--"] if os.geteuid() == 0 else []
    environ = {**os.environ, **(env or {})}
    done = subprocess.run(
        [*prefix, *map(str, command)], cwd=folder, capture_output=True, text=True, env=environ
    )
    if done.returncode != 0:
        raise RuntimeError(f"{command[0]} failed in {folder}: {done.stderr or done.stdout}")


def on_a_free_port(start, refused):
    """Call start(port) on a free port, and on another while one was taken meanwhile (start
    then raises refused), PORT_TRIES times at most; the port it started on."""
    for _ in range(PORT_TRIES - 1):
        port = free_port()
        with contextlib.suppress(refused):
            start(port)
            return port
    port = free_port()
    start(port)
    return port


def server_folder(prefix):
    # Not under pytest's temporary folders: they are private to root, the server's owner is not.
    folder = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(folder, SERVER_USER)
    return folder


class PostgresTemplate:
    """A data folder made by initdb once, the slow part of a start; servers run on copies."""

    def __init__(self, bin_dir):
        self.bin_dir = bin_dir
        self.dir = server_folder("plantstore-pg-template-")
        initdb = ["-D", "data", "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C"]
        _as_server_user([bin_dir / "initdb", *initdb, "--no-sync"], self.dir)

    def copy(self):
        """A new folder holding a copy of the data folder, owned like it."""
        folder = server_folder("plantstore-pg-")
        _as_server_user(["cp", "-a", self.dir / "data", folder / "data"], folder)
        return folder

    def remove(self):
        """Remove the template's files."""
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivatePostgres:
    """A PostgreSQL server of its own on a free port, which a test may stop, start and freeze."""

    options = POSTGRES_OPTIONS

    def __init__(self, template):
        self.bin_dir = template.bin_dir
        self.dir = template.copy()
        self.port = on_a_free_port(self._start_on, RuntimeError)
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _start_on(self, port):
        self.port = port
        self.start()

    def _pg_ctl(self, *args, env=None):
        _as_server_user([self.bin_dir / "pg_ctl", "-D", "data", *args], self.dir, env)

    def start(self, env=None):
        """Start the server, with env added to its environment, and wait until it accepts
        connections."""
        listen = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1"
        self._pg_ctl("-l", "log", "-o", f"{listen} {self.options}", "-w", "start", env=env)

    def stop(self):
        """Stop the server, ending every session (a fast shutdown)."""
        self._pg_ctl("-m", "fast", "-w", "stop")

    def _processes(self):
        postmaster = int((self.dir / "data" / "postmaster.pid").read_text().split()[0])
        children = pathlib.Path(f"/proc/{postmaster}/task/{postmaster}/children").read_text()
        return [postmaster, *map(int, children.split())]

    def freeze(self):
        """SIGSTOP the server and every backend: connections stay open, nothing answers."""
        for pid in self._processes():
            os.kill(pid, signal.SIGSTOP)

    def thaw(self):
        """SIGCONT what freeze stopped."""
        for pid in self._processes():
            # A backend whose session ended since the list was read has nothing to go on with.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)

    def destroy(self):
        """Stop the server if it runs, and remove its files."""
        if (self.dir / "data" / "postmaster.pid").exists():
            self.thaw()  # a test that failed while the server was frozen leaves it so
            self._pg_ctl("-m", "immediate", "-w", "stop")
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivateRedis:
    """A redis-server of its own on a free port, which a test may stop, start and freeze."""

    def __init__(self, program, folder):
        self.program, self.folder = program, folder
        port = on_a_free_port(self._start_on, ExecutorError)
        self.url = f"redis://127.0.0.1:{port}/0"

    def _start_on(self, port):
        self.server = RedisExecutor(
            self.program,
            databases=1,
            redis_timeout=0,
            loglevel="warning",
            host="127.0.0.1",
            port=port,
            datadir=self.folder,
        )
        self.start()

    def start(self):
        """Start the server and wait until it answers; after a stop it starts empty."""
        self.server.start()

    def stop(self):
        """Kill the server: every connection to it is refused from now on."""
        self.server.kill()

    def freeze(self):
        """SIGSTOP the server: the kernel still accepts connections, nothing answers."""
        os.kill(self.server.process.pid, signal.SIGSTOP)

    def thaw(self):
        """SIGCONT what freeze stopped."""
        os.kill(self.server.process.pid, signal.SIGCONT)

    def destroy(self):
        """Stop the server if it runs."""
        if self.server.running():
            self.thaw()
            self.stop()
