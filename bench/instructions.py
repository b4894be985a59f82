"""`make bench-instructions`: instructions per request, service against floor, under callgrind.

Instruction counts repeat exactly from run to run whatever else the machine does, so this is the
figure to compare two commits by. Each side runs in one process with no server: requests go
straight to the WSGI app. Only what runs inside ``exec`` is counted (callgrind's
``--toggle-collect``), and each scenario is one ``exec``, dumped on its own.
The service is counted twice: as configured by default, and with a rate limit on memory
storage high enough never to refuse ("limited"), whose cost per create must stay within
LIMITED_TARGET of the default's. A page of the events feed is held to a page of plants
(AGAINST). Settings (environment): BENCH_REQUESTS per scenario (200).
"""

import gc
import io
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOKEN = "bench-token-0123456789abcdefghijklmnopqrstuvwxyz"
REQUESTS = int(os.environ.get("BENCH_REQUESTS", "200"))
PRELOADED = 1000
# Scenario: (method, path, body made from the request's number, target ratio to the floor).
SCENARIOS = {
    "POST fresh id": ("POST", "/plants", '{{"id": {}, "name": "Monstera", "tag": "x"}}', 1.8),
    "POST replay": ("POST", "/plants", '{{"id": 1, "name": "plant 1", "tag": "bench"}}', None),
    "GET /plants/{id}": ("GET", "/plants/{}", None, 1.6),
    "GET /plants?limit=100": ("GET", "/plants?limit=100", None, None),
    "GET /events?limit=100": ("GET", "/events?limit=100", None, None),
}
# Scenario: (the scenario it is held to, on the service, and the target ratio of the two).
AGAINST = {"GET /events?limit=100": ("GET /plants?limit=100", 1.5)}
CALLGRIND = [
    "valgrind",
    "--tool=callgrind",
    "--collect-atstart=no",
    "--toggle-collect=builtin_exec",
    "--dump-after=builtin_exec",
]
MEASURE = "for number in numbers: call(number)"
# The limited side's settings, and its target against the default service, per create.
LIMITED = {"PLANTSTORE_RATE_LIMIT": "1000000 per hour"}
LIMITED_TARGET = 1.10


def _environ(method, path, body):
    path, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": method,
        "SCRIPT_NAME": "",
        "PATH_INFO": path,
        "QUERY_STRING": query,
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1:8000",
        "HTTP_AUTHORIZATION": f"Bearer {TOKEN}",
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    data = (body or "").encode()
    environ["wsgi.input"] = io.BytesIO(data)
    if body is not None:
        environ["CONTENT_TYPE"] = "application/json"
        environ["CONTENT_LENGTH"] = str(len(data))
    return environ


def _caller(app, method, path, body):
    statuses = []

    def start_response(status, headers, exc_info=None):
        statuses.append(status)

    def call(number):
        environ = _environ(
            method, path.format(number % PRELOADED + 1), body and body.format(number)
        )
        result = app(environ, start_response)
        b"".join(result)
        getattr(result, "close", lambda: None)()

    return call, statuses


def inner(side):
    """Run every scenario once to warm up, then each inside its own exec (the counted part)."""
    if side in ("service", "limited"):
        from wsgi import app
    else:
        from bench.floor import app
    for number, (method, path, body, _) in enumerate(SCENARIOS.values()):
        call, statuses = _caller(app, method, path, body)
        call(10**12 + number)
        assert statuses[-1].startswith("200"), (side, path, statuses[-1])
        first = 10**9 * (number + 1)
        # Each scenario starts from an empty garbage collector: otherwise a full collection,
        # due after so many allocations of the whole run, lands in whichever scenario it may.
        # What the imports left is frozen: a full collection then costs what the scenario
        # allocated, not the size of every module the process happens to have loaded.
        gc.collect()
        gc.freeze()
        exec(MEASURE, {"call": call, "numbers": range(first, first + REQUESTS)})


def preload(url):
    """PRELOADED plants, and an event of each one's creation, as the outbox writes it."""
    sys.path.insert(0, str(ROOT))
    import orjson
    from sqlalchemy import create_engine, insert

    from app.database import utcnow
    from app.events.store import events
    from app.plants.store import plants

    engine = create_engine(url)
    rows = [{"id": n, "name": f"plant {n}", "tag": "bench"} for n in range(1, PRELOADED + 1)]
    event = {"type": "plant.created", "created_at": utcnow()}
    created = [{**event, "body": orjson.dumps(row).decode()} for row in rows]
    with engine.begin() as conn:
        conn.execute(insert(plants), rows)
        conn.execute(insert(events), created)
    engine.dispose()


def count(side, folder, env):
    """Instructions per request of each scenario for one side."""
    out = folder / side / "callgrind.out"
    out.parent.mkdir()
    command = [*CALLGRIND, f"--callgrind-out-file={out}", sys.executable, __file__, side]
    subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
    dumps = sorted(out.parent.glob("callgrind.out.*"), key=lambda p: int(p.suffix[1:]))
    totals = [
        int(re.search(r"^totals: (\d+)", dump.read_text(), re.M).group(1))
        for dump in dumps[-len(SCENARIOS) :]
    ]
    return {name: total / REQUESTS for name, total in zip(SCENARIOS, totals, strict=True)}


def prepared(folder):
    """The environment of a counted side: a SQLite database in folder, made and preloaded."""
    url = f"sqlite:///{folder / 'bench.sqlite'}"
    env = {
        **os.environ,
        "PYTHONHASHSEED": "0",
        "PLANTSTORE_DATABASE_URL": url,
        "PLANTSTORE_API_TOKENS": TOKEN,
    }
    flask = [sys.executable, "-m", "flask", "--app", "wsgi", "init-db"]
    subprocess.run(flask, cwd=ROOT, env=env, check=True, capture_output=True)
    preload(url)
    return env


def main():
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is missing: install it with `apt-get install valgrind`.")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="plantstore-instructions-"))
    env = prepared(folder)
    counts = {side: count(side, folder, env) for side in ("service", "floor")}
    counts["limited"] = count("limited", folder, {**env, **LIMITED})
    shutil.rmtree(folder, ignore_errors=True)
    print(f"{'scenario':24} {'service':>11} {'floor':>11} {'ratio':>6} {'target':>10}", end="")
    print(f" {'limited':>11} {'/service':>8} {'target':>10}")
    for name, (*_, target) in SCENARIOS.items():
        service, floor = counts["service"][name], counts["floor"][name]
        limited = counts["limited"][name]
        limited_target = LIMITED_TARGET if name == "POST fresh id" else None
        print(
            f"{name:24} {service:11,.0f} {floor:11,.0f} {service / floor:6.2f} "
            f"{_verdict(service / floor, target):>10} {limited:11,.0f} {limited / service:8.2f} "
            f"{_verdict(limited / service, limited_target):>10}"
        )
    for name, (other, target) in AGAINST.items():
        ratio = counts["service"][name] / counts["service"][other]
        print(f"{name} against {other}, on the service: {ratio:.2f} {_verdict(ratio, target)}")


def _verdict(ratio, target):
    if target is None:
        return ""
    return f"<={target:.2f} {'met' if ratio <= target else 'MISSED'}"


if __name__ == "__main__":
    if len(sys.argv) == 2:
        sys.path.insert(0, str(ROOT))
        inner(sys.argv[1])
    else:
        main()
