"""Processes a test stops, freezes or lets hold a lock: lock holders, a PostgreSQL server and
a Redis server."""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

from harness.processes import START_TIMEOUT, free_port, wait_for


class Holder:
    """Another process that holds a lock until stopped, frozen with SIGSTOP meanwhile if asked.

    what is "flock" (the service's writer lock file at path) or "sqlite" (SQLite's own write
    lock on the database at path, taken as any other program would).
    """

    def __init__(self, what, path):
        program = {
            "flock": "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX)",
            "sqlite": "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None)"
            "; c.execute('BEGIN IMMEDIATE')",
        }[what] + "; print('held', flush=True); sys.stdin.read()"
        self.process = subprocess.Popen(
            [sys.executable, "-c", program, str(path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout.readline() == "held\n"

    def freeze(self):
        """SIGSTOP the holder, lock held."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def end(self):
        """Let the holder go on, and end it; its lock goes with it. Ending twice is harmless."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGCONT)
            self.process.kill()
        self.process.communicate()


class PrivatePostgres:
    """A PostgreSQL server of the test's own, which it may stop and start at will."""

    def __init__(self, bin_dir):
        self.bin_dir = bin_dir
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="plantstore-pg-"))
        self.dir.chmod(0o755)
        shutil.chown(self.dir, "postgres")
        self.port = free_port()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"
        self._run("initdb", "-D", "data", "-A", "trust", "-U", "postgres", "--no-sync")
        self.start()

    def _run(self, program, *args):
        subprocess.run(
            ["runuser", "-u", "postgres", "--", f"{self.bin_dir}/{program}", *args],
            cwd=self.dir,
            check=True,
            capture_output=True,
        )

    def start(self):
        """Start the server and wait until it accepts connections."""
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run("pg_ctl", "-D", "data", "-l", "log", "-o", options, "-w", "start")

    def stop(self):
        """Stop the server, ending every session (a fast shutdown)."""
        self._run("pg_ctl", "-D", "data", "-m", "fast", "-w", "stop")

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
            os.kill(pid, signal.SIGCONT)

    def destroy(self):
        """Stop the server if it runs, and remove its files."""
        subprocess.run(
            [
                "runuser",
                "-u",
                "postgres",
                "--",
                f"{self.bin_dir}/pg_ctl",
                "-D",
                "data",
                "-m",
                "immediate",
                "stop",
            ],
            cwd=self.dir,
            capture_output=True,
        )
        shutil.rmtree(self.dir, ignore_errors=True)


class PrivateRedis:
    """A redis-server of the test's own on a free port, which it may stop, start and freeze."""

    def __init__(self, folder):
        self.folder = folder
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process = None
        self.start()

    def start(self):
        """Start the server (empty: it keeps nothing on disk) and wait until it answers."""
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.folder)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for(self._answers, START_TIMEOUT, f"redis-server on port {self.port} to answer")

    def _answers(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16) == b"+PONG\r\n"
        except OSError:
            return False

    def stop(self):
        """Kill the server: every connection to it is refused from now on."""
        self.process.kill()
        self.process.wait()

    def freeze(self):
        """SIGSTOP the server: the kernel still accepts connections, nothing answers."""
        os.kill(self.process.pid, signal.SIGSTOP)

    def thaw(self):
        """SIGCONT what freeze stopped."""
        os.kill(self.process.pid, signal.SIGCONT)

    def destroy(self):
        """Stop the server if it runs."""
        if self.process.poll() is None:
            self.thaw()
            self.stop()
