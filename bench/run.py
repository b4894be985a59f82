"""`make bench`: the service as deployed against a bare-Flask floor, directly and behind nginx.

Both sides run as the Procfile's web line, `gunicorn APP` from the project root, reading
gunicorn.conf.py in the same environment, each with deploy/nginx.conf in front. wrk drives every
scenario at 8 and 64 kept-alive connections (and some at 256), directly and through nginx; rounds
alternate which side goes first. Settings (environment): BENCH_DURATION seconds per run (3),
BENCH_ROUNDS (2), BENCH_WARMUP seconds per scenario before the rounds (1), BENCH_PLANTS preloaded
(50000, one in RARE_EVERY tagged "rare"), BENCH_DATABASE_URL (default: a fresh SQLite file).
Then the rate limit row (bench/ratelimit.py): the service with and without a limit counted in
Redis.
"""

import collections
import contextlib
import datetime
import itertools
import json
import os
import pathlib
import subprocess
import sys
import tempfile

from sqlalchemy import create_engine, delete, insert

from app.events.store import events
from app.plants.store import plants
from app.webhooks.tables.deliveries import deliveries
from bench import load, ratelimit, report, servers
from harness import nginx
from harness.processes import ROOT

TOKEN = "bench-token-0123456789abcdefghijklmnopqrstuvwxyz"
DURATION = int(os.environ.get("BENCH_DURATION", "3"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "2"))
WARMUP = int(os.environ.get("BENCH_WARMUP", "1"))
PLANTS = int(os.environ.get("BENCH_PLANTS", "50000"))
# One plant in RARE_EVERY carries the rare tag (200 of 50,000: two full pages), spread out.
RARE_EVERY = 250
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL")
APPS = {"service": "wsgi:app", "floor": "bench.floor:app"}
HIGH = 256
# Throughput holding at many connections is shown on a write and a read, both ways in.
CASES = [
    *itertools.product(load.SCENARIOS, ("direct", "nginx"), (8, 64)),
    *itertools.product(("POST fresh ids", "GET /plants/{id}"), ("direct", "nginx"), (HIGH,)),
]
AUTH = {"Authorization": f"Bearer {TOKEN}"}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

Side = collections.namedtuple("Side", "gunicorn ports")


def check_tools():
    """Stop with the command that installs wrk or nginx when either is missing."""
    missing = [
        package
        for package, found in (("wrk", load.installed()), ("nginx-light", nginx.binary()))
        if not found
    ]
    if missing:
        raise SystemExit(f"make bench needs wrk and nginx: apt-get install {' '.join(missing)}")


def prepare_database(folder):
    """The servers' environment, on a schema-current database holding PLANTS plants."""
    url = DATABASE_URL or f"sqlite:///{folder / 'bench.sqlite'}"
    env = {
        **os.environ,
        "PLANTSTORE_DATABASE_URL": url,
        "PLANTSTORE_API_TOKENS": TOKEN,
        # As deploy/nginx.conf asks of the instances behind it.
        "PLANTSTORE_TRUSTED_PROXIES": "1",
    }
    init_db = [sys.executable, "-m", "flask", "--app", "wsgi", "init-db"]
    subprocess.run(init_db, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    engine = create_engine(url)
    rows = [
        {"id": n, "name": f"plant {n}", "tag": "rare" if n % RARE_EVERY == 0 else "bench"}
        for n in range(1, PLANTS + 1)
    ]
    with engine.begin() as conn:
        conn.execute(delete(events))
        conn.execute(delete(deliveries))
        conn.execute(delete(plants))
        conn.execute(insert(plants), rows)
    engine.dispose()
    return env


def start(stack, app, env, folder):
    """gunicorn serving app, and nginx in front of it, both stopped when stack closes."""
    folder.mkdir()
    gunicorn = stack.enter_context(servers.Gunicorn(app, env, folder))
    gunicorn.wait_ready("/plants/1", AUTH)
    proxy = nginx.Nginx(folder / "nginx", workers="auto")
    stack.callback(proxy.stop)
    proxy.front([gunicorn.port])
    proxy.wait_ready("/plants/1", AUTH)
    return Side(gunicorn, {"direct": gunicorn.port, "nginx": proxy.port})


def one_run(side, case, seconds, first_id):
    """One wrk run of case on side, with the server's CPU per request and its workers' shares."""
    scenario, via, connections = case
    server = side.gunicorn
    offset, ticks = server.log_offset(), server.cpu_ticks()
    params = {"token": TOKEN, "plants": PLANTS, "first_id": first_id}
    result = load.run(side.ports[via], scenario, connections, seconds, **params)
    # Answers nginx made itself (a 502) have no line in gunicorn's log.
    by_worker = server.requests_by_worker(offset, result["requests"] - result["non_2xx"])
    served = max(by_worker.total(), 1)
    cpu_seconds = (server.cpu_ticks() - ticks) / CLOCK_TICKS
    result["served_by_worker"] = {str(pid): count for pid, count in by_worker.items()}
    result["cpu_us"] = cpu_seconds * 1e6 / served
    result["max_share"] = max(by_worker.values(), default=0) / served
    return result


def measure(sides):
    """Every case on both sides, round after round, each side going first in turn."""
    fresh_ids = itertools.count(10**9, 10**8)  # a range of its own for every run
    for side in sides.values():
        for scenario in load.SCENARIOS:
            one_run(side, (scenario, "nginx", 8), WARMUP, next(fresh_ids))
    runs = collections.defaultdict(list)
    for number in range(ROUNDS):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        for case in CASES:
            for name in order:
                result = one_run(sides[name], case, DURATION, next(fresh_ids))
                runs[(name, *case)].append(result)
                print(
                    f"round {number + 1}/{ROUNDS} {name:7} {case[0]:22} {case[1]:6} {case[2]:3}"
                    f" {result['rps']:7.0f} req/s",
                    file=sys.stderr,
                )
    return runs


def measure_rate_limit(stack, service, env, folder):
    """The rate limit row's runs: service against a limited twin; None without Redis."""
    if not ratelimit.reachable():
        print(f"rate limit row skipped: no Redis answers at {ratelimit.REDIS_URL}", file=sys.stderr)
        return None
    limited = start(stack, APPS["service"], {**env, **ratelimit.settings()}, folder / "limited")
    fresh_ids = itertools.count(10**15, 10**8)  # past every range measure() takes
    for side in (service, limited):
        one_run(side, ratelimit.CASES[0], WARMUP, next(fresh_ids))
    sides = {"service": service, "limited": limited}
    runs = ratelimit.measure(sides, one_run, ROUNDS, DURATION, fresh_ids)
    return ratelimit.rows(runs, "service", "limited")


def describe(settings):
    """One line for what gunicorn.conf.py chose on each side."""
    return "; ".join(
        f"{name}: {s['worker_class']}, {s['workers']} workers x {s['threads']} threads"
        for name, s in settings.items()
    )


def check_access_log(settings):
    """Stop unless gunicorn logs each request to stdout with the pid of its worker."""
    for name, s in settings.items():
        if s["accesslog"] != "-" or "pid=%(p)s" not in s["access_log_format"]:
            raise SystemExit(
                f"{name}: gunicorn.conf.py must log access to stdout with pid=%(p)s in "
                "access_log_format; the workers' shares are counted from it"
            )


def write_results(summary):
    """Save the run as bench/results/<time>.json; return its path."""
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    path = results / f"{summary['when'].replace(':', '')}.json"
    path.write_text(json.dumps(summary, indent=2) + "\n")
    return path


def main():
    """Measure, then print the tables and save them."""
    check_tools()
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    with tempfile.TemporaryDirectory(prefix="plantstore-bench-") as tmp:
        folder = pathlib.Path(tmp)
        env = prepare_database(folder)
        with contextlib.ExitStack() as stack:
            sides = {name: start(stack, app, env, folder / name) for name, app in APPS.items()}
            settings = {name: side.gunicorn.settings() for name, side in sides.items()}
            check_access_log(settings)
            settings = {
                name: {key: chosen[key] for key in ("worker_class", "workers", "threads")}
                for name, chosen in settings.items()
            }
            runs = measure(sides)
            rss = {name: side.gunicorn.peak_rss_mib() for name, side in sides.items()}
            rate_limit = measure_rate_limit(stack, sides["service"], env, folder)
    rows = report.summarise(runs, CASES, postgres=DATABASE_URL is not None)
    load_rows = report.load_rows(rows, HIGH)
    filter_rows = report.filter_rows(rows)
    database = "postgresql" if DATABASE_URL else "sqlite"
    header = (
        f"{database}, {os.cpu_count()} cores, {ROUNDS} rounds of {DURATION} s, medians; "
        f"{describe(settings)}"
    )
    report.print_tables(header, rows, load_rows, filter_rows, HIGH, rss)
    if rate_limit is not None:
        ratelimit.print_rows(rate_limit)
    raw = [{"side": key[0], "case": key[1:], "rounds": value} for key, value in runs.items()]
    summary = {
        "when": when,
        "database": database,
        "cores": os.cpu_count(),
        "rounds": ROUNDS,
        "duration_s": DURATION,
        "gunicorn": settings,
        "rows": rows,
        "load": load_rows,
        "filter": filter_rows,
        "peak_rss_per_worker_mib": rss,
        "rate_limit": rate_limit,
        "runs": raw,
    }
    print(f"results: {write_results(summary).relative_to(ROOT)}")


if __name__ == "__main__":
    main()
