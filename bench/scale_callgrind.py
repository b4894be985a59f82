"""`make bench-scale` on SQLite: the instructions of each operation alone, under callgrind.

The store is filled and the endpoints registered by this process, outside valgrind; one process
per size runs the service under callgrind (bench/instructions.py's way: only what runs inside
``exec`` is counted, each ``exec`` dumped on its own). After each counted operation it says so
on its stdout and waits for a line on its stdin: the newest dump is then that operation's, and
between the rounds with one endpoint and with many this process registers the others.
"""

import gc
import os
import pathlib
import re
import subprocess
import sys

from bench.instructions import CALLGRIND
from bench.scale_fill import fill
from bench.scale_service import OTHER, ROUNDS, ROWS, SUBSCRIBED, Service, warm_up

ROOT = pathlib.Path(__file__).resolve().parent.parent
MEASURE = "call()"
# Run with -c, not -m: runpy would run the whole module inside an exec, which callgrind counts.
CHILD = "import sys; from bench.scale_callgrind import inner; inner(sys.argv[1], int(sys.argv[2]))"
REGISTER, COUNTING = "register", "counting"


def label(name, endpoints):
    """The row of a round with endpoints endpoints."""
    return f"{name}, {endpoints} endpoint{'s' if endpoints > 1 else ''}"


def _told(line):
    # A line to the parent, then its answer: it reads the dump, or registers, meanwhile.
    print(line, flush=True)
    sys.stdin.readline()


def counted(service, name, operation):
    """Warm up (warm_up), then run operation inside its own exec (the counted part)."""
    warm_up(service, operation)
    call = operation(service)
    _told(COUNTING)
    # Each operation starts from an empty garbage collector (bench/instructions.py says why).
    gc.collect()
    gc.freeze()
    exec(MEASURE, {"call": call})
    _told(f"counted\t{name}")
    service.settle()


def inner(url, endpoints):
    """Under callgrind: every operation with one endpoint, then the rounds with endpoints."""
    service = Service(url, endpoints)
    service.start_worker()
    for name, operation in ROWS.items():
        counted(service, name, operation)
    for name, operation in ROUNDS.items():
        counted(service, label(name, 1), operation)
    _told(REGISTER)
    for name, operation in ROUNDS.items():
        counted(service, label(name, endpoints), operation)
    service.close()


def _dumps(out):
    # The dumps so far, by number.
    return {int(path.suffix[1:]): path for path in out.parent.glob(f"{out.name}.*")}


def _total(path):
    return int(re.search(r"^totals: (\d+)", path.read_text(), re.M).group(1))


def count(url, folder, endpoints, register):
    """{operation: instructions} of the service on url, under callgrind; register() is called
    when the rounds with one endpoint are counted, to register the others."""
    out = folder / "callgrind.out"
    command = [*CALLGRIND, f"--callgrind-out-file={out}", sys.executable, "-c", CHILD]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with (folder / "callgrind.log").open("w") as log:
        child = subprocess.Popen(
            [*command, url, str(endpoints)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
        )
        totals, before = {}, {}
        for line in child.stdout:
            said = line.rstrip("\n").split("\t")
            if said[0] == REGISTER:
                register()
            elif said[0] == COUNTING:
                before = _dumps(out)
            else:
                # Every dump since: an exec inside the operation dumps too (its own work uncounted).
                new = [path for number, path in _dumps(out).items() if number not in before]
                totals[said[1]] = sum(_total(path) for path in new)
            child.stdin.write("go\n")
            child.stdin.flush()
        child.stdin.close()
    if child.wait() != 0:
        log = (folder / "callgrind.log").read_text()
        raise SystemExit(f"the service under callgrind failed:\n{log[-3000:]}")
    return totals


def measure(folder, n, endpoints):
    """The fill's seconds and {operation: instructions} at n rows, in a SQLite file in folder."""
    url = f"sqlite:///{folder / f'scale-{n}.sqlite'}"
    service = Service(url, endpoints)
    service.init_db()
    seconds = fill(url, n)
    service.register(1, [SUBSCRIBED])
    work = folder / f"callgrind-{n}"
    work.mkdir()
    totals = count(url, work, endpoints, lambda: service.register(endpoints - 1, [OTHER]))
    service.close()
    return seconds, totals
