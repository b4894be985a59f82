"""`make bench`: the service as deployed against a bare-Flask floor, driven by wrk.

Both run as the Procfile's web line (`gunicorn`, reading gunicorn.conf.py, WEB_CONCURRENCY =
cores). Rounds alternate service and floor; the table shows medians and the ratio to the floor.
Settings (environment): BENCH_DURATION seconds per run (5), BENCH_ROUNDS (3), BENCH_CONNECTIONS
(16), BENCH_PLANTS preloaded (10000), BENCH_DATABASE_URL (default: a fresh SQLite file).
"""

import datetime
import json
import os
import pathlib
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
DURATION = int(os.environ.get("BENCH_DURATION", "5"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "16"))
PLANTS = int(os.environ.get("BENCH_PLANTS", "10000"))
WORKERS = os.cpu_count() or 1

# wrk prints its summary as one JSON line, so nothing has to parse its text report.
REPORT = """
done = function(summary, latency, requests)
  io.write(string.format(
    '{"requests": %d, "seconds": %f, "errors": %d, "p50_ms": %f, "p99_ms": %f}\\n',
    summary.requests, summary.duration / 1e6,
    summary.errors.connect + summary.errors.read + summary.errors.write
      + summary.errors.status + summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
"""

HEADERS = f"""
wrk.headers["Authorization"] = "Bearer {TOKEN}"
wrk.headers["Content-Type"] = "application/json"
"""

SCENARIOS = {
    # Each wrk thread counts up from its own billion, so every POST stores a new plant.
    "POST fresh id": """
local threads = 0
setup = function(thread) threads = threads + 1; thread:set("base", threads * 1000000000) end
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", "/plants", nil,
    string.format('{"id": %d, "name": "Monstera", "tag": "tropical"}', base + n))
end
""",
    "POST replay": """
wrk.method = "POST"
wrk.path = "/plants"
wrk.body = '{"id": 1, "name": "plant 1", "tag": "bench"}'
""",
    "GET /plants?limit=100": """
wrk.path = "/plants?limit=100"
""",
    "GET /plants/{id}": f"""
request = function()
  return wrk.format("GET", "/plants/" .. math.random(1, {PLANTS}))
end
""",
}


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def call(port, method, path, body=None):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}",
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


class Server:
    """gunicorn started as the Procfile's web line does, from the project root."""

    def __init__(self, app, env):
        self.port = free_port()
        env = {**os.environ, **env, "PORT": str(self.port), "WEB_CONCURRENCY": str(WORKERS)}
        command = [sys.executable, "-m", "gunicorn", app, "--access-logfile", "/dev/null"]
        self.process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise SystemExit(f"{app} did not start") from None
                time.sleep(0.1)

    def worker_peak_rss_mib(self):
        """The largest peak resident size (VmHWM) among the workers, in MiB."""
        children = pathlib.Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        peaks = []
        for pid in children.read_text().split():
            for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    peaks.append(int(line.split()[1]) / 1024)
        return max(peaks)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=30)


def wrk(port, scenario, seconds=DURATION):
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(HEADERS + SCENARIOS[scenario] + REPORT)
        script.flush()
        output = subprocess.run(
            # One wrk thread: on a small machine every core wrk takes is one the server loses.
            # A connection per request: gthread pins a kept-alive connection to the worker that
            # accepted it, and wrk's burst of connections can land on one worker, halving the
            # result at random. Both sides pay the same for it.
            [
                "wrk",
                "-t1",
                "-H",
                "Connection: close",
                f"-c{CONNECTIONS}",
                f"-d{seconds}s",
                "-s",
                script.name,
                f"http://127.0.0.1:{port}",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    result = json.loads(output.strip().splitlines()[-1])
    result["rps"] = result["requests"] / result["seconds"]
    return result


def prepare_database(folder):
    url = os.environ.get("BENCH_DATABASE_URL") or f"sqlite:///{folder / 'bench.sqlite'}"
    env = {"PLANTSTORE_DATABASE_URL": url, "PLANTSTORE_API_TOKENS": TOKEN}
    flask = [sys.executable, "-m", "flask", "--app", "wsgi", "init-db"]
    subprocess.run(flask, cwd=ROOT, env={**os.environ, **env}, check=True, capture_output=True)
    return env


def preload(env):
    sys.path.insert(0, str(ROOT))
    from sqlalchemy import create_engine, delete, insert

    from app.db import deliveries, plants

    engine = create_engine(env["PLANTSTORE_DATABASE_URL"])
    rows = [{"id": n, "name": f"plant {n}", "tag": "bench"} for n in range(1, PLANTS + 1)]
    with engine.begin() as conn:
        conn.execute(delete(deliveries))
        conn.execute(delete(plants))
        conn.execute(insert(plants), rows)
    engine.dispose()


def median(runs, key):
    return statistics.median(run[key] for run in runs)


def main():
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is missing: install it with `apt-get install wrk` (Debian package).")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="plantstore-bench-"))
    env = prepare_database(folder)
    preload(env)
    runs = {(side, scenario): [] for side in ("service", "floor") for scenario in SCENARIOS}
    rss = {"service": [], "floor": []}
    for round_number in range(1, ROUNDS + 1):
        for side, app in (("service", "wsgi:app"), ("floor", "bench.floor:app")):
            server = Server(app, env)
            assert call(server.port, "GET", "/plants/1") == 200
            wrk(server.port, "GET /plants/{id}", seconds=2)  # warm-up, not counted
            for scenario in SCENARIOS:
                result = wrk(server.port, scenario)
                runs[side, scenario].append(result)
                print(
                    f"round {round_number} {side:7} {scenario:22} {result['rps']:8.0f} req/s",
                    f"errors {result['errors']}",
                    file=sys.stderr,
                )
            rss[side].append(server.worker_peak_rss_mib())
            server.stop()
    shutil.rmtree(folder, ignore_errors=True)

    table = []
    for scenario in SCENARIOS:
        service, floor = runs["service", scenario], runs["floor", scenario]
        table.append(
            {
                "scenario": scenario,
                "rps": median(service, "rps"),
                "p50_ms": median(service, "p50_ms"),
                "p99_ms": median(service, "p99_ms"),
                "errors": sum(run["errors"] for run in service),
                "floor_rps": median(floor, "rps"),
                "floor_p99_ms": median(floor, "p99_ms"),
                "ratio": median(service, "rps") / median(floor, "rps"),
            }
        )
    summary = {
        "when": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "machine": {"cores": os.cpu_count(), "workers": WORKERS, "connections": CONNECTIONS},
        "database": "postgresql" if os.environ.get("BENCH_DATABASE_URL") else "sqlite",
        "duration_s": DURATION,
        "rounds": ROUNDS,
        "scenarios": table,
        "peak_rss_per_worker_mib": {side: max(values) for side, values in rss.items()},
    }
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    path = results / f"{summary['when'].replace(':', '')}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")

    print(
        f"\n{'scenario':24} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'floor/s':>8} "
        f"{'fl p99':>7} {'ratio':>6}"
    )
    for row in table:
        print(
            f"{row['scenario']:24} {row['rps']:8.0f} {row['p50_ms']:7.2f} {row['p99_ms']:7.2f} "
            f"{row['floor_rps']:8.0f} {row['floor_p99_ms']:7.2f} {row['ratio']:6.2f}"
        )
    print(
        f"peak RSS per worker: service {summary['peak_rss_per_worker_mib']['service']:.1f} MiB, "
        f"floor {summary['peak_rss_per_worker_mib']['floor']:.1f} MiB"
    )
    print(f"results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
