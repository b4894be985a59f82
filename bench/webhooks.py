"""`make bench-webhooks`: creates at full speed with and without webhooks, as deployed.

The Procfile's web line (`gunicorn wsgi:app`, gunicorn.conf.py's workers) and worker line
(`flask --app wsgi webhooks run`), a receiver that is nginx answering 204 (and 500), and wrk
with 8 kept-alive connections creating fresh ids. Reports, each target marked met or MISSED:
create throughput with webhooks against without (same run), the delivery rate, the oldest
pending age sampled every second during the load, the time for the backlog to empty after it,
the worker's CPU per delivery, and, with a receiver that never answers and one that answers 500
listed before a healthy one, the healthy receiver's p99 from a create's answer to its arrival.

Settings (environment): BENCH_WEBHOOK_DURATION seconds of load (30), BENCH_WEBHOOK_ROUNDS (2),
BENCH_WEBHOOK_ISOLATION_CREATES (300, at BENCH_WEBHOOK_ISOLATION_RATE per second, 30),
BENCH_DATABASE_URL (default: a fresh SQLite file), WEB_CONCURRENCY (gunicorn.conf.py's).
"""

import datetime
import http.client
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from bench import load, servers
from bench.webhook_processes import (
    CLOCK_TICKS,
    DELIVERED,
    PENDING,
    Outbox,
    Receiver,
    Worker,
    hung_receiver,
)

ROOT = servers.ROOT
TOKEN = "bench-token-0123456789abcdefghijklmnopqrstuvwxyz"
SECRET = "bench-webhook-secret"
DURATION = int(os.environ.get("BENCH_WEBHOOK_DURATION", "30"))
ROUNDS = int(os.environ.get("BENCH_WEBHOOK_ROUNDS", "2"))
ISOLATION_CREATES = int(os.environ.get("BENCH_WEBHOOK_ISOLATION_CREATES", "300"))
ISOLATION_RATE = float(os.environ.get("BENCH_WEBHOOK_ISOLATION_RATE", "30"))
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL")
CONNECTIONS = 8
# The targets of issue 18.
RATIO_TARGET, AGE_LIMIT_S, DRAIN_LIMIT_S, HEALTHY_P99_LIMIT_S = 0.8, 2.0, 5.0, 2.0


def mark(met):
    """The word the report shows for a target."""
    return "met" if met else "MISSED"


def prepare(folder):
    """The processes' environment on a schema-current, empty database."""
    url = DATABASE_URL or f"sqlite:///{folder / 'bench.sqlite'}"
    env = {
        **os.environ,
        "PLANTSTORE_DATABASE_URL": url,
        "PLANTSTORE_API_TOKENS": TOKEN,
        "PLANTSTORE_WEBHOOK_SECRET": SECRET,
    }
    init_db = [sys.executable, "-m", "flask", "--app", "wsgi", "init-db"]
    subprocess.run(init_db, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return env


def sample_ages(outbox, stop, ages):
    """Append the oldest pending age to ages every second until stop is set."""
    while not stop.wait(1):
        ages.append(outbox.oldest_pending_age())


def creates_without(env, folder, first_id):
    """wrk's create throughput with no receiver configured, and gunicorn's CPU per create."""
    with servers.Gunicorn("wsgi:app", env, folder) as web:
        web.wait_ready("/healthz", {})
        load.run(
            web.port, "POST fresh ids", CONNECTIONS, 2, token=TOKEN, plants=0, first_id=first_id
        )
        ticks = web.cpu_ticks()
        result = load.run(
            web.port,
            "POST fresh ids",
            CONNECTIONS,
            DURATION,
            token=TOKEN,
            plants=0,
            first_id=first_id + 10**7,
        )
        web_cpu = (web.cpu_ticks() - ticks) / CLOCK_TICKS
    return {"without_rps": result["rps"], "without_web_cpu_us": web_cpu * 1e6 / result["requests"]}


def creates_with(env, folder, receiver, outbox, first_id):
    """wrk's create throughput with the worker delivering to receiver, and what it cost."""
    env = {**env, "PLANTSTORE_WEBHOOK_URLS": f"{receiver.url}/ok"}
    with servers.Gunicorn("wsgi:app", env, folder) as web, Worker(env, folder) as worker:
        web.wait_ready("/healthz", {})
        load.run(
            web.port, "POST fresh ids", CONNECTIONS, 2, token=TOKEN, plants=0, first_id=first_id
        )
        servers.wait_until(lambda: outbox.scalar(PENDING) == 0, 60, "the warm-up's deliveries")
        delivered_before, cpu_before = outbox.scalar(DELIVERED), worker.cpu_seconds()
        web_ticks, receiver_ticks = web.cpu_ticks(), receiver.cpu_ticks()
        stop, ages = threading.Event(), []
        sampler = threading.Thread(target=sample_ages, args=(outbox, stop, ages))
        sampler.start()
        started = time.monotonic()
        result = load.run(
            web.port,
            "POST fresh ids",
            CONNECTIONS,
            DURATION,
            token=TOKEN,
            plants=0,
            first_id=first_id + 10**7,
        )
        ended = time.monotonic()
        web_cpu = (web.cpu_ticks() - web_ticks) / CLOCK_TICKS
        stop.set()
        sampler.join()
        servers.wait_until(lambda: outbox.scalar(PENDING) == 0, 120, "the backlog to empty")
        drained = time.monotonic()
        delivered = outbox.scalar(DELIVERED) - delivered_before
        cpu = worker.cpu_seconds() - cpu_before
        receiver_cpu = (receiver.cpu_ticks() - receiver_ticks) / CLOCK_TICKS
    return {
        "rps": result["rps"],
        "delivered": delivered,
        "delivery_rate": delivered / (drained - started),
        "max_age_s": max(ages, default=0.0),
        "ages_s": ages,
        "drain_s": drained - ended,
        "worker_cpu_us": cpu * 1e6 / max(delivered, 1),
        "web_cpu_us": web_cpu * 1e6 / result["requests"],
        "receiver_cpu_us": receiver_cpu * 1e6 / max(delivered, 1),
    }


def isolation(env, folder, receiver, outbox):
    """The healthy receiver's delays (create answered to arrival) beside a hung and a 500 one."""
    healthy = f"{receiver.url}/ok"
    with hung_receiver() as hung:
        urls = f"{hung},{receiver.url}/fail,{healthy}"
        env = {**env, "PLANTSTORE_WEBHOOK_URLS": urls}
        with servers.Gunicorn("wsgi:app", env, folder) as web, Worker(env, folder):
            web.wait_ready("/healthz", {})
            answered = paced_creates(web.port, ISOLATION_CREATES, ISOLATION_RATE)
            ids = outbox.bodies(healthy)
            servers.wait_until(
                lambda: len(set(receiver.arrivals()) & set(ids)) == len(ids),
                60,
                "the healthy receiver's deliveries",
            )
    arrivals = receiver.arrivals()
    delays = sorted(arrivals[delivery] - answered[plant] for delivery, plant in ids.items())
    return {
        "creates": len(delays),
        "p99_s": delays[int(0.99 * (len(delays) - 1))],
        "max_s": delays[-1],
    }


def paced_creates(port, count, rate):
    """Create count plants at rate per second on one kept-alive connection; {id: answered at}."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    answered, start = {}, time.monotonic()
    for plant_id in range(1, count + 1):
        time.sleep(max(0.0, start + plant_id / rate - time.monotonic()))
        conn.request("POST", "/plants", json.dumps({"id": plant_id, "name": "Fern"}), headers)
        response = conn.getresponse()
        response.read()
        if response.status != 200:
            raise SystemExit(f"a create was answered {response.status}")
        answered[plant_id] = time.time()
    conn.close()
    return answered


def main():
    """Measure every round, then print the table and save the figures."""
    if not (load.installed() and servers.nginx_binary()):
        raise SystemExit("make bench-webhooks needs wrk and nginx: apt-get install wrk nginx-light")
    database = "postgresql" if DATABASE_URL else "sqlite"
    with tempfile.TemporaryDirectory(prefix="plantstore-bench-webhooks-") as tmp:
        folder = pathlib.Path(tmp)
        env = prepare(folder)
        outbox = Outbox(env["PLANTSTORE_DATABASE_URL"])
        rounds = []
        with Receiver(folder / "receiver") as receiver:
            for number in range(ROUNDS):
                outbox.empty()
                first = 10**9 * (number + 1)
                # Each round takes the two sides in the other order.
                sides = ["without", "with"] if number % 2 == 0 else ["with", "without"]
                result = {}
                for side in sides:
                    path = folder / f"round{number}-{side}"
                    path.mkdir()
                    if side == "without":
                        result.update(creates_without(env, path, first))
                    else:
                        result.update(creates_with(env, path, receiver, outbox, first + 10**8))
                result["ratio"] = result["rps"] / result["without_rps"]
                print(f"round {number + 1}/{ROUNDS}: {summary_line(result)}", file=sys.stderr)
                rounds.append(result)
            outbox.empty()
            path = folder / "isolation"
            path.mkdir()
            isolated = isolation(env, path, receiver, outbox)
        outbox.engine.dispose()
    report(database, rounds, isolated)


def summary_line(result):
    """One round in a line."""
    return (
        f"{result['without_rps']:.0f} req/s without, {result['rps']:.0f} with "
        f"({result['ratio']:.2f}); {result['delivery_rate']:.0f} deliveries/s; oldest pending "
        f"max {result['max_age_s']:.2f} s; drained in {result['drain_s']:.2f} s; worker "
        f"{result['worker_cpu_us']:.0f} us/delivery; gunicorn {result['without_web_cpu_us']:.0f} "
        f"us/create without, {result['web_cpu_us']:.0f} with; receiver "
        f"{result['receiver_cpu_us']:.0f} us/delivery"
    )


def report(database, rounds, isolated):
    """Print the medians over rounds, each target marked, and save every figure."""
    median = {
        key: statistics.median(r[key] for r in rounds)
        for key in (
            "without_rps",
            "rps",
            "ratio",
            "delivery_rate",
            "drain_s",
            "worker_cpu_us",
            "without_web_cpu_us",
            "web_cpu_us",
            "receiver_cpu_us",
        )
    }
    worst_age = max(r["max_age_s"] for r in rounds)
    lines = [
        f"Webhooks, {database}, {os.cpu_count()} cores, {ROUNDS} rounds of {DURATION} s, "
        f"wrk {CONNECTIONS} connections; medians (the oldest pending age: the worst sample)",
        "",
        "| figure | value | target |",
        "|---|---|---|",
        f"| creates/s without webhooks | {median['without_rps']:.0f} | |",
        f"| creates/s with webhooks | {median['rps']:.0f} | |",
        f"| with / without | {median['ratio']:.2f} | >= {RATIO_TARGET}: "
        f"{mark(median['ratio'] >= RATIO_TARGET)} |",
        f"| deliveries/s | {median['delivery_rate']:.0f} | |",
        f"| oldest pending age, sampled each second | {worst_age:.2f} s | <= {AGE_LIMIT_S} s: "
        f"{mark(worst_age <= AGE_LIMIT_S)} |",
        f"| backlog empty after the load | {median['drain_s']:.2f} s | <= {DRAIN_LIMIT_S} s: "
        f"{mark(median['drain_s'] <= DRAIN_LIMIT_S)} |",
        f"| worker CPU per delivery (claim, send, record) | {median['worker_cpu_us']:.0f} us | |",
        f"| gunicorn CPU per create, without / with webhooks | "
        f"{median['without_web_cpu_us']:.0f} / {median['web_cpu_us']:.0f} us | |",
        f"| receiver (nginx) CPU per delivery | {median['receiver_cpu_us']:.0f} us | |",
        f"| healthy receiver beside a hung and a 500 one, p99 create to arrival "
        f"({isolated['creates']} creates at {ISOLATION_RATE:.0f}/s) | {isolated['p99_s']:.3f} s "
        f"| <= {HEALTHY_P99_LIMIT_S} s: {mark(isolated['p99_s'] <= HEALTHY_P99_LIMIT_S)} |",
    ]
    print("\n".join(lines))
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace(":", "")
    path = results / f"webhooks-{when}.json"
    path.write_text(
        json.dumps({"database": database, "rounds": rounds, "isolation": isolated}, indent=2) + "\n"
    )
    print(f"results: {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
