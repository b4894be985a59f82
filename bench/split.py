"""`make bench-split`: a create's and a read's instructions under callgrind, split by part.

Each part is a function (Flask's, a library's or ours) wrapped so that entering and leaving it
calls ``os.getppid``, which nothing else on the request path calls; callgrind dumps its counters
before each call (``--dump-before``), so every dump holds the instructions since the edge before.
Each stretch between two edges is given to the innermost part open then: the parts' figures are
exclusive, and they add up to the request. A wrapper's own cost is measured on an empty part and
taken off the parts, so that the total can be held to `make bench-instructions`' figure.
Settings (environment): BENCH_SPLIT_REQUESTS per scenario (21; the last is not counted, its
end running on into what follows).
"""

import gc
import importlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

from bench import instructions

ROOT = pathlib.Path(__file__).resolve().parent.parent
REQUESTS = int(os.environ.get("BENCH_SPLIT_REQUESTS", "21"))
SCENARIOS = ("POST fresh id", "GET /plants/{id}")
CALLGRIND = ["valgrind", "--tool=callgrind", "--dump-before=os_getppid"]
# Where the edges of the counted part are written, one line each, for the parent to read.
EDGES_FILE = "edges.json"
# Every part but Flask's and the floor's view: (module, attribute path, part's name).
FLASK_PARTS = [
    ("flask.app", "Flask.wsgi_app", "Flask and Werkzeug: context, routing, response"),
    ("flask.app", "Flask.preprocess_request", "Flask: before_request hooks"),
    ("flask.app", "Flask.process_response", "Flask: after_request hooks, session"),
    ("flask.app", "Flask.make_response", "Flask: make_response"),
    ("werkzeug.wrappers.response", "Response.__call__", "Werkzeug: the response's WSGI call"),
]
SERVICE_PARTS = [
    ("app.metrics", "Metrics.count", "metrics"),
    ("flask_httpauth", "HTTPAuth.get_auth", "flask-httpauth: the Authorization header"),
    ("app.auth", "auth.verify_token_callback", "token check"),
    ("app.auth", "auth.get_user_roles_callback", "token check"),
    ("app.body", "json_object", "body: read and parse"),
    ("marshmallow.schema", "Schema.load", "marshmallow: load"),
    ("marshmallow.fields", "Field.deserialize", "marshmallow: load"),
    ("marshmallow.schema", "Schema.dump", "marshmallow: dump"),
    ("app.plants.store", "create", "store: SQL"),
    ("app.plants.store", "get", "store: SQL"),
    ("app.database.access", "Database._checkout", "store: the connection"),
    ("app.database.hostlock", "HostLock.acquire", "store: writer lock"),
    ("app.database.hostlock", "HostLock.release", "store: writer lock"),
    ("app.events.store", "publish", "event"),
    ("app.plants.versions", "etag", "ETag"),
    ("app.plants.versions", "known_to_client", "ETag"),
    ("app.jsonprovider", "json_response", "JSON response"),
    ("app.apidoc", "json_response", "JSON response"),
]
FLOOR_PARTS = [("werkzeug.wrappers.request", "Request.get_json", "body: read and parse")]
CALIBRATION = "markers"
# The part of what runs outside every other: the middlewares, and the bench's caller.
OUTSIDE = "around Flask: the middlewares and the caller"


def _wrap(owner, name, part, edges):
    function = owner.__dict__[name]
    getppid = os.getppid

    def marked(*args, **kwargs):
        edges.append(part)
        getppid()
        try:
            return function(*args, **kwargs)
        finally:
            edges.append(None)
            getppid()

    setattr(owner, name, marked)


def _patch(parts, edges):
    for module, path, part in parts:
        owner = importlib.import_module(module)
        *outer, name = path.split(".")
        for attribute in outer:
            owner = getattr(owner, attribute)
        _wrap(owner, name, part, edges)


def inner(side, folder):
    """Wrap the parts, warm up, then count each scenario and an empty part in its own exec."""
    edges = []
    _patch(FLASK_PARTS + (SERVICE_PARTS if side == "service" else FLOOR_PARTS), edges)
    if side == "service":
        from wsgi import app
    else:
        from bench.floor import app
    app.view_functions = {key: _viewed(each, edges) for key, each in app.view_functions.items()}
    empty = type("Empty", (), {"call": staticmethod(lambda number: None)})
    _wrap(empty, "call", CALIBRATION, edges)
    callers = {
        name: instructions._caller(app, *instructions.SCENARIOS[name][:3])[0] for name in SCENARIOS
    }
    callers[CALIBRATION] = empty.call
    for number, call in enumerate(callers.values()):
        call(10**12 + number)
    # Every warm-up first: the counted execs' dumps are then the last ones, one block each.
    written = []
    for number, (name, call) in enumerate(callers.items()):
        first = 10**9 * (number + 1)
        gc.collect()
        gc.freeze()
        edges.clear()
        exec(instructions.MEASURE, {"call": call, "numbers": range(first, first + REQUESTS)})
        written.append([name, list(edges)])
    (pathlib.Path(folder) / EDGES_FILE).write_text(json.dumps(written))


def _viewed(view, edges):
    holder = type("Holder", (), {"view": staticmethod(view)})
    _wrap(holder, "view", "the view and its decorators", edges)
    return holder.view


def split(dumps, edges, overhead=(0, 0)):
    """{part: instructions a request} of one exec, where dumps[k] is what ran before edges[k].

    Each stretch is given to the innermost part open in it, less the wrappers' own cost
    (overhead: what one costs inside its part, and outside). Only the first REQUESTS - 1
    requests are read: the last one's end runs on into what follows the exec.
    """
    inside, outside = overhead
    cycle = len(edges) // REQUESTS
    parts, stack = dict.fromkeys((OUTSIDE,), 0), [OUTSIDE]
    for number in range((REQUESTS - 1) * cycle):
        if edges[number] is None:
            stack.pop()
        else:
            parts[stack[-1]] -= outside
            stack.append(edges[number])
            parts[stack[-1]] = parts.get(stack[-1], 0) - inside
        parts[stack[-1]] += dumps[number + 1]
    return {part: value / (REQUESTS - 1) for part, value in parts.items()}


def count(side, folder, env):
    """{scenario: {part: instructions per request}} of one side."""
    out = folder / side / "callgrind.out"
    out.parent.mkdir()
    command = [*CALLGRIND, f"--callgrind-out-file={out}", sys.executable, "-m", "bench.split"]
    command += [side, str(out.parent)]
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    dumps = sorted(out.parent.glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
    totals = [int(re.search(r"^totals: (\d+)", d.read_text(), re.M).group(1)) for d in dumps]
    results, end, overhead = {}, len(totals), (0, 0)
    # The empty part's exec is the last: what a wrapper costs, taken off every other part.
    for name, edges in reversed(json.loads((out.parent / EDGES_FILE).read_text())):
        start = end - len(edges)
        results[name] = split(totals[start:end], edges, overhead)
        if name == CALIBRATION:
            overhead = (results[name][CALIBRATION], results[name][OUTSIDE])
        end = start
    return results


def main():
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is missing: install it with `apt-get install valgrind`.")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="plantstore-split-"))
    env = instructions.prepared(folder)
    counts = {side: count(side, folder, env) for side in ("service", "floor")}
    shutil.rmtree(folder, ignore_errors=True)
    service, floor = counts["service"], counts["floor"]
    print(f"A wrapper costs {sum(service[CALIBRATION].values()):,.0f}, taken off the parts.")
    for name in SCENARIOS:
        ours, bare = service[name], floor[name]
        print(f"\n{name:52} {'service':>10} {'floor':>10}")
        for part in sorted(ours.keys() | bare.keys(), key=lambda p: -ours.get(p, 0)):
            print(f"  {part:50} {ours.get(part, 0):10,.0f} {bare.get(part, 0):10,.0f}")
        print(f"  {'total':50} {sum(ours.values()):10,.0f} {sum(bare.values()):10,.0f}")


if __name__ == "__main__":
    if len(sys.argv) == 3:
        inner(sys.argv[1], sys.argv[2])
    else:
        main()
