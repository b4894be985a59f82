"""`make chaos SEED=n DURATION=s`: start the topology, run the load and the nemesis for
DURATION seconds, heal, let the deliveries drain, and check the history; exit 1 on a finding."""

import argparse
import signal
import sys
import tempfile
import time
from pathlib import Path

from app.webhooks.worker.ledger import LEASE_MARGIN
from harness.chaos import checker
from harness.chaos.load import Load
from harness.chaos.nemesis import Nemesis
from harness.chaos.topology import DATABASE_TIMEOUT, ENDPOINTS, SETTINGS, Topology
from harness.processes import wait_for
from support.local_servers import postgres_bin_dir
from support.poolers import pgbouncer

# Seconds the deliveries may take to drain once every fault is healed.
DRAIN = 60
# A claim's lease, as the worker sets it from the run's settings (Ledger.lease).
LEASE = 2 * SETTINGS["WEBHOOK_TIMEOUT"] + DATABASE_TIMEOUT + LEASE_MARGIN


def history_of(topology, load, nemesis):
    """What the checker reads, from what the run kept."""
    return {
        "ops": list(load.ops),
        "feeds": {name: [list(r) for r in readings] for name, readings in load.feeds.items()},
        "arrivals": {name: list(r.arrivals) for name, r in topology.receivers.items()},
        "endpoints": {name: fields["events"] for name, fields in ENDPOINTS.items()},
        "rates": {n: f["throttle_rate"] for n, f in ENDPOINTS.items() if "throttle_rate" in f},
        "faults": list(nemesis.faults),
        "timeout": DATABASE_TIMEOUT,
        "lease": LEASE,
    }


def check(history):
    """Every finding of every invariant, in time order (those without a time first)."""
    ops, feeds, arrivals = history["ops"], history["feeds"], history["arrivals"]
    events = last_reading(feeds)
    findings = checker.refusal_findings(ops, history["faults"])
    for follower, readings in feeds.items():
        findings += checker.follower_findings(ops, readings, follower, history["faults"])
    findings += checker.delivery_findings(events, history["endpoints"], arrivals)
    findings += checker.overlap_findings(
        arrivals, list(lapses(history["faults"], history["lease"]))
    )
    findings += checker.rate_findings(arrivals, history["rates"])
    findings += checker.error_findings(ops, history["faults"], history["timeout"])
    freezes = [
        (fault["start"], fault["healed"], fault["target"])
        for fault in history["faults"]
        if fault["kind"] == "freeze"
    ]
    waits = checker.waits(ops, events, history["endpoints"], arrivals)
    findings += checker.stall_findings(freezes, waits, arrivals, history["timeout"])
    return sorted(findings, key=lambda finding: finding[0] or 0)


def lapses(faults, lease):
    """The windows, a lease long, after each step forward of the database's clock longer than a
    lease: when a fault stepped it forward, or its heal did."""
    for fault in faults:
        if fault["kind"] == "postgres-clock" and abs(fault["step"]) > lease:
            at = fault["start"] if fault["step"] > 0 else fault["healed"]
            yield at, at + lease


def last_reading(feeds):
    """The longest of the followers' last readings: the events of the primary that the run
    ended on (those lost with a primary are in no last reading)."""
    return max((readings[-1] for readings in feeds.values()), key=len)


def drained(topology, load):
    """Whether every event a follower saw in its last reading reached every endpoint
    subscribed to it."""
    arrivals = {name: list(r.arrivals) for name, r in topology.receivers.items()}
    events = last_reading(load.feeds)
    endpoints = {name: fields["events"] for name, fields in ENDPOINTS.items()}
    return not checker.delivery_findings(events, endpoints, arrivals)


def run(seed, duration, folder, say=print):
    """One run; its history."""
    say(f"seed {seed}, {duration} s of faults, in {folder}")
    topology = Topology(folder, postgres_bin_dir(), pgbouncer())
    try:
        topology.start()
        load = Load(topology.hosts, seed)
        load.start()
        nemesis = Nemesis(topology, seed, say)
        nemesis.run(duration)
        load.stop_changes()
        say(f"{time.time():.3f} load stopped; draining")
        try:
            wait_for(lambda: drained(topology, load), DRAIN, "the deliveries to drain")
        except AssertionError as error:
            say(str(error))
        load.stop_following()
        return history_of(topology, load, nemesis)
    finally:
        topology.close()


def report(seed, history, say=print):
    """Print the checker's figures and findings; the findings."""
    findings = check(history)
    ops = history["ops"]
    done = len(checker.acknowledged(ops))
    lost = checker.lost_windows(history["faults"])
    exempt = sum(checker.may_be_lost(op, lost) for op in checker.acknowledged(ops))
    say(f"requests {len(ops)}, acknowledged changes {done} ({exempt} a failover may lose)")
    say(f"faults {len(history['faults'])}")
    for name, readings in history["feeds"].items():
        say(f"follower {name}: {len(readings[-1])} events in the last of {len(readings)} readings")
    for name, arrivals in history["arrivals"].items():
        say(f"receiver {name}: {len(arrivals)} attempts")
    for at, finding in findings:
        say(f"seed {seed} at {at or 0:.3f}: VIOLATION {finding}")
    say(f"seed {seed}: {len(findings)} findings")
    return findings


def main(argv=None):
    """Parse SEED and DURATION, run, report; 1 when the checker found a violation."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--duration", type=float, default=60)
    args = parser.parse_args(argv)
    # A stopped run (make's SIGTERM) still stops every process it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    with tempfile.TemporaryDirectory(prefix="plantstore-chaos-") as folder:
        history = run(args.seed, args.duration, Path(folder))
    return 1 if report(args.seed, history) else 0


if __name__ == "__main__":
    sys.exit(main())
