"""The fault schedule's checker fails on a history that breaks each invariant, and a bounded
run of the schedule (a fixed seed, about a minute of faults) finds nothing."""

import pytest

from harness.chaos import checker, run
from support.local_servers import postgres_binaries_or_skip
from support.poolers import pgbouncer_or_skip

TIMEOUT = 2
# The bounded run's seed and seconds of faults (docs/durability.md, "The fault schedule").
SEED, DURATION = 14, 60


def op(kind, plant, start, end, status=200, name=None):
    """One request of the load, as Load keeps it."""
    return {
        "kind": kind,
        "host": "a",
        "plant": plant,
        "name": name,
        "start": start,
        "end": end,
        "status": status,
    }


def event(event_id, kind, plant, name=None):
    """One Event of the feed for the change of kind to plant."""
    data = {"id": plant, "name": name if kind != "delete" else "gone"}
    return {"id": event_id, "type": checker.TYPES[kind], "created_at": "", "data": data}


def arrival(webhook_id, arrived, answered, event_id="e1", status=200):
    """One request a receiver got."""
    return {
        "webhook_id": webhook_id,
        "event_id": event_id,
        "arrived": arrived,
        "answered": answered,
        "status": status,
    }


OPS = [op("create", 1, 0, 1, name="Fern"), op("create", 2, 2, 3, name="Mint")]
FEED = [event("e1", "create", 1, "Fern"), event("e2", "create", 2, "Mint")]


def test_the_feed_holding_every_acknowledged_change_once_in_order_is_no_finding():
    unanswered = [op("read", 1, 1, 2, status=None), op("patch", 1, 1, 2, status=503)]
    assert checker.feed_findings([*OPS, *unanswered], FEED, "a") == []


def test_a_missing_event_is_a_finding():
    [(_, finding)] = checker.feed_findings(OPS, FEED[:1], "a")
    assert "plant 2" in finding and "0 times" in finding


def test_an_event_shown_twice_is_a_finding():
    findings = checker.feed_findings(OPS, [*FEED, FEED[1]], "a")
    assert any("event e2 2 times" in finding for _, finding in findings)


def test_a_change_shown_before_one_that_ended_before_it_began_is_a_finding():
    [(_, finding)] = checker.feed_findings(OPS, FEED[::-1], "a")
    assert "create of plant 2 before create of plant 1" in finding


# A failover whose replica was cut off at 10 and whose primary was lost at 12, promoted at 13.
FAILOVER = {"kind": "failover", "start": 9, "cut": 10, "crashed": 12, "promoted": 13, "healed": 20}


def test_a_change_acknowledged_between_the_cut_and_the_loss_of_the_primary_may_be_lost():
    lost = op("create", 3, 10.5, 11, name="Sage")
    assert checker.follower_findings([*OPS, lost], [FEED], "a", [FAILOVER]) == []


def test_a_change_acknowledged_after_the_promotion_and_missing_is_a_finding():
    begun_after = op("create", 3, 14, 14.5, name="Sage")
    begun_before = op("create", 4, 11.5, 13.5, name="Dill")
    findings = checker.follower_findings([*OPS, begun_after, begun_before], [FEED], "a", [FAILOVER])
    assert [at for at, finding in findings if "0 times" in finding] == [13.5, 14.5]


def test_a_follower_that_read_again_after_a_410_is_judged_by_its_last_reading():
    kept = op("create", 3, 14, 14.5, name="Sage")
    readings = [FEED[:1], [*FEED, event("e3", "create", 3, "Sage")]]
    assert checker.follower_findings([*OPS, kept], readings, "a", [FAILOVER]) == []
    findings = checker.follower_findings([*OPS, kept], readings[::-1], "a", [FAILOVER])
    assert [at for at, finding in findings if "0 times" in finding] == [3, 14.5]


def test_a_page_refused_with_400_or_with_410_before_any_failover_is_a_finding():
    refused = [op("follow", None, 12.5, 12.6, status=410), op("follow", None, 14, 14.1, 400)]
    assert checker.refusal_findings(refused[:1], [FAILOVER]) == []
    findings = checker.refusal_findings(refused, [{**FAILOVER, "crashed": 13}])
    assert [at for at, _ in findings] == [12.5, 14]


def test_an_event_never_delivered_to_a_subscribed_endpoint_is_a_finding():
    arrivals = {"every": [arrival("w1", 1, 1.1, "e1")], "none": []}
    endpoints = {"every": ["plant.created"], "none": ["plant.deleted"]}
    [(_, finding)] = checker.delivery_findings(FEED, endpoints, arrivals)
    assert finding.startswith("every never got 1 events") and "e2" in finding


def test_a_webhook_id_in_flight_twice_at_once_is_a_finding():
    apart = {"r": [arrival("w1", 1, 2), arrival("w1", 2.5, 3)]}
    assert checker.overlap_findings(apart) == []
    overlapping = {"r": [arrival("w1", 1, 2), arrival("w1", 1.5, 3)]}
    assert checker.overlap_findings(overlapping) == [(1.5, "r had w1 in flight twice")]


def test_in_flight_twice_after_the_database_clock_stepped_past_a_lease_is_no_finding():
    step = {"kind": "postgres-clock", "step": 20.0, "start": 1.0, "healed": 8.0}
    small = {**step, "step": 5.0}
    overlapping = {"r": [arrival("w1", 1, 2), arrival("w1", 1.5, 3)]}
    assert checker.overlap_findings(overlapping, list(run.lapses([step], 9))) == []
    later = {"r": [arrival("w1", 11, 12), arrival("w1", 11.5, 13)]}
    assert checker.overlap_findings(later, list(run.lapses([step], 9))) != []
    assert checker.overlap_findings(overlapping, list(run.lapses([small], 9))) != []


def test_rate_plus_two_attempts_in_a_second_is_a_finding():
    at_rate = {"r": [arrival(f"w{n}", 10 + n / 4, 10 + n / 4) for n in range(2)]}
    assert checker.rate_findings(at_rate, {"r": 1}) == []
    over = {"r": [arrival(f"w{n}", 10 + n / 4, 10 + n / 4) for n in range(3)]}
    assert checker.rate_findings(over, {"r": 1}) == [(10, "r got 3 attempts in a second (rate 1)")]


def test_a_5xx_outside_every_fault_s_window_is_a_finding():
    faults = [{"start": 10, "healed": 15}]
    inside = [op("create", 1, 18, 18.5, status=503), op("create", 2, 9, 10.5, status=None)]
    assert checker.error_findings(inside, faults, TIMEOUT) == []
    outside = [op("create", 3, 20, 20.5, status=503)]
    assert checker.error_findings(outside, faults, TIMEOUT) == [(20, "create of plant 3 on a: 503")]


def test_a_receiver_waiting_with_nothing_delivered_while_a_process_is_frozen_is_a_finding():
    freezes = [(100, 120, "worker of host a")]
    waiting = {"r": [(99, 118)]}
    steady = {"r": [arrival("w", at, at) for at in range(100, 120, 3)]}
    assert checker.stall_findings(freezes, waiting, steady, TIMEOUT) == []
    stalled = {"r": [arrival("w", 101, 101), arrival("w", 118, 118)]}
    [(at, finding)] = checker.stall_findings(freezes, waiting, stalled, TIMEOUT)
    assert at == 101 and "got nothing for 17.0 s while worker of host a was frozen" in finding


@pytest.mark.e2e
def test_a_bounded_fault_schedule_breaks_no_invariant(tmp_path):
    postgres_binaries_or_skip("runs the fault schedule on PostgreSQL")
    pgbouncer_or_skip("runs the fault schedule through PgBouncer")
    said = []
    history = run.run(SEED, DURATION, tmp_path, said.append)
    findings = run.report(SEED, history, said.append)
    assert findings == [], "\n".join(said)
