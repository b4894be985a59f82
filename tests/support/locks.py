"""Processes that hold a lock for a test, which may freeze them meanwhile."""

import os
import signal
import subprocess
import sys


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
