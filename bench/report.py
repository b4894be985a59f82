"""The targets of issues 11 and 27, and the tables `make bench` prints from its runs (medians)."""

import statistics

# Throughput against the floor, at the connection counts it is required at.
RATIO_TARGETS = {"POST fresh ids": 0.70, "GET /plants/{id}": 0.75, "GET /plants?limit=100": 0.60}
# PostgreSQL's round trips on the same cores cost a create more; reads keep their targets.
POSTGRES_RATIO_TARGETS = {**RATIO_TARGETS, "POST fresh ids": 0.50}
RATIO_CONNECTIONS = (8, 64)
P99_LIMIT = 3.0
SHARE_LIMIT = 0.60
LOAD_LIMIT = 0.90
RSS_LIMIT_MIB = 80
# Issue 27: a page filtered by a rare tag costs at most this many times an unfiltered page.
FILTERED, UNFILTERED = "GET /plants?tag=rare", "GET /plants?limit=100"
FILTER_LIMIT = 1.5


def mark(met):
    """The word a table shows for a target."""
    return "met" if met else "MISSED"


def _side(results):
    """Medians of one side's rounds; errors are summed, since one is already too many."""
    return {
        "rps": statistics.median(r["rps"] for r in results),
        "p50_ms": statistics.median(r["p50_ms"] for r in results),
        "p99_ms": statistics.median(r["p99_ms"] for r in results),
        "cpu_us": statistics.median(r["cpu_us"] for r in results),
        "max_share": statistics.median(r["max_share"] for r in results),
        "non_2xx": sum(r["non_2xx"] for r in results),
        "socket_errors": sum(r["socket_errors"] for r in results),
    }


def summarise(runs, cases, postgres):
    """One row per case: both sides' medians, the ratios, and each target met or not."""
    targets = POSTGRES_RATIO_TARGETS if postgres else RATIO_TARGETS
    rows = []
    for scenario, via, connections in cases:
        service = _side(runs["service", scenario, via, connections])
        floor = _side(runs["floor", scenario, via, connections])
        row = {
            "scenario": scenario,
            "via": via,
            "connections": connections,
            "service": service,
            "floor": floor,
            "ratio": service["rps"] / floor["rps"],
            "p99_ratio": service["p99_ms"] / floor["p99_ms"],
            "checks": {
                "p99": service["p99_ms"] <= P99_LIMIT * floor["p99_ms"],
                "share": service["max_share"] <= SHARE_LIMIT,
            },
        }
        if scenario in targets and connections in RATIO_CONNECTIONS:
            row["target"] = targets[scenario]
            row["checks"]["ratio"] = row["ratio"] >= targets[scenario]
        rows.append(row)
    return rows


def load_rows(rows, high):
    """Throughput at high connections against 8, for each case measured at high."""
    by_case = {(r["scenario"], r["via"], r["connections"]): r for r in rows}
    result = []
    for scenario, via, connections in by_case:
        if connections != high:
            continue
        low = by_case[scenario, via, 8]["service"]["rps"]
        rps_high = by_case[scenario, via, high]["service"]["rps"]
        result.append(
            {
                "scenario": scenario,
                "via": via,
                "rps_8": low,
                "rps_high": rps_high,
                "ratio": rps_high / low,
                "met": rps_high / low >= LOAD_LIMIT,
            }
        )
    return result


def filter_rows(rows):
    """The service's page filtered by a rare tag against its unfiltered page, per way in and
    connections: the time per request (the inverse of throughput) and the CPU per request."""
    by_case = {(r["scenario"], r["via"], r["connections"]): r["service"] for r in rows}
    result = []
    for (scenario, via, connections), filtered in by_case.items():
        if scenario != FILTERED:
            continue
        plain = by_case[UNFILTERED, via, connections]
        ratio = plain["rps"] / filtered["rps"]
        result.append(
            {
                "via": via,
                "connections": connections,
                "rps_unfiltered": plain["rps"],
                "rps_filtered": filtered["rps"],
                "ratio": ratio,
                "cpu_ratio": filtered["cpu_us"] / plain["cpu_us"],
                "met": ratio <= FILTER_LIMIT,
            }
        )
    return result


def _throughput(rows):
    print(
        f"{'scenario':22} {'via':6} {'conns':>5} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} "
        f"{'floor/s':>7} {'fl p99':>7} {'ratio':>5} {'target':>12} "
        f"{f'p99/floor, <={P99_LIMIT:g}':>17}"
    )
    for r in rows:
        service, floor = r["service"], r["floor"]
        target = f">={r['target']:.2f} {mark(r['checks']['ratio'])}" if "target" in r else ""
        print(
            f"{r['scenario']:22} {r['via']:6} {r['connections']:5} {service['rps']:7.0f} "
            f"{service['p50_ms']:7.2f} {service['p99_ms']:7.2f} {floor['rps']:7.0f} "
            f"{floor['p99_ms']:7.2f} {r['ratio']:5.2f} {target:>12} "
            f"{r['p99_ratio']:10.2f} {mark(r['checks']['p99']):>6}"
        )


def _cost(rows):
    print(
        f"{'scenario':22} {'via':6} {'conns':>5} {'CPU µs/req':>10} {'floor':>6} "
        f"{f'max worker share, <={SHARE_LIMIT:.0%}':>25} {'floor':>6} "
        f"{'non-2xx':>8} {'floor':>6} {'socket errors':>14} {'floor':>6}"
    )
    for r in rows:
        service, floor = r["service"], r["floor"]
        print(
            f"{r['scenario']:22} {r['via']:6} {r['connections']:5} {service['cpu_us']:10.0f} "
            f"{floor['cpu_us']:6.0f} {service['max_share']:18.0%} {mark(r['checks']['share']):>6} "
            f"{floor['max_share']:6.0%} {service['non_2xx']:8} {floor['non_2xx']:6} "
            f"{service['socket_errors']:14} {floor['socket_errors']:6}"
        )


def _load(load, high):
    print(
        f"{'scenario':22} {'via':6} {'req/s at 8':>10} {f'at {high}':>7} "
        f"{f'ratio, >={LOAD_LIMIT:.2f}':>18}"
    )
    for r in load:
        print(
            f"{r['scenario']:22} {r['via']:6} {r['rps_8']:10.0f} {r['rps_high']:7.0f} "
            f"{r['ratio']:11.2f} {mark(r['met']):>6}"
        )


def _filter(filtered):
    print(
        f"{'page of 100':22} {'via':6} {'conns':>5} {'unfiltered/s':>12} {'rare tag/s':>10} "
        f"{f'time ratio, <={FILTER_LIMIT:g}':>18} {'CPU ratio':>9}"
    )
    for r in filtered:
        print(
            f"{'filtered by a rare tag':22} {r['via']:6} {r['connections']:5} "
            f"{r['rps_unfiltered']:12.0f} {r['rps_filtered']:10.0f} {r['ratio']:11.2f} "
            f"{mark(r['met']):>6} {r['cpu_ratio']:9.2f}"
        )


def print_tables(header, rows, load, filtered, high, rss):
    """Throughput and latency; cost, balance and errors; throughput under load; the filtered
    page; memory; a tally."""
    print(f"\n{header}\n")
    _throughput(rows)
    print()
    _cost(rows)
    print()
    _load(load, high)
    print()
    _filter(filtered)
    rss_met = rss["service"] < RSS_LIMIT_MIB
    print(
        f"\npeak RSS per worker: {rss['service']:.1f} MiB, <{RSS_LIMIT_MIB} {mark(rss_met)} "
        f"(floor {rss['floor']:.1f} MiB)"
    )
    checks = [met for r in rows for met in r["checks"].values()]
    checks += [r["met"] for r in load] + [r["met"] for r in filtered]
    checks.append(rss_met)
    print(f"targets: {sum(checks)} met, {len(checks) - sum(checks)} MISSED")
