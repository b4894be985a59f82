"""A delivery's claim, in process on a real database and a real receiver: one attempt at a time,
whatever a resend asks meanwhile."""

import time

from endpoint_helpers import register, send
from harness.processes import wait_for
from helpers import issue_admin_token
from live_endpoints import ENDPOINT_SETTINGS
from receiver import FirstAnswerLate
from webhook_helpers import create, running

# How long the receiver holds its first answer: the resend comes in meanwhile.
FIRST_ANSWER_DELAY = 2


def test_a_resend_while_an_attempt_is_in_flight_waits_for_it_to_end(make_app):
    receiver = FirstAnswerLate(FIRST_ANSWER_DELAY)
    try:
        app = make_app(**{**ENDPOINT_SETTINGS, "WEBHOOK_TIMEOUT": FIRST_ANSWER_DELAY + 3})
        client, headers = app.test_client(), issue_admin_token(app)
        endpoint = register(client, headers, url=receiver.url, events=["plant.created"])
        receiver.verify_with(endpoint["secret"])
        assert create(client, 1).status_code == 200
        with running(app):
            wait_for(lambda: receiver.requests, 10, "the first attempt")
            (delivery_id,) = receiver.deliveries()
            resend = f"/webhooks/{endpoint['id']}/deliveries/{delivery_id}/resend"
            resent = time.monotonic()
            assert send(client, "POST", resend, headers).status_code == 202
            wait_for(lambda: len(receiver.requests) == 2, 10, "the resent attempt")
        first, second = receiver.arrivals
        # Its window had free slots: only the claim kept the second attempt back.
        assert second >= first + FIRST_ANSWER_DELAY
        assert second - resent < FIRST_ANSWER_DELAY + 1
        assert receiver.deliveries() == [delivery_id, delivery_id]
    finally:
        receiver.close()
    assert receiver.unverified == []
