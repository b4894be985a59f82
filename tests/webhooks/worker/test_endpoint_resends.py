"""Resending a delivery through the API, delivered by workers in the test's process: it goes
again under its id, and, sent while the delivery's attempt is still in flight or waiting for a
slot, the fresh attempts it gives are not overwritten by that attempt's outcome."""

import time

from harness.processes import wait_for
from support.live_endpoints import statuses
from support.receivers import FirstAnswerLate

# How long the receiver holds its first answer: the resend comes in meanwhile.
FIRST_ANSWER_DELAY = 2


def test_resend_sends_a_delivered_delivery_again_under_its_id(app_stack, make_receiver):
    receiver = make_receiver()
    server, admin, start = app_stack()
    endpoint = admin.subscribe(receiver)
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: statuses(admin.deliveries(endpoint["id"])) == ["delivered"], 30, "delivery")
    delivery = admin.deliveries(endpoint["id"])[0]
    admin.resend(endpoint["id"], delivery["id"])
    wait_for(lambda: len(receiver.requests) == 2, 30, "the resend")
    assert receiver.deliveries() == [delivery["id"], delivery["id"]]
    again = admin.deliveries(endpoint["id"])[0]
    assert (again["id"], again["attempts"]) == (delivery["id"], 1)


def test_a_resend_during_an_attempt_in_flight_gets_its_own_attempts(app_stack):
    receiver = FirstAnswerLate(FIRST_ANSWER_DELAY)
    receiver.script = [500]
    try:
        # One attempt in flight per receiver, so that the resend waits for the slot.
        server, admin, start = app_stack(
            WEBHOOK_MAX_ATTEMPTS=1, WEBHOOK_RECEIVER_CONCURRENCY=1, WEBHOOK_TIMEOUT=5
        )
        endpoint = admin.register(receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
        start(count=1)  # another worker's free slot would hide the fault
        server.request("POST", "/plants", {"id": 1, "name": "Fern"})
        wait_for(lambda: receiver.requests, 30, "the first attempt")
        delivery_id = admin.newest(endpoint["id"])["id"]
        resent = time.monotonic()
        admin.resend(endpoint["id"], delivery_id)
        wait_for(lambda: admin.newest(endpoint["id"])["status"] != "pending", 30, "an outcome")
        assert time.monotonic() - resent < FIRST_ANSWER_DELAY + 3
        delivery = admin.newest(endpoint["id"])
        assert (delivery["status"], delivery["response_status"]) == ("delivered", 200)
        assert delivery["attempts"] == 1
        assert receiver.deliveries() == [delivery_id, delivery_id]
    finally:
        receiver.close()
    assert receiver.unverified == []


def test_a_resend_of_a_delivery_waiting_for_a_slot_keeps_its_fresh_attempts(app_stack):
    timeout = 2
    receiver = FirstAnswerLate(first_delay=timeout + 1)
    try:
        # Two claimed in one round, one slot: the second waits in the queue while the first
        # hangs, and its time to be sent runs out when the first times out.
        server, admin, start = app_stack(
            WEBHOOK_CONCURRENCY=1, WEBHOOK_RECEIVER_CONCURRENCY=2, WEBHOOK_TIMEOUT=timeout
        )
        endpoint = admin.register(receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
        for plant_id in (1, 2):
            server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})
        # One worker: another would claim the second one at once.
        start(count=1)
        wait_for(lambda: receiver.requests, 30, "the first attempt")
        hung = receiver.deliveries()[0]
        (queued,) = {each["id"] for each in admin.deliveries(endpoint["id"])} - {hung}
        resent = time.monotonic()
        admin.resend(endpoint["id"], queued)

        def queued_one():
            return next(each for each in admin.deliveries(endpoint["id"]) if each["id"] == queued)

        wait_for(lambda: queued_one()["status"] == "delivered", 30, "the resent delivery")
        assert time.monotonic() - resent < timeout + 3
        # The claim it had when it was resent gives nothing back: one attempt, the resend's.
        assert queued_one()["attempts"] == 1
        assert receiver.deliveries().count(queued) == 1
    finally:
        receiver.close()
    assert receiver.unverified == []
