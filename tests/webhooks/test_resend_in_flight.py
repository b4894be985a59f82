"""A resend while the delivery's attempt is still in flight, end to end: the attempt's outcome
must not overwrite the fresh attempts that the resend gave it."""

import time

import pytest

from harness.processes import wait_for
from receiver import Receiver

pytestmark = pytest.mark.e2e

# How long the receiver holds its first answer: the resend comes in meanwhile.
FIRST_ANSWER_DELAY = 2


class FirstAnswerLate(Receiver):
    """Answers its first request after FIRST_ANSWER_DELAY seconds, every other one at once."""

    @property
    def delay(self):
        """Read by the handler after it recorded the request: the first one waits."""
        return FIRST_ANSWER_DELAY if len(self.requests) <= 1 else 0

    @delay.setter
    def delay(self, _value):
        pass


def test_a_resend_during_an_attempt_in_flight_gets_its_own_attempts(endpoint_stack):
    receiver = FirstAnswerLate()
    receiver.script = [500]
    try:
        # One attempt in flight per receiver, so that the resend waits for the slot.
        server, admin, start = endpoint_stack(
            WEBHOOK_MAX_ATTEMPTS=1, WEBHOOK_RECEIVER_CONCURRENCY=1, WEBHOOK_TIMEOUT=5
        )
        endpoint = admin.register(receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
        (_, _), *others = start()
        for other, _ in others:  # another worker's free slot would hide the fault
            other.kill()
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
