"""Attempts at once in a process of their own, whose memory is the point: run as a script, it
makes one attempt to its first argument alone (so that the process has loaded and used all it
needs), then one to each of the others, all at once on one Sender on uvloop (at_once in
sending.py), and prints as JSON each answer with its seconds, its memory (VmRSS) before them
and its peak (VmHWM) after, in MiB. run() starts it and reads what it printed."""

import json
import os
import pathlib
import subprocess
import sys

from app.webhooks.worker.sender import Answer
from harness.processes import ROOT
from support.sending import at_once, send

# Longer than any run of attempts that each end by their deadline.
RUN_TIMEOUT = 60


def memory_mib(field, pid="self"):
    """A field of /proc/PID/status (VmRSS, VmHWM) in MiB, of this process by default."""
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no {field} for {pid}")


def run(warm_url, urls):
    """([(Answer, seconds)] of the attempts to urls at once, MiB the process grew by at its
    peak over its memory before them), from the script run as a process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "tests")))}
    command = [sys.executable, "-m", "support.attempts_process", warm_url, *urls]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    timed = [(Answer(*answer), took) for answer, took in report["timed"]]
    return timed, report["peak"] - report["before"]


def main(warm_url, *urls):
    """Warm the process, make the attempts at once, and print what came of them."""
    [(warmed, _)] = send(warm_url)
    assert warmed.error is None, warmed
    before = memory_mib("VmRSS")
    timed = at_once(list(urls))
    print(json.dumps({"timed": timed, "before": before, "peak": memory_mib("VmHWM")}))


if __name__ == "__main__":
    main(*sys.argv[1:])
