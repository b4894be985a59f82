"""`make bench-webhooks`: creates at full speed with and without webhooks, as deployed.

The Procfile's web line (`gunicorn wsgi:app`, gunicorn.conf.py's workers) and worker line
(`flask --app wsgi webhooks run`), receivers that are nginx answering 204 at once (or after
50 ms, or 500), and wrk with 8 kept-alive connections creating fresh ids. Three figures, each
target marked met or MISSED, each with the worker's CPU per delivery:
- one receiver: create throughput with it against without (same round), the oldest pending age
  sampled every second during the load, the time for the backlog to empty after it;
- ten receivers: gunicorn's CPU per create against without, and when the last delivery arrived
  after the end of the load;
- one receiver 50 ms away: the oldest pending age during the load, and the drain after it;
and, with a receiver that never answers and one that answers 500 listed before a healthy one,
the healthy receiver's p99 from a create's answer to its arrival.

Settings (environment): BENCH_WEBHOOK_DURATION seconds of load with one receiver (30; ten
receivers get 10 s, the far one 15 s), BENCH_WEBHOOK_ROUNDS (2),
BENCH_WEBHOOK_ISOLATION_CREATES (300, at BENCH_WEBHOOK_ISOLATION_RATE per second, 30),
BENCH_DATABASE_URL (default: a fresh SQLite file), WEB_CONCURRENCY (gunicorn.conf.py's),
BENCH_WEBHOOK_RECEIVERS: `endpoints` (the default) registers every scenario's receivers as
webhook endpoints through the API (an admin token, PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8,
subscribed to plant.created) and deletes them after it; `operator` lists them in
PLANTSTORE_WEBHOOK_URLS instead, so that both ways compare in one tool.
"""

import contextlib
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time

from bench import load, servers, webhook_receivers, webhook_report
from bench.webhook_processes import (
    CLOCK_TICKS,
    DELIVERED,
    ECHO_MODULE,
    PENDING,
    WAITING_EVENTS,
    Outbox,
    Receiver,
    Worker,
)
from bench.webhook_report import (
    CONNECTIONS,
    DURATION,
    FAR_DURATION,
    ISOLATION_CREATES,
    ISOLATION_RATE,
    ROUNDS,
    TEN_DURATION,
)
from harness import nginx
from harness.processes import ROOT, wait_for
from harness.receivers import SilentReceiver

TOKEN = "bench-token-0123456789abcdefghijklmnopqrstuvwxyz"
SECRET = "bench-webhook-secret"
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL")


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


def creates(web, seconds, first_id):
    """wrk creating fresh ids from first_id on web for seconds; its result."""
    return load.run(
        web.port, "POST fresh ids", CONNECTIONS, seconds, token=TOKEN, plants=0, first_id=first_id
    )


def creates_without(env, folder, first_id):
    """wrk's create throughput with no receiver configured, and gunicorn's CPU per create."""
    with servers.Gunicorn("wsgi:app", env, folder) as web:
        web.wait_ready()
        creates(web, 2, first_id)
        ticks = web.cpu_ticks()
        result = creates(web, DURATION, first_id + 10**7)
        web_cpu = (web.cpu_ticks() - ticks) / CLOCK_TICKS
    return {"without_rps": result["rps"], "without_web_cpu_us": web_cpu * 1e6 / result["requests"]}


def creates_with(registration, folder, urls, receiver, outbox, first_id, seconds):
    """wrk's create throughput for seconds with the worker delivering to urls, and what it
    cost."""
    env = registration.environ(urls)
    with servers.Gunicorn("wsgi:app", env, folder) as web, Worker(env, folder) as worker:
        web.wait_ready()
        with registration.registered(web, urls):
            return measured(web, worker, receiver, outbox, first_id, seconds)


def measured(web, worker, receiver, outbox, first_id, seconds):
    """creates_with's figures, once web and worker run with their receivers."""
    creates(web, 2, first_id)
    wait_for(lambda: outbox.scalar(PENDING) == 0, 300, "the warm-up's deliveries")
    delivered_before, cpu_before = outbox.scalar(DELIVERED), worker.cpu_seconds()
    web_ticks, receiver_ticks = web.cpu_ticks(), receiver.cpu_ticks()
    stop, ages = threading.Event(), []
    sampler = threading.Thread(target=sample_ages, args=(outbox, stop, ages))
    sampler.start()
    started = time.monotonic()
    result = creates(web, seconds, first_id + 10**7)
    ended = time.monotonic()
    web_cpu = (web.cpu_ticks() - web_ticks) / CLOCK_TICKS
    stop.set()
    sampler.join()
    wait_for(lambda: outbox.scalar(PENDING) == 0, 300, "the backlog to empty")
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


def isolation(registration, folder, receiver, outbox):
    """The healthy receiver's delays (create answered to arrival) beside a hung and a 500 one."""
    with contextlib.closing(SilentReceiver()) as hung:
        urls = [hung.url, f"{receiver.url}/fail", f"{receiver.url}/ok"]
        env = registration.environ(urls)
        with servers.Gunicorn("wsgi:app", env, folder) as web, Worker(env, folder):
            web.wait_ready()
            with registration.registered(web, urls) as names:
                answered = load.paced_creates(web.port, TOKEN, ISOLATION_CREATES, ISOLATION_RATE)
                wait_for(lambda: outbox.scalar(WAITING_EVENTS) == 0, 60, "every event fanned out")
                ids = outbox.bodies(names[-1])
                wait_for(
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


def one_round(registration, folder, receiver, outbox, number):
    """Creates without webhooks and with one receiver, in an order that alternates between
    rounds; then with ten receivers, and with one far away."""
    outbox.empty()
    first = 10**9 * (number + 1)
    sides = ["without", "with"] if number % 2 == 0 else ["with", "without"]
    result = {}
    for side in sides:
        path = folder / f"round{number}-{side}"
        path.mkdir()
        if side == "without":
            result.update(creates_without(registration.env, path, first))
        else:
            one, start = [f"{receiver.url}/ok"], first + 10**8
            result.update(creates_with(registration, path, one, receiver, outbox, start, DURATION))
    result["ratio"] = result["rps"] / result["without_rps"]
    for name, urls, seconds in scenarios(receiver):
        outbox.empty()
        path = folder / f"round{number}-{name}"
        path.mkdir()
        first += 3 * 10**8
        result[name] = creates_with(registration, path, urls, receiver, outbox, first, seconds)
    return result


def scenarios(receiver):
    """(name, receiver URLs, seconds of load) of the figures beyond one nearby receiver."""
    ten = [f"{receiver.url}/ok/{number}" for number in range(10)]
    return [("ten", ten, TEN_DURATION), ("far", [f"{receiver.url}/far"], FAR_DURATION)]


def main():
    """Measure every round, then print the table and save the figures."""
    if not (load.installed() and nginx.binary() and (nginx.MODULES / ECHO_MODULE).exists()):
        raise SystemExit(
            "make bench-webhooks needs wrk, nginx and its echo module: "
            "apt-get install wrk nginx-light libnginx-mod-http-echo"
        )
    webhook_receivers.check_mode()
    database = "postgresql" if DATABASE_URL else "sqlite"
    with tempfile.TemporaryDirectory(prefix="plantstore-bench-webhooks-") as tmp:
        folder = pathlib.Path(tmp)
        registration = webhook_receivers.Registration(prepare(folder))
        outbox = Outbox(registration.env["PLANTSTORE_DATABASE_URL"])
        rounds = []
        with Receiver(folder / "receiver") as receiver:
            for number in range(ROUNDS):
                result = one_round(registration, folder, receiver, outbox, number)
                print(
                    f"round {number + 1}/{ROUNDS}: {webhook_report.summary_line(result)}",
                    file=sys.stderr,
                )
                rounds.append(result)
            outbox.empty()
            path = folder / "isolation"
            path.mkdir()
            isolated = isolation(registration, path, receiver, outbox)
        outbox.engine.dispose()
    webhook_report.report(database, rounds, isolated)


if __name__ == "__main__":
    main()
