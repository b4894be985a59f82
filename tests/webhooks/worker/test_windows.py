"""The receivers' windows on their own (worker/windows.py), no database and no network: slow
start, the fall-back at a failure, what a window holds, sends and claims."""

import datetime
import time

from app import create_app
from app.webhooks import settings
from app.webhooks.tables.records import Delivery
from app.webhooks.worker.throttling import LATE_MOST
from app.webhooks.worker.windows import Windows

A, B = "http://a.example/hook", "http://b.example/hook"
# When every delivery's event was written: the windows never read it.
CREATED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)


def windows(**values):
    """Windows on the webhook settings values (WEBHOOK_* names) as the app checks them; no
    receiver configured, so that each test adds its own."""
    return Windows(settings.of(create_app({"TESTING": True, **values})))


def hold(ws, key, count, send_by=None):
    """Queue count new deliveries to key, to be sent within a minute (or by send_by)."""
    claimed = [Delivery(f"{key}#{n}", key, "plant.created", "{}", CREATED, 1) for n in range(count)]
    ws.hold(claimed, {key: count}, time.monotonic() + 60 if send_by is None else send_by)


def take(ws):
    """Every (window, delivery) that free slots can send now; none may have expired."""
    expired = []
    taken = list(ws.ready(expired))
    assert expired == []
    return taken


def round_trip(ws, answered=True):
    """Send what the windows let out now and end every attempt so; how many were sent."""
    taken = take(ws)
    for window, _ in taken:
        ws.done(window, answered)
    return len(taken)


def test_slow_start_doubles_the_window_each_round_trip_up_to_its_cap():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4, WEBHOOK_RECEIVER_CONCURRENCY_MAX=16)
    ws.add(A)
    hold(ws, A, 100)
    assert [round_trip(ws) for _ in range(4)] == [4, 8, 16, 16]
    assert ws.sizes() == {A: 16}


def test_a_window_without_a_backlog_does_not_open():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4)
    ws.add(A)
    hold(ws, A, 4)
    # Every answer came while nothing more was waiting: no reason to send more at once.
    assert round_trip(ws) == 4
    assert ws.sizes() == {A: 4}


def test_a_timeout_puts_the_window_back_to_its_floor_at_once():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4, WEBHOOK_RECEIVER_CONCURRENCY_MAX=64)
    ws.add(A)
    hold(ws, A, 200)
    assert [round_trip(ws) for _ in range(2)] == [4, 8]
    in_flight = take(ws)
    assert len(in_flight) == 16
    first, *others = in_flight
    ws.done(first[0], answered=False)  # the loop's answered is False for a timeout
    assert ws.sizes() == {A: 4}
    assert take(ws) == []  # 15 still in flight: none of the 4 slots is free
    for window, _ in others:
        ws.done(window, answered=False)
    assert round_trip(ws) == 4


def test_after_a_fall_back_the_window_opens_one_slot_a_round_trip_past_half_its_flight():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4, WEBHOOK_RECEIVER_CONCURRENCY_MAX=64)
    ws.add(A)
    hold(ws, A, 500)
    assert [round_trip(ws) for _ in range(2)] == [4, 8]
    (first, *others) = take(ws)
    ws.done(first[0], answered=False)  # 16 in flight: slow start ends at 8 from now on
    for window, _ in others:
        ws.done(window, answered=True)
    # 4 answers took it to 8, the other 11 a slot more; then one slot each round trip.
    assert ws.sizes() == {A: 9}
    assert [round_trip(ws) for _ in range(3)] == [9, 10, 11]


def test_each_window_and_the_worker_s_bound_limit_what_is_sent_at_once():
    ws = windows(WEBHOOK_CONCURRENCY=6, WEBHOOK_RECEIVER_CONCURRENCY=4)
    for key in (A, B):
        ws.add(key)
        hold(ws, key, 10)
    taken = [delivery.receiver for _, delivery in take(ws)]
    assert len(taken) == 6
    assert sorted(set(taken)) == [A, B]
    assert max(taken.count(A), taken.count(B)) == 4
    assert take(ws) == []  # the worker's 6 slots are all in flight


def test_a_delivery_past_its_time_to_be_sent_is_not_sent():
    ws = windows()
    ws.add(A)
    hold(ws, A, 2, send_by=time.monotonic() - 1)
    expired = []
    assert list(ws.ready(expired)) == []
    assert sorted(each.id for each in expired) == [f"{A}#0", f"{A}#1"]


def test_wants_asks_for_what_a_window_may_still_hold_of_the_receivers_sent_to():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4)
    for key in (A, B):
        ws.add(key)
    assert ws.wants({A: None, B: None}) == {A: 4, B: 4}
    hold(ws, A, 3)
    assert ws.wants({A: None}) == {A: 1}  # B is no longer sent to
    take(ws)
    assert ws.wants({A: None}) == {A: 1}  # in flight counts as held


def test_a_window_that_answers_claims_ahead_and_one_that_fails_holds_one_window():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4)
    ws.add(A)
    hold(ws, A, 4)
    round_trip(ws, answered=True)
    # Two windows at least; more at the rate of 4 answers within microseconds.
    assert ws.wants({A: None})[A] > 8
    hold(ws, A, 4)
    round_trip(ws, answered=False)
    assert ws.wants({A: None}) == {A: 4}  # however fast it answered before


def test_a_window_running_low_on_a_full_claim_asks_for_a_claim_at_once():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4)
    for key in (A, B):
        ws.add(key)
    # A got all it asked for (more may be due); B got less than it asked for.
    hold(ws, A, 5)
    claimed = [Delivery(f"{B}#{n}", B, "plant.created", "{}", CREATED, 1) for n in range(2)]
    ws.hold(claimed, {B: 4}, time.monotonic() + 60)
    ended = {key: [] for key in (A, B)}
    for window, delivery in take(ws):
        ended[delivery.receiver].append(ws.done(window, answered=True))
    # A's one left is less than half what it may hold: it asks; B had no more to get.
    assert ended == {A: [True] * 4, B: [False] * 2}


def test_drain_gives_back_every_delivery_held_and_empties_the_queues():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=2)
    for key in (A, B):
        ws.add(key)
        hold(ws, key, 3)
    sent = {delivery.id for _, delivery in take(ws)}
    drained = {delivery.id for delivery in ws.drain()}
    assert len(sent) == 4
    assert drained == {f"{key}#{n}" for key in (A, B) for n in range(3)} - sent
    assert take(ws) == []


def test_a_receiver_no_longer_sent_to_is_forgotten_once_nothing_of_it_is_in_flight():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=2)
    for key in (A, B):
        ws.add(key)
    hold(ws, A, 1)
    ((window, _),) = take(ws)
    ws.forget({})
    assert ws.sizes() == {A: 2}  # its attempt is still in flight; B had nothing
    ws.done(window, answered=True)
    ws.forget({})
    assert ws.sizes() == {}
    assert ws.add(A)  # a new window when it is sent to again


def hold_due(ws, key, dues):
    """Queue a throttled endpoint's deliveries, one due at each of dues (time.monotonic())."""
    claimed = [
        Delivery(f"{key}#{n}", key, "plant.created", "{}", CREATED, 1, due=due)
        for n, due in enumerate(dues)
    ]
    ws.hold(claimed, {key: len(dues)}, time.monotonic() + 60)


def test_a_throttled_delivery_waits_until_due_and_others_go_meanwhile():
    ws = windows()
    ws.add(A)
    ws.add(B)
    later = time.monotonic() + 30
    hold_due(ws, A, [later, later + 1])
    hold(ws, B, 2)
    assert [delivery.receiver for _, delivery in take(ws)] == [B, B]
    assert ws.next_due == later


def test_a_throttled_delivery_goes_once_due():
    ws = windows()
    ws.add(A)
    hold_due(ws, A, [time.monotonic() - 0.001, time.monotonic() + 30])
    assert [delivery.id for _, delivery in take(ws)] == [f"{A}#0"]
    assert ws.next_due > time.monotonic() + 29


def test_a_throttled_delivery_found_late_is_given_back_unsent():
    ws = windows()
    ws.add(A)
    hold_due(ws, A, [time.monotonic() - LATE_MOST - 0.01])
    expired = []
    assert list(ws.ready(expired)) == []
    assert [delivery.id for delivery in expired] == [f"{A}#0"]


def test_a_window_whose_next_delivery_is_not_due_does_not_open():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4)
    ws.add(A)
    now = time.monotonic()
    hold_due(ws, A, [now - 0.001] + [now + 30 + n for n in range(50)])
    for _ in range(3):
        assert round_trip(ws) in (0, 1)
    assert ws.sizes() == {A: 4}


def test_resized_tells_each_window_added_resized_or_gone_once():
    ws = windows(WEBHOOK_RECEIVER_CONCURRENCY=4, WEBHOOK_RECEIVER_CONCURRENCY_MAX=16)
    ws.add(A)
    ws.add(B)
    assert ws.resized() == {A: 4, B: 4}
    assert ws.resized() == {}  # nothing changed since
    hold(ws, A, 100)
    round_trip(ws)
    assert ws.resized() == {A: 8}
    ws.forget({A: None})
    assert ws.resized() == {B: None}
