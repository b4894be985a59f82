"""Webhook endpoints that misbehave, each fault its own case with its bound: delivered by workers
in the test's process over real HTTP, but for a kill -9 of a worker process while it disables
an endpoint."""

import time

import pytest

from harness.processes import wait_for
from harness.receivers import SilentReceiver
from support.endpoints import NOT_PUBLIC
from support.live_endpoints import ENDPOINT_SETTINGS, Admin, issue_admin_token, statuses
from support.live_servers import environment


@pytest.fixture
def endpoint_stack(live_server, database_url, start_workers):
    """stack(**settings): gunicorn on the test database with those webhook settings, an Admin
    of its /webhooks API, and start() for its workers: two on PostgreSQL, where several hosts
    share the outbox, one on SQLite, or start(count=N). Returns (server, admin, start)."""

    def stack(**settings):
        server = live_server(database_url, **environment({**ENDPOINT_SETTINGS, **settings}))
        admin = Admin(server, issue_admin_token(database_url))
        shared = 2 if database_url.startswith("postgresql") else 1

        def start(count=shared, **overrides):
            env = {**server.env, **environment(overrides)}
            workers = [start_workers(env) for _ in range(count)]
            logs = [log_path for _, log_path in workers]

            def started():
                return all("Delivering" in path.read_text() for path in logs)

            wait_for(started, 30, "the workers' start")
            return workers

        return server, admin, start

    return stack


def metric(server, name, labels):
    """The value of one sample of /metrics, or None."""
    line = f"{name}{{{labels}}} "
    for text in server.request("GET", "/metrics").body.decode().splitlines():
        if text.startswith(line):
            return float(text.removeprefix(line))
    return None


def logged(log, endpoint_id):
    """Whether the workers' log says that one disabled the endpoint, as a WARNING."""
    return any(
        "WARNING" in line and f"webhook endpoint {endpoint_id} disabled" in line
        for line in log.read_text().splitlines()
    )


def test_an_endpoint_that_answers_410_is_disabled_at_once(app_stack, make_receiver):
    receiver = make_receiver(status=410)
    server, admin, start = app_stack()
    endpoint = admin.subscribe(receiver)
    for plant_id in range(5):
        server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})
    workers = start()
    started = time.monotonic()
    wait_for(lambda: not admin.get(endpoint["id"])["enabled"], 30, "the endpoint disabled")
    assert time.monotonic() - started < 10
    shown = admin.get(endpoint["id"])
    assert shown["disabled_reason"] == "the endpoint answered 410 Gone"
    log = admin.deliveries(endpoint["id"])
    assert statuses(log) == ["failed"] * 5
    # An attempt still in flight when the endpoint was disabled is recorded by nobody.
    assert 410 in {each["response_status"] for each in log} <= {410, None}
    assert metric(server, "plantstore_webhook_endpoints_disabled_total", 'reason="gone"') == 1
    wait_for(lambda: any(logged(lines, endpoint["id"]) for _, lines in workers), 10, "a warning")
    server.request("POST", "/plants", {"id": 99, "name": "Fern"})
    assert len(admin.deliveries(endpoint["id"])) == 5  # a disabled endpoint gets no new event


def test_an_endpoint_that_hangs_times_out_and_holds_up_no_other(app_stack, make_receiver):
    healthy = make_receiver()
    hung = SilentReceiver()
    try:
        server, admin, start = app_stack()
        stuck = admin.register(hung.url)
        fine = admin.register(healthy.url)
        healthy.verify_with(fine["secret"])
        start()
        created = time.monotonic()
        server.request("POST", "/plants", {"id": 1, "name": "Fern"})
        wait_for(lambda: healthy.requests, 30, "the healthy endpoint's delivery")
        assert healthy.arrivals[0] - created < 2
        wait_for(lambda: admin.newest(stuck["id"]).get("last_error"), 30, "a timeout")
        delivery = admin.newest(stuck["id"])
        assert (delivery["last_error"], delivery["response_status"]) == ("timeout", None)
        assert delivery["response_body"] is None
    finally:
        hung.close()


def test_a_redirect_is_not_followed(app_stack, make_receiver):
    receiver = make_receiver()
    receiver.status = (302, {"Location": "http://10.0.0.1/hook"})
    server, admin, start = app_stack()
    endpoint = admin.register(receiver.url, events=["plant.created"])
    receiver.verify_with(endpoint["secret"])
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "failed", 30, "failure")
    delivery = admin.newest(endpoint["id"])
    assert (delivery["response_status"], delivery["last_error"]) == (302, "HTTP 302")
    assert len(receiver.requests) == delivery["attempts"] == 3


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_an_address_that_is_not_public_at_connect_time_is_never_reached(
    app_stack, make_receiver, host
):
    receiver = make_receiver()
    server, admin, start = app_stack()  # the API allows 127.0.0.0/8 ...
    url = receiver.url.replace("127.0.0.1", host)
    endpoint = admin.register(url, events=["plant.created"])
    start(WEBHOOK_ALLOWED_NETWORKS="")  # ... the workers do not
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "failed", 30, "failure")
    delivery = admin.newest(endpoint["id"])
    assert f"127.0.0.1 {NOT_PUBLIC}" in delivery["last_error"] or (
        host == "localhost" and f"::1 {NOT_PUBLIC}" in delivery["last_error"]
    )
    assert delivery["response_status"] is None
    assert receiver.requests == []


# Hosts that the client would take to 127.0.0.1: a guard at connect time must judge each so.
CARRYING_LOOPBACK = [
    pytest.param("127.0.0.\U0001fbf1", id="Unicode digit"),
    pytest.param("[::ffff:127.0.0.1]", id="IPv4-mapped"),
    pytest.param("[::127.0.0.1]", id="IPv4-compatible"),
    pytest.param("[64:ff9b::7f00:1]", id="NAT64"),
    pytest.param("[2002:7f00:1::]", id="6to4"),
    pytest.param("[2001:0:4136:e378:8000:63bf:80ff:fffe]", id="Teredo client"),
]


# The guard is the worker's socket factory: the database plays no part, so SQLite alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("host", CARRYING_LOOPBACK)
def test_a_form_of_a_private_address_that_got_past_registration_is_never_reached(
    app_stack, make_receiver, host
):
    receiver = make_receiver()
    server, admin, start = app_stack(WEBHOOK_ALLOWED_NETWORKS="127.0.0.0/8,::/96")
    endpoint = admin.register(receiver.url.replace("127.0.0.1", host), events=["plant.created"])
    start(WEBHOOK_ALLOWED_NETWORKS="")  # the API let it in; the workers do not
    started = time.monotonic()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: admin.newest(endpoint["id"]).get("status") == "failed", 30, "failure")
    assert time.monotonic() - started < 10
    delivery = admin.newest(endpoint["id"])
    assert delivery["last_error"] == f"ClientConnectorError: 127.0.0.1 {NOT_PUBLIC}"
    assert (delivery["response_status"], delivery["attempts"]) == (None, 3)
    assert receiver.requests == []


def test_an_endpoint_failing_for_disable_after_is_disabled_at_its_next_failure(
    app_stack, make_receiver
):
    receiver = make_receiver(status=500)
    server, admin, start = app_stack(
        WEBHOOK_DISABLE_AFTER=1, WEBHOOK_MAX_ATTEMPTS=50, WEBHOOK_RETRY_MAX_DELAY=0.3
    )
    endpoint = admin.subscribe(receiver)
    start()
    server.request("POST", "/plants", {"id": 1, "name": "Fern"})
    wait_for(lambda: not admin.get(endpoint["id"])["enabled"], 30, "the endpoint disabled")
    # Failing counts from the first failure's record, which comes after its arrival: the
    # endpoint was disabled a DISABLE_AFTER after that at the soonest.
    assert time.monotonic() - receiver.arrivals[0] >= 1
    assert len(receiver.arrivals) >= 2  # and only at a failure after that time
    reason = admin.get(endpoint["id"])["disabled_reason"]
    assert reason == "every attempt failed for PLANTSTORE_WEBHOOK_DISABLE_AFTER seconds"
    assert metric(server, "plantstore_webhook_endpoints_disabled_total", 'reason="failing"') == 1
    assert statuses(admin.deliveries(endpoint["id"])) == ["failed"]


@pytest.mark.e2e
def test_kill_9_of_the_worker_never_leaves_a_disabled_endpoint_with_pending_deliveries(
    endpoint_stack, make_receiver
):
    receiver = make_receiver(status=410)
    server, admin, start = endpoint_stack(WEBHOOK_MAX_ATTEMPTS=10)
    endpoint = admin.subscribe(receiver)
    for plant_id in range(20):
        server.request("POST", "/plants", {"id": plant_id, "name": "Fern"})

    def consistent():
        enabled = admin.get(endpoint["id"])["enabled"]
        pending = admin.deliveries(endpoint["id"], "?status=pending")
        return enabled or pending == []

    [(process, _)] = start(count=1)
    wait_for(lambda: receiver.requests, 30, "the 410")
    process.kill()  # while the 410 is being recorded, or just before
    process.wait()
    assert consistent()
    start(count=1)
    wait_for(lambda: not admin.get(endpoint["id"])["enabled"], 30, "the endpoint disabled")
    assert consistent()
    assert statuses(admin.deliveries(endpoint["id"])) == ["failed"] * 20
