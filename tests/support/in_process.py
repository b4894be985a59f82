"""The webhook stack in the test's own process: the API through Flask's test client, and
workers delivering on event loops of their own in threads, to real receivers over real HTTP.

What a process would add, an import of the app and a second of CPU, is not the point of a case
about what the worker sends, claims or records; the cases where the process is the point
(kill -9, SIGTERM, outages, a bad setting stopping it) start real ones (``endpoint_stack``).
"""

import asyncio
import contextlib
import logging
import threading

from app.webhooks.worker import Worker
from harness.client import Response
from harness.processes import wait_for
from support.live_servers import settings_of


class AppServer:
    """An app made by make_app, answering as a LiveServer does: request(), cli(), env."""

    def __init__(self, app, env, token):
        self.app = app
        self.env = env
        self.token = token
        self.client = app.test_client()

    def request(self, method, path, body=None, headers=None, token=None):
        """One request through the test client, with the token on /plants unless told otherwise;
        the answer as the harness's Response."""
        headers = dict(headers or {})
        if token or (token is None and path.startswith("/plants")):
            headers.setdefault("Authorization", f"Bearer {token or self.token}")
        answer = self.client.open(path, method=method, json=body, headers=headers)
        return Response(answer.status_code, answer.headers, answer.get_data())

    def cli(self, *args):
        """Run `flask --app wsgi ARGS` on this app; return what it printed."""
        result = self.app.test_cli_runner().invoke(args=list(args))
        assert result.exit_code == 0, (result.output, result.exc_info)
        return result.stdout


class Lines(logging.Handler):
    """The log lines of the app's logger, as a worker process would print them."""

    def __init__(self):
        super().__init__()
        self.lines = []
        self.setFormatter(logging.Formatter("%(levelname)s %(message)s"))

    def emit(self, record):
        self.lines.append(self.format(record))

    def read_text(self):
        """Every line so far, as a worker's log file would read."""
        return "".join(f"{line}\n" for line in self.lines)


class RunningWorker:
    """One Worker on an event loop of its own, in a thread, until stop(); poll() says, as a
    process's does, None while it runs, 0 once it ended and 1 if it raised."""

    def __init__(self, app):
        self.worker = Worker(app)
        self.raised = None
        self.thread = threading.Thread(target=self._run)
        self.thread.start()
        wait_for(lambda: self.worker.loop is not None or self.raised, 10, "the worker's loop")

    def _run(self):
        try:
            asyncio.run(self.worker.run())
        except BaseException as error:  # kept for poll() and stop(), as a process's exit
            self.raised = error

    def poll(self):
        """None while the worker runs; then 0, or 1 if it raised."""
        if self.thread.is_alive():
            return None
        return 1 if self.raised else 0

    def stop(self):
        """Stop as SIGTERM does: finish the attempts in flight, record them, end the thread."""
        if self.thread.is_alive():
            self.worker.loop.call_soon_threadsafe(self.worker.stop)
            self.thread.join(timeout=60)
        assert not self.thread.is_alive(), "the worker did not stop within 60 s"
        assert self.raised is None, self.raised


@contextlib.contextmanager
def running(app):
    """The app's worker, delivering on its own event loop in a thread until the block ends."""
    worker = RunningWorker(app)
    try:
        yield worker
    finally:
        worker.stop()


class Stack:
    """What ``app_stack`` made: apps on one database, and the workers running on them."""

    def __init__(self, make_app):
        self.make_app = make_app
        self.workers = []
        self.lines = Lines()

    def server(self, env, token):
        """An AppServer on settings env (PLANTSTORE_* variables)."""
        app = self.make_app(**settings_of(env))
        app.logger.addHandler(self.lines)  # one logger, "app", for every app of the process
        return AppServer(app, env, token)

    def start(self, env, count):
        """count workers, each on an app of its own built from env."""
        started = [RunningWorker(self.server(env, None).app) for _ in range(count)]
        self.workers += started
        return started

    def stop(self):
        """Stop every worker still running, and stop listening to the apps' logger."""
        for worker in self.workers:
            worker.stop()
        logging.getLogger("app").removeHandler(self.lines)
