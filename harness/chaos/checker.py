"""The run's invariants, as pure functions of its history: what the clients were answered,
what the feed's followers were shown, what reached each receiver, and the faults' windows.

Each check returns findings, (time, what was wrong); times are seconds of CLOCK_REALTIME.
"""

import bisect
import collections
import itertools

from harness.stamping import most_within_a_second

# Seconds a busy machine may add to a wait the database timeout bounds.
MARGIN = 2
ACKNOWLEDGED = {"create": 200, "patch": 200, "delete": 204}
TYPES = {"create": "plant.created", "patch": "plant.updated", "delete": "plant.deleted"}


def change_key(kind, plant, name):
    """What names one change in the feed: its type, the plant, and the name it stored (a
    delete's is None)."""
    return TYPES[kind], plant, name if kind != "delete" else None


def event_key(event):
    """change_key of the change an Event of the feed announces."""
    kind = {value: key for key, value in TYPES.items()}[event["type"]]
    return change_key(kind, event["data"]["id"], event["data"].get("name"))


def acknowledged(ops):
    """The ops whose change was acknowledged (200 to a create or a PATCH, 204 to a delete)."""
    return [
        op for op in ops if op["kind"] in ACKNOWLEDGED and op["status"] == ACKNOWLEDGED[op["kind"]]
    ]


def lost_windows(faults):
    """Each failover's (cut, crashed, promoted): a change acknowledged after the replica was cut
    off and before the promotion, by a request begun before the primary was lost, may be lost."""
    return [(f["cut"], f["crashed"], f["promoted"]) for f in faults if f["kind"] == "failover"]


def may_be_lost(op, lost):
    """Whether op's change may be lost to a failover of lost (lost_windows)."""
    return any(cut <= op["end"] <= up and op["start"] <= down for cut, down, up in lost)


def follower_findings(ops, readings, follower, faults):
    """Invariant (a) for one follower's readings of the feed (a new one begun on each 410):
    each is shown no event twice, in order, and the last holds every acknowledged change that
    no failover may have lost, exactly once."""
    findings = []
    for reading in readings[:-1]:
        place = _places(reading)
        findings += _twice_findings(reading, follower)
        findings += _order_findings(_done(ops), place, follower)
    return findings + feed_findings(ops, readings[-1], follower, lost_windows(faults))


def feed_findings(ops, feed, follower, lost=()):
    """Invariant (a) for one reading of the feed: no event shown twice, every acknowledged
    change shown exactly once (or not at all if it may be lost: lost_windows), and one
    acknowledged before another began shown first."""
    findings, place, done = _twice_findings(feed, follower), _places(feed), _done(ops)
    for op in done:
        shown = place.get(change_key(*_named(op)), [])
        if len(shown) > 1 or (not shown and not may_be_lost(op, lost)):
            what = f"{op['kind']} of plant {op['plant']} ({op['name']})"
            findings.append((op["end"], f"follower {follower} saw {what} {len(shown)} times"))
    return findings + _order_findings(done, place, follower)


def _done(ops):
    return sorted(acknowledged(ops), key=lambda op: op["end"])


def _places(feed):
    place = {}
    for position, event in enumerate(feed):
        place.setdefault(event_key(event), []).append(position)
    return place


def _twice_findings(feed, follower):
    counts = collections.Counter(event["id"] for event in feed)
    return [
        (None, f"follower {follower} was shown event {event_id} {count} times")
        for event_id, count in counts.items()
        if count > 1
    ]


def _order_findings(done, place, follower):
    # Sorted by end: an op's position must pass the greatest of those that ended before it began.
    findings, ended, latest = [], 0, (-1, None)
    by_start = sorted(done, key=lambda op: op["start"])
    for op in by_start:
        while ended < len(done) and done[ended]["end"] < op["start"]:
            shown = place.get(change_key(*_named(done[ended])), [None])[0]
            if shown is not None and shown > latest[0]:
                latest = (shown, done[ended])
            ended += 1
        shown = place.get(change_key(*_named(op)), [None])[0]
        if shown is not None and shown < latest[0]:
            before = latest[1]
            findings.append(
                (
                    op["start"],
                    f"follower {follower} saw {op['kind']} of plant {op['plant']} before "
                    f"{before['kind']} of plant {before['plant']}, which ended before it began",
                )
            )
    return findings


def _named(op):
    return op["kind"], op["plant"], op["name"]


def delivery_findings(events, endpoints, arrivals):
    """Invariant (b): every event of the feed reached each endpoint subscribed to its type.
    endpoints: {receiver: its subscribed types}; arrivals: {receiver: [record]}."""
    findings = []
    for receiver, types in endpoints.items():
        got = {record["event_id"] for record in arrivals[receiver] if record["status"] == 200}
        missing = [event["id"] for event in events if event["type"] in types]
        missing = [event_id for event_id in missing if event_id not in got]
        if missing:
            findings.append((None, f"{receiver} never got {len(missing)} events: {missing[:5]}"))
    return findings


def overlap_findings(arrivals, lapses=()):
    """Invariant (c): no webhook-id in flight twice at once at a receiver, but within lapses
    ((start, end) pairs): a step forward of the database's clock beyond a claim's lease ends
    the leases in flight, which the contract allows (docs/webhooks.md)."""
    findings = []
    for receiver, records in arrivals.items():
        by_id = collections.defaultdict(list)
        for record in records:
            by_id[record["webhook_id"]].append(record)
        for webhook_id, same in by_id.items():
            same.sort(key=lambda record: record["arrived"])
            for first, second in itertools.pairwise(same):
                lapsed = any(start <= second["arrived"] <= end for start, end in lapses)
                if lapsed:
                    continue
                if first["answered"] is None or second["arrived"] < first["answered"]:
                    findings.append(
                        (second["arrived"], f"{receiver} had {webhook_id} in flight twice")
                    )
    return findings


def rate_findings(arrivals, rates):
    """Invariant (d): a throttled receiver got at most its rate + 1 attempts in any second.
    rates: {receiver: throttle_rate}."""
    findings = []
    for receiver, rate in rates.items():
        times = sorted(record["arrived"] for record in arrivals[receiver])
        most = most_within_a_second(times)
        if most > rate + 1:
            first = next(
                at
                for index, at in enumerate(times)
                if bisect.bisect_left(times, at + 1) - index > rate + 1
            )
            findings.append((first, f"{receiver} got {most} attempts in a second (rate {rate})"))
    return findings


def windows(faults, timeout):
    """Each fault's window: from its start to its heal, plus the database timeout, MARGIN, and
    the time it takes to settle (its "settle", if it has one)."""
    return [
        (fault["start"], fault["healed"] + timeout + MARGIN + fault.get("settle", 0))
        for fault in faults
    ]


def error_findings(ops, faults, timeout):
    """Invariant (e): no 5xx, nor a request left unanswered, outside every fault's window."""
    spans = windows(faults, timeout)
    return [
        (op["start"], f"{_described(op)}: {op['status']}")
        for op in ops
        if (op["status"] is None or op["status"] >= 500)
        and not any(start <= op["end"] and op["start"] <= end for start, end in spans)
    ]


def refusal_findings(ops, faults):
    """Invariant (g): a follower's page is refused with 4xx only as a 410, and only once a
    failover has lost the primary (its after may be an event the new primary never saw)."""
    crashes = [fault["crashed"] for fault in faults if fault["kind"] == "failover"]
    return [
        (op["start"], f"{_described(op)}: {op['status']}")
        for op in ops
        if op["kind"] == "follow"
        and op["status"] is not None
        and 400 <= op["status"] < 500
        and (op["status"] != 410 or not any(at <= op["end"] for at in crashes))
    ]


def _described(op):
    if op["kind"] == "follow":
        return f"the follower on {op['host']}, GET {op['name']}"
    return f"{op['kind']} of plant {op['plant']} on {op['host']}"


def stall_findings(freezes, waits, arrivals, timeout):
    """Invariant (f): while a process is frozen, every receiver with an event waiting gets
    something at least every timeout + MARGIN seconds. freezes: [(start, healed, what)];
    waits: {receiver: [(committed, first arrival or None)]} of the events it should get."""
    limit, findings = timeout + MARGIN, []
    for start, healed, what in freezes:
        for receiver, waiting in waits.items():
            times = sorted(record["arrived"] for record in arrivals[receiver])
            gap = _longest_wait(start, healed, waiting, times, limit)
            if gap is not None:
                message = f"{receiver} got nothing for {gap[1]:.1f} s while {what} was frozen"
                findings.append((gap[0], message))
    return findings


def _longest_wait(start, healed, waiting, times, limit):
    # The first stretch longer than limit in which an event waited and nothing arrived.
    for committed, arrived in waiting:
        since, until = max(committed, start), min(arrived or healed, healed)
        if until - since <= limit:
            continue
        inside = [since, *(at for at in times if since < at < until), until]
        for before, after in itertools.pairwise(inside):
            if after - before > limit:
                return before, after - before
    return None


def waits(ops, events, endpoints, arrivals):
    """For each receiver, (when it was acknowledged, when it first arrived or None) of each
    acknowledged change whose event its endpoint is subscribed to."""
    ended = {change_key(*_named(op)): op["end"] for op in acknowledged(ops)}
    found = {}
    for receiver, types in endpoints.items():
        first = {}
        for record in arrivals[receiver]:
            first.setdefault(record["event_id"], record["arrived"])
        found[receiver] = [
            (ended[event_key(event)], first.get(event["id"]))
            for event in events
            if event["type"] in types and event_key(event) in ended
        ]
    return found
