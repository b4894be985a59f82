"""`make bench`'s rate limit row: POST of fresh ids by one token whose limit never refuses,
counted in Redis, against the same service with no limit, in the same run.

Beside the service's CPU per request (its gunicorn processes, from /proc, as every row), it
reports what Redis did for each request: the round trips the service made (the commands it
sends: EVALSHA of the counting script, and TTL for a window's end), every command run inside
Redis (those of the script included), and Redis's own CPU.
Settings (environment): BENCH_REDIS_URL (redis://127.0.0.1:6379/2).
"""

import os

import redis

REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/2")
# High enough never to refuse during a run.
LIMIT = "1000000000 per hour"
CASES = [("POST fresh ids", "direct", 8), ("POST fresh ids", "nginx", 64)]
# CPU per request with the limit, against without.
TARGET = 1.25


def settings():
    """The limited side's extra environment."""
    return {"PLANTSTORE_RATE_LIMIT": LIMIT, "PLANTSTORE_RATE_LIMIT_STORAGE_URL": REDIS_URL}


def reachable():
    """Whether Redis answers at REDIS_URL."""
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2).ping()
    except redis.RedisError:
        return False
    return True


# What the service sends, each command one round trip; commandstats also counts those that
# scripts run inside Redis.
SENT = ("cmdstat_evalsha", "cmdstat_eval", "cmdstat_ttl")


def _redis_counts(client):
    """Commands sent, commands run (those of scripts included), and Redis's CPU seconds."""
    info = client.info("all")
    stats = {key: value["calls"] for key, value in info.items() if key.startswith("cmdstat_")}
    sent = sum(stats.get(key, 0) for key in SENT)
    return sent, sum(stats.values()), info["used_cpu_user"] + info["used_cpu_sys"]


def measure(sides, one_run, rounds, duration, fresh_ids):
    """Each case on the unlimited and limited side in turn, round after round; the runs."""
    client = redis.Redis.from_url(REDIS_URL, socket_timeout=5)
    runs = {(name, case): [] for name in sides for case in CASES}
    for number in range(rounds):
        order = list(sides) if number % 2 == 0 else list(reversed(sides))
        for case in CASES:
            for name in order:
                before = _redis_counts(client)
                result = one_run(sides[name], case, duration, next(fresh_ids))
                sent, run, cpu = (b - a for a, b in zip(before, _redis_counts(client), strict=True))
                served = max(result["requests"], 1)
                result["redis_round_trips"] = sent / served
                result["redis_commands"] = (run - 1) / served  # less the INFO itself
                result["redis_cpu_us"] = cpu * 1e6 / served
                runs[name, case].append(result)
    client.close()
    return runs


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def rows(runs, unlimited, limited):
    """One row per case: medians of both sides, the ratio and the verdict."""
    table = []
    for case in CASES:
        plain, counted = runs[unlimited, case], runs[limited, case]
        cpu = _median(r["cpu_us"] for r in plain)
        cpu_limited = _median(r["cpu_us"] for r in counted)
        table.append(
            {
                "case": case,
                "rps": _median(r["rps"] for r in plain),
                "rps_limited": _median(r["rps"] for r in counted),
                "cpu_us": cpu,
                "cpu_us_limited": cpu_limited,
                "ratio": cpu_limited / cpu,
                "met": cpu_limited / cpu <= TARGET,
                "redis_round_trips": _median(r["redis_round_trips"] for r in counted),
                "redis_commands": _median(r["redis_commands"] for r in counted),
                "redis_cpu_us": _median(r["redis_cpu_us"] for r in counted),
                "non_2xx": sum(r["non_2xx"] for r in counted),
            }
        )
    return table


def print_rows(table):
    """The rate limit table."""
    print(
        f"\nrate limit on Redis ({LIMIT}) against none:\n"
        f"{'scenario':22} {'via':6} {'conns':>5} {'req/s':>7} {'limited':>7} "
        f"{'CPU µs/req':>10} {'limited':>7} {f'ratio, <={TARGET:.2f}':>17} "
        f"{'Redis round trips/req':>21} {'commands run':>12} {'Redis CPU µs/req':>16} "
        f"{'non-2xx':>7}"
    )
    for r in table:
        scenario, via, connections = r["case"]
        print(
            f"{scenario:22} {via:6} {connections:5} {r['rps']:7.0f} {r['rps_limited']:7.0f} "
            f"{r['cpu_us']:10.0f} {r['cpu_us_limited']:7.0f} {r['ratio']:10.2f} "
            f"{'met' if r['met'] else 'MISSED':>6} {r['redis_round_trips']:21.3f} "
            f"{r['redis_commands']:12.2f} {r['redis_cpu_us']:16.0f} {r['non_2xx']:7}"
        )
