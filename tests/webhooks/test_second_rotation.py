"""Rotations within the overlap, delivered by a worker in process: a replaced secret signs until
its own overlap ends, newest first, three at most."""

import time

import pytest
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from harness.processes import wait_for


def test_a_secret_replaced_twice_within_the_overlap_still_signs(app_stack, make_receiver):
    receiver = make_receiver()
    server, admin, start = app_stack()  # an overlap of a day
    endpoint = admin.register(receiver.url, events=["plant.created"])
    first = endpoint["secret"]
    receiver.verify_with(first)  # a receiver that has not switched yet
    second = admin.rotate(endpoint["id"])
    third = admin.rotate(endpoint["id"])
    start()

    def delivered(plant_id):
        count = len(receiver.requests)
        created = time.monotonic()
        server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})
        wait_for(lambda: len(receiver.requests) > count, 30, "a delivery")
        assert time.monotonic() - created < 5
        return receiver.requests[-1]

    headers, body = delivered(1)
    signatures = headers["webhook-signature"].split(" ")
    assert len(signatures) == 3
    for position, secret in enumerate((third, second, first)):  # newest first
        Webhook(secret).verify(body, {**headers, "webhook-signature": signatures[position]})
    # Past the bound of three, a fourth rotation within the overlap drops the oldest at once.
    receiver.verify_with(third)
    fourth = admin.rotate(endpoint["id"])
    headers, body = delivered(2)
    assert len(headers["webhook-signature"].split(" ")) == 3
    for secret in (fourth, third, second):
        Webhook(secret).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(first).verify(body, headers)
