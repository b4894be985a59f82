"""What metrics cost a POST /plants, in CPU instructions counted by callgrind.

Runs itself under `valgrind --tool=callgrind` for N and 2N creates through the test client, with
metrics as under gunicorn (multiprocess files) and with their request hooks removed; the
difference of each pair is the cost of N requests, start-up excluded.
Usage: python bench/metrics_cost.py [N]  (needs valgrind; N defaults to 200)
"""

import os
import re
import subprocess
import sys
import tempfile

TOKEN = "bench-token-0123456789abcdefghijklmn"


def run_requests(count, metrics_on):
    """Create count plants in this process (the part callgrind measures)."""
    from app import create_app
    from app.db import init_db

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE_URL": f"sqlite:///{folder}/bench.sqlite", "API_TOKENS": TOKEN})
        init_db(app.extensions["plantstore.db"])
        if not metrics_on:
            metrics = app.extensions["plantstore.metrics"]
            app.before_request_funcs[None].remove(metrics.start_clock)
            app.after_request_funcs[None].remove(metrics.count)
            metrics.plants_created.inc = lambda: None
        client = app.test_client()
        headers = {"Authorization": f"Bearer {TOKEN}"}
        for number in range(count):
            client.post("/plants", json={"id": number, "name": "Fern"}, headers=headers)


def instructions(count, metrics_on):
    """Instructions callgrind counts for a whole run of count requests."""
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "callgrind.out")
        # A fixed hash seed, so that both runs of a pair execute alike.
        env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": folder, "PYTHONHASHSEED": "0"}
        mode = "on" if metrics_on else "off"
        subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                __file__,
                "--run",
                str(count),
                mode,
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        with open(out) as results:
            return int(re.search(r"^totals: (\d+)", results.read(), re.M).group(1))


def main():
    """Print instructions per request with and without metrics, and the difference."""
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    per_request = {}
    for metrics_on in (True, False):
        once, twice = instructions(count, metrics_on), instructions(2 * count, metrics_on)
        per_request[metrics_on] = (twice - once) / count
    on, off = per_request[True], per_request[False]
    print(f"instructions per POST: {off:,.0f} without metrics, {on:,.0f} with")
    print(f"metrics: {on - off:,.0f} instructions, {100 * (on - off) / on:.1f}% of a request")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--run"]:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        run_requests(int(sys.argv[2]), sys.argv[3] == "on")
    else:
        main()
