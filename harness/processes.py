"""Child processes of the tests and benchmarks: the ports they listen on, waiting for them, and
stopping them with everything they started."""

import os
import pathlib
import random
import signal
import socket
import subprocess
import time

from harness.client import CONNECTION_ERRORS, http_request

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Longest wait for a process to serve, in seconds.
START_TIMEOUT = 30
EPHEMERAL_RANGE = pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range")


def free_port():
    """A TCP port nobody uses now, below the kernel's range for outgoing connections.

    A port from that range (what binding port 0 gives) can become some client's source port
    between this check and the server's bind: "Address already in use" on a busy machine.
    """
    first_ephemeral = int(EPHEMERAL_RANGE.read_text().split()[0])
    while True:
        port = random.randrange(10000, first_ephemeral)
        with socket.socket() as sock:
            try:
                sock.bind(("0.0.0.0", port))
            except OSError:
                continue
        return port


def wait_for(condition, timeout, message):
    """Poll condition until true; after timeout seconds fail with message (or its result)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out after {timeout}s: {message() if callable(message) else message}"
            )
        time.sleep(0.05)


def spawn(command, env, stdout, stderr=subprocess.STDOUT):
    """Start command from the project root in a session of its own, so that a kill of its
    process group reaches every process it forks."""
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=stdout, stderr=stderr, start_new_session=True
    )


def children(pid):
    """The pids of a process's children."""
    listing = pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in listing.split()]


def cpu_ticks(pid):
    """utime + stime of one process (all its threads), in clock ticks; 0 once it is gone."""
    try:
        stat = pathlib.Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return 0
    # Fields after the command name, which may hold spaces, start at field 3 (state).
    fields = stat.rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


class Child:
    """A server that spawn() started, with what it wrote in a log; stopped by stop().

    Subclasses set ``process``, ``port`` when they serve, ``log()``, and how they are asked to
    stop; a ``with`` block starts the process and stops it.
    """

    name = "process"
    stop_signal = signal.SIGTERM
    stop_timeout = 30
    process = None

    def log(self):
        """What the process wrote so far."""
        raise NotImplementedError

    def start(self):
        """Start the process."""
        raise NotImplementedError

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop()

    def check_running(self):
        """Fail with the log when the process has exited."""
        if self.process.poll() is not None:
            raise AssertionError(f"{self.name} exited; log:\n{self.log()}")

    def kill(self):
        """SIGKILL the process and everything it started, at once."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        """Ask the process to stop with its stop signal; kill it after a bounded wait."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(self.stop_signal)
        try:
            self.process.wait(timeout=self.stop_timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def wait_ready(self, path="/healthz", headers=None, statuses=(200,)):
        """Wait until GET path on this process's port is answered with one of statuses."""

        def ready():
            self.check_running()
            try:
                return http_request(self.port, "GET", path, headers=headers).status in statuses
            except CONNECTION_ERRORS:
                return False

        wait_for(ready, START_TIMEOUT, lambda: f"{self.name} to answer {path}; log:\n{self.log()}")
