"""Clocks apart and stepped: the LD_PRELOAD library that shifts a process's wall clock
(clock_shift.c), and a file that steps the clock of every process that reads it."""

import os
import pathlib
import shutil
import subprocess

import pytest

SOURCE = pathlib.Path(__file__).with_name("clock_shift.c")


def build_clock_shift(folder):
    """clock_shift.c built with the machine's cc into folder; the library's path. Skips the
    test when there is no compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("builds a library that shifts a clock (Debian package gcc)")
    built = pathlib.Path(folder) / "clock_shift.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", built, SOURCE, "-ldl"], check=True)
    built.chmod(0o755)
    return built


class SteppedClock:
    """The file CLOCK_SHIFT_FILE names: the seconds the processes that read it are shifted by,
    changed while they run."""

    def __init__(self, path):
        self.path = pathlib.Path(path)
        self.shift = 0.0
        self._write()

    def step(self, seconds):
        """Step the clock by seconds (back when negative) from where it is."""
        self.shift += seconds
        self._write()

    def _write(self):
        # Replaced whole: a reader never sees the file half written.
        new = self.path.with_suffix(".new")
        new.write_text(f"{self.shift}\n")
        new.chmod(0o644)
        os.replace(new, self.path)


def stepped_postgres(server, library):
    """Restart server (a PrivatePostgres) with its wall clock shifted by a SteppedClock in its
    folder; the clock."""
    clock = SteppedClock(pathlib.Path(server.dir) / "clock_shift")
    server.stop()
    server.start(env={"LD_PRELOAD": str(library), "CLOCK_SHIFT_FILE": str(clock.path)})
    return clock


def sent_twice_at_once(receiver):
    """The webhook-ids of a support.receivers.Receiver that it had two attempts of open at the
    same time (each [arrived, answered])."""
    opened = {}
    for (headers, _), span in zip(receiver.requests, receiver.attempts, strict=True):
        opened.setdefault(headers["webhook-id"], []).append(span)
    return sorted(webhook_id for webhook_id, spans in opened.items() if _overlap(spans))


def _overlap(spans):
    # Whether one attempt arrived before another, arrived earlier, was answered.
    ends = -float("inf")
    for arrived, answered in sorted(spans):
        if arrived < ends:
            return True
        ends = max(ends, answered)
    return False
