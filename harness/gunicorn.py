"""gunicorn started as the Procfile's web line, on a port of its own."""

import contextlib
import pathlib
import signal
import subprocess
import sys

from harness.processes import Child, free_port, spawn


def executable():
    """The venv's gunicorn, the one `gunicorn wsgi:app` finds on a deployed PATH."""
    return str(pathlib.Path(sys.executable).with_name("gunicorn"))


class Gunicorn(Child):
    """`gunicorn APP` from the project root, stopped when its ``with`` block ends.

    Nothing about workers, threads or logging is given on the command line: gunicorn.conf.py
    decides. stdout (the access log, as deployed) goes to log_path, stderr to error_path, or
    to log_path too when none is given.
    """

    name = "gunicorn"
    # Quick shutdown: a graceful one would wait for kept-alive connections a client left idle.
    stop_signal = signal.SIGINT
    stop_timeout = 15

    def __init__(self, environ, log_path, app="wsgi:app", error_path=None):
        self.app = app
        self.port = free_port()
        self.environ = {**environ, "PORT": str(self.port)}
        self.log_path = log_path
        self.error_path = error_path

    def start(self):
        """Start the master, which starts its workers; return at once."""
        with contextlib.ExitStack() as files:
            stdout = files.enter_context(open(self.log_path, "ab"))
            stderr = subprocess.STDOUT
            if self.error_path is not None:
                stderr = files.enter_context(open(self.error_path, "ab"))
            self.process = spawn([executable(), self.app], self.environ, stdout, stderr)

    def log(self):
        """Everything gunicorn and the app wrote so far."""
        paths = [self.log_path] if self.error_path is None else [self.log_path, self.error_path]
        return "".join(path.read_text(errors="replace") for path in paths)
