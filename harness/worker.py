"""The webhook worker started as the Procfile's worker line."""

import sys

from harness.processes import START_TIMEOUT, Child, spawn, wait_for

COMMAND = [sys.executable, "-m", "flask", "--app", "wsgi", "webhooks", "run"]


def start_worker(env, log):
    """Start `flask --app wsgi webhooks run` with env, its output going to log (a file)."""
    return spawn(COMMAND, env, log)


class Worker(Child):
    """start_worker's process with its log in folder; stopped when its ``with`` block ends."""

    name = "the webhook worker"
    stop_timeout = 60

    def __init__(self, env, folder):
        self.env = env
        self.log_path = folder / "worker.log"

    def start(self):
        """Start the worker; return once it says that it delivers."""
        with open(self.log_path, "ab") as log:
            self.process = start_worker(self.env, log)
        wait_for(self._delivering, START_TIMEOUT, lambda: f"the worker to start:\n{self.log()}")

    def log(self):
        """Everything the worker wrote so far."""
        return self.log_path.read_text(errors="replace")

    def _delivering(self):
        self.check_running()
        return "Delivering webhooks" in self.log()
