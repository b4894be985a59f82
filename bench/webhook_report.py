"""The webhook benchmark's settings and targets, and its report: a table, and every figure saved."""

import datetime
import json
import os
import statistics

from bench import webhook_receivers
from harness.processes import ROOT

DURATION = int(os.environ.get("BENCH_WEBHOOK_DURATION", "30"))
ROUNDS = int(os.environ.get("BENCH_WEBHOOK_ROUNDS", "2"))
ISOLATION_CREATES = int(os.environ.get("BENCH_WEBHOOK_ISOLATION_CREATES", "300"))
ISOLATION_RATE = float(os.environ.get("BENCH_WEBHOOK_ISOLATION_RATE", "30"))
TEN_DURATION, FAR_DURATION = 10, 15
CONNECTIONS = 8
# The targets: with one receiver, and the healthy one beside a hung and a failing one.
RATIO_TARGET, AGE_LIMIT_S, DRAIN_LIMIT_S, HEALTHY_P99_LIMIT_S = 0.8, 2.0, 5.0, 2.0
# With ten receivers: gunicorn's CPU per create against none, and the last delivery's arrival.
TEN_CPU_LIMIT, TEN_DRAIN_LIMIT_S = 1.15, 60.0


# What creates_with measures, each round.
FIGURES = ("rps", "delivery_rate", "drain_s", "worker_cpu_us", "web_cpu_us", "receiver_cpu_us")


def mark(met):
    """The word the report shows for a target."""
    return "met" if met else "MISSED"


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
        for key in ("without_rps", "ratio", "without_web_cpu_us", *FIGURES)
    }
    worst_age = max(r["max_age_s"] for r in rounds)
    lines = [
        f"Webhooks, {database}, {webhook_receivers.described()}, {os.cpu_count()} cores, "
        f"{ROUNDS} rounds of {DURATION} s, wrk {CONNECTIONS} connections; medians (the oldest "
        "pending age: the worst sample)",
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
        *scenario_lines(rounds, median["without_web_cpu_us"]),
    ]
    print("\n".join(lines))
    save(database, rounds, isolated)


def scenario_lines(rounds, without_cpu_us):
    """The rows of the ten receivers' figure and the far receiver's, medians over rounds."""
    ten = {key: statistics.median(r["ten"][key] for r in rounds) for key in FIGURES}
    far = {key: statistics.median(r["far"][key] for r in rounds) for key in FIGURES}
    far_age = max(r["far"]["max_age_s"] for r in rounds)
    cpu = ten["web_cpu_us"] / without_cpu_us
    return [
        f"| ten receivers, {TEN_DURATION} s: gunicorn CPU per create, with / without | "
        f"{ten['web_cpu_us']:.0f} / {without_cpu_us:.0f} us ({cpu:.2f}) | "
        f"<= {TEN_CPU_LIMIT}: {mark(cpu <= TEN_CPU_LIMIT)} |",
        f"| ten receivers: creates/s; deliveries/s | {ten['rps']:.0f}; "
        f"{ten['delivery_rate']:.0f} | |",
        f"| ten receivers: last delivery after the load | {ten['drain_s']:.2f} s | "
        f"<= {TEN_DRAIN_LIMIT_S:.0f} s: {mark(ten['drain_s'] <= TEN_DRAIN_LIMIT_S)} |",
        f"| ten receivers: worker CPU per delivery | {ten['worker_cpu_us']:.0f} us | |",
        f"| a receiver 50 ms away, {FAR_DURATION} s: creates/s; deliveries/s | "
        f"{far['rps']:.0f}; {far['delivery_rate']:.0f} | |",
        f"| a receiver 50 ms away: oldest pending age | {far_age:.2f} s | <= {AGE_LIMIT_S} s: "
        f"{mark(far_age <= AGE_LIMIT_S)} |",
        f"| a receiver 50 ms away: backlog empty after the load | {far['drain_s']:.2f} s | "
        f"<= {DRAIN_LIMIT_S} s: {mark(far['drain_s'] <= DRAIN_LIMIT_S)} |",
        f"| a receiver 50 ms away: worker CPU per delivery | {far['worker_cpu_us']:.0f} us | |",
    ]


def save(database, rounds, isolated):
    """Keep every figure of the run in bench/results/webhooks-<time>.json."""
    results = ROOT / "bench" / "results"
    results.mkdir(exist_ok=True)
    when = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds").replace(":", "")
    path = results / f"webhooks-{when}.json"
    mode = webhook_receivers.MODE
    saved = {"database": database, "receivers": mode, "rounds": rounds, "isolation": isolated}
    path.write_text(json.dumps(saved, indent=2) + "\n")
    print(f"results: {path.relative_to(ROOT)}")
