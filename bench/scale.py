"""`make bench-scale`: what each scrape, feed page and worker round costs at a thousand rows and
at a million (issue 60), and with one webhook endpoint or a thousand.

At each size the store is filled by direct SQL in the service's schema (bench/scale_fill.py),
then each operation runs through the service's own code (bench/scale_service.py): GET /metrics,
`webhooks status`, a feed page of a rare type, the worker's retention pass, and a worker round
idle and fanning out one event, with one endpoint and with many. On SQLite the figure is the
operation's instructions under callgrind (bench/scale_callgrind.py); on PostgreSQL, the shared
buffers its statements touched, and their time (bench/scale_postgres.py). The table gives each
size side by side, and each larger size's ratio to the smallest; the target (each within 2x,
many endpoints within 2x of one) is not judged here.

Settings (environment): BENCH_SCALE_SIZES, rows of each kind on SQLite, comma-separated
(1000,1000000); BENCH_SCALE_POSTGRES_SIZES, on PostgreSQL (1000,1000000; add 10000000 for the
issue's largest); BENCH_SCALE_ENDPOINTS, the many endpoints (1000); BENCH_SCALE_REPEATS, runs
of each operation on PostgreSQL (5); BENCH_SCALE_BACKENDS (sqlite,postgresql).
"""

import os
import pathlib
import shutil
import tempfile

from bench import scale_callgrind
from bench.scale_callgrind import label
from bench.scale_service import ROUNDS, ROWS


def _numbers(variable, default):
    return [int(each) for each in os.environ.get(variable, default).split(",") if each]


SIZES = _numbers("BENCH_SCALE_SIZES", "1000,1000000")
POSTGRES_SIZES = _numbers("BENCH_SCALE_POSTGRES_SIZES", "1000,1000000")
ENDPOINTS = int(os.environ.get("BENCH_SCALE_ENDPOINTS", "1000"))
BACKENDS = os.environ.get("BENCH_SCALE_BACKENDS", "sqlite,postgresql").split(",")


def rows():
    """The table's rows: every operation, the rounds with one endpoint and with ENDPOINTS."""
    rounds = [label(name, count) for count in (1, ENDPOINTS) for name in ROUNDS]
    return [*ROWS, *rounds]


def report(title, unit, results, ms=False):
    """Print one backend's table: results is {size: (fill seconds, {row: figure})}, a figure
    being a count, or (count, milliseconds) when ms."""
    sizes = sorted(results)
    print(f"\n{title}: {unit} per operation")
    fills = "; ".join(f"{size:,} rows {results[size][0]:.1f} s" for size in sizes)
    print(f"fill (plants, events and deliveries, each): {fills}")
    header = "".join(f"{f'{size:,}':>15}" + (" " * 10 if ms else "") for size in sizes)
    ratios = "".join(f"{f'x{size // sizes[0]:,}':>10}" for size in sizes[1:])
    print(f"{'operation':46}{header}{ratios}")
    for row in rows():
        figures = [results[size][1][row] for size in sizes]
        counts = [figure[0] if ms else figure for figure in figures]
        cells = "".join(
            f"{count:15,.0f}" + (f"{figure[1]:8.2f}ms" if ms else "")
            for count, figure in zip(counts, figures, strict=True)
        )
        ratio = "".join(f"{count / max(counts[0], 1):10.2f}" for count in counts[1:])
        print(f"{row:46}{cells}{ratio}")
    for name in ROUNDS:
        many, one = label(name, ENDPOINTS), label(name, 1)
        each = ", ".join(
            f"{_count(results[size][1][many], ms) / _count(results[size][1][one], ms):.2f} "
            f"at {size:,} rows"
            for size in sizes
        )
        print(f"{name}, {ENDPOINTS} endpoints against 1: {each}")


def _count(figure, ms):
    return max(figure[0] if ms else figure, 1)


def sqlite():
    """Every size's instructions on SQLite, each store a file in a folder of its own."""
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is missing: install it with `apt-get install valgrind`.")
    folder = pathlib.Path(tempfile.mkdtemp(prefix="plantstore-scale-"))
    try:
        results = {n: scale_callgrind.measure(folder, n, ENDPOINTS) for n in SIZES}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report("SQLite", "callgrind instructions", results)


def postgresql():
    """Every size's shared buffers and time on the bench's own PostgreSQL server."""
    from bench import scale_postgres  # it needs tests/ on the path, and PostgreSQL

    why = scale_postgres.missing()
    if why:
        print(f"\nPostgreSQL: not measured: {why}")
        return
    server = scale_postgres.Server()
    try:
        results = {n: scale_postgres.measure(server, n, ENDPOINTS) for n in POSTGRES_SIZES}
    finally:
        server.close()
    report("PostgreSQL", "shared buffers (hit + read), and execution time,", results, ms=True)


def main():
    """Measure each backend asked for, and print its table."""
    for backend in BACKENDS:
        {"sqlite": sqlite, "postgresql": postgresql}[backend]()


if __name__ == "__main__":
    main()
