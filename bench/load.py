"""wrk, the load of `make bench`: one Lua script per scenario, one JSON line back per run; and
creates at a steady pace, for delays measured one create at a time."""

import http.client
import json
import shutil
import subprocess
import tempfile
import time

# Scenario name: Lua that makes its requests. {first_id} and {plants} are filled in per run.
SCENARIOS = {
    # Every run starts its own range of ids, so each POST stores a new plant.
    "POST fresh ids": """
local next_id = {first_id}
wrk.headers["Content-Type"] = "application/json"
request = function()
  next_id = next_id + 1
  return wrk.format("POST", "/plants", nil,
    string.format('{{"id": %d, "name": "Monstera", "tag": "tropical"}}', next_id))
end
""",
    # The preloaded plant 1 with its own content: an idempotent replay, answered 200.
    "POST replay": """
wrk.method = "POST"
wrk.path = "/plants"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{{"id": 1, "name": "plant 1", "tag": "bench"}}'
""",
    "GET /plants?limit=100": """
wrk.path = "/plants?limit=100"
""",
    # A page of 100 of the rare tag, the same size as the unfiltered page: run.py tags few plants.
    "GET /plants?tag=rare": """
wrk.path = "/plants?tag=rare&limit=100"
""",
    "GET /plants/{id}": """
request = function()
  return wrk.format("GET", "/plants/" .. math.random(1, {plants}))
end
""",
}

# Counts what the summary leaves out (answers outside 2xx), and prints one JSON line.
COMMON = """
wrk.headers["Authorization"] = "Bearer {token}"
non_2xx = 0
response = function(status, headers, body)
  if status < 200 or status > 299 then non_2xx = non_2xx + 1 end
end
local threads = {{}}
setup = function(thread) table.insert(threads, thread) end
done = function(summary, latency, requests)
  local non_2xx = 0
  for _, thread in ipairs(threads) do non_2xx = non_2xx + thread:get("non_2xx") end
  local errors = summary.errors
  io.write(string.format(
    '{{"requests": %d, "seconds": %f, "p50_ms": %f, "p99_ms": %f, "non_2xx": %d, '
      .. '"socket_errors": %d}}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000,
    latency:percentile(99) / 1000, non_2xx,
    errors.connect + errors.read + errors.write + errors.timeout))
end
"""


def installed():
    """Whether wrk is on PATH."""
    return shutil.which("wrk") is not None


def run(port, scenario, connections, seconds, **params):
    """Drive scenario on port with that many kept-alive connections for seconds; return
    requests, requests/s, p50 and p99 in ms, non-2xx answers and socket errors."""
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        script.write(COMMON.format(**params) + SCENARIOS[scenario].format(**params))
        script.flush()
        output = subprocess.run(
            # One thread: on a small machine every core wrk takes is one the server loses.
            # wrk keeps its connections alive, as browsers, clients and nginx's pool do.
            # Past wrk's 2 s default, a slow answer would count as an error, not in the p99.
            [
                "wrk",
                "-t1",
                f"-c{connections}",
                f"-d{seconds}s",
                "--timeout",
                "10s",
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


def paced_creates(port, token, count, rate):
    """Create count plants at rate per second on one kept-alive connection; {id: answered at}."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
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
