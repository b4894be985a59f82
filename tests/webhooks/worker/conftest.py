"""Fixtures of the worker's tests: its processes, started with a server's environment, and the
library that shifts a process's wall clock."""

import os

import pytest

from harness.worker import start_worker
from support.shifted_clocks import build_clock_shift


@pytest.fixture(scope="module")
def clock_shift(tmp_path_factory):
    """The LD_PRELOAD library that shifts a process's wall clock, built with the machine's cc."""
    return build_clock_shift(tmp_path_factory.mktemp("clock"))


@pytest.fixture
def start_workers(tmp_path):
    """Start `flask webhooks run` with a server's environment; returns the process and its log.

    Workers still running after the test are killed.
    """
    workers = []

    def start(env):
        log_path = tmp_path / f"worker-{len(workers)}.log"
        with open(log_path, "ab") as log:
            process = start_worker({**os.environ, **env}, log)
        workers.append(process)
        return process, log_path

    yield start
    for process in workers:
        if process.poll() is None:
            process.kill()
            process.wait()
