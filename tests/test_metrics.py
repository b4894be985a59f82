"""GET /metrics: Prometheus text through the test client, and summed over real gunicorn workers."""

import os
import signal
import threading

import pytest
from prometheus_client.parser import text_string_to_metric_families

from harness.processes import children, wait_for
from support.errors import assert_error

METRICS_TOKEN = "metrics-token-0123456789abcdefghijkl"


def samples(text):
    """{(name, frozenset of labels): value} of a Prometheus text page."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def requests_total(page, method, route, status):
    labels = frozenset({"method": method, "route": route, "status": str(status)}.items())
    return page.get(("plantstore_http_requests_total", labels), 0)


def scrape(client, **headers):
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200
    assert response.mimetype == "text/plain"
    return samples(response.get_data(as_text=True))


@pytest.mark.backend_independent
def test_requests_are_counted_by_url_rule_never_by_raw_path(client, auth_headers):
    for plant_id in (1, 2, 3):
        client.get(f"/plants/{plant_id}", headers=auth_headers)
    client.get("/no/such/path/4711", headers=auth_headers)
    client.open("/plants", method="BREW4711", headers=auth_headers)
    page = scrape(client)
    assert requests_total(page, "other", "unmatched", 405) == 1
    assert requests_total(page, "GET", "/plants/<plant_id>", 404) == 3
    assert requests_total(page, "GET", "unmatched", 404) == 1
    assert not any("4711" in value for _, labels in page for _, value in labels)
    duration = (
        "plantstore_http_request_duration_seconds_count",
        frozenset({"method": "GET", "route": "/plants/<plant_id>"}.items()),
    )
    assert page[duration] == 3


def test_plants_created_counts_new_plants_only(client, auth_headers):
    for body in ({"id": 1, "name": "Fern"}, {"id": 1, "name": "Fern"}, {"id": 1, "name": "Ivy"}):
        client.post("/plants", json=body, headers=auth_headers)
    page = scrape(client)
    assert page[("plantstore_plants_created_total", frozenset())] == 1
    assert requests_total(page, "POST", "/plants", 200) == 2
    assert requests_total(page, "POST", "/plants", 409) == 1


def test_webhook_gauges_are_read_from_the_database_per_receiver(make_app, auth_headers):
    app = make_app(WEBHOOK_URLS="http://127.0.0.1:9/hook", WEBHOOK_SECRET="s")
    client = app.test_client()
    receiver = {"receiver": "http://127.0.0.1:9/hook"}
    pending = (
        "plantstore_webhook_deliveries",
        frozenset({**receiver, "status": "pending"}.items()),
    )
    failed = ("plantstore_webhook_deliveries", frozenset({**receiver, "status": "failed"}.items()))
    assert scrape(client)[pending] == 0
    client.post("/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers)
    # Another app on the same database and receivers (another host) sees the same backlog.
    page = scrape(
        make_app(WEBHOOK_URLS="http://127.0.0.1:9/hook", WEBHOOK_SECRET="s").test_client()
    )
    assert page[pending] == 1
    assert page[failed] == 0
    assert page[("plantstore_webhook_oldest_pending_seconds", frozenset(receiver.items()))] >= 0


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token", f"Basic {METRICS_TOKEN}", "Bearer"],
    ids=["none", "wrong token", "other scheme", "empty"],
)
def test_metrics_token_when_set_is_required(make_app, authorization):
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    headers = {"Authorization": authorization} if authorization else {}
    response = client.get("/metrics", headers=headers)
    assert_error(response, 401)
    assert response.headers["WWW-Authenticate"].startswith('Bearer realm="plantstore"')


@pytest.mark.backend_independent
def test_metrics_token_when_set_lets_a_scrape_in(make_app):
    client = make_app(METRICS_TOKEN=METRICS_TOKEN).test_client()
    assert scrape(client, Authorization=f"Bearer {METRICS_TOKEN}")


@pytest.mark.backend_independent
@pytest.mark.e2e
def test_metrics_count_exactly_the_requests_sent_across_two_workers(live_server, database_url):
    server = live_server(database_url, workers=2)
    wait_for(lambda: len(children(server.process.pid)) == 2, 30, "two workers")

    def send(offset):
        for number in range(offset, 60, 4):
            assert server.request("POST", "/plants", {"id": number, "name": "Fern"}).status == 200
            assert server.request("GET", f"/plants/{number}").status == 200

    threads = [threading.Thread(target=send, args=(offset,)) for offset in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # A worker that dies takes none of the counts it made with it.
    os.kill(children(server.process.pid)[0], signal.SIGKILL)
    wait_for(lambda: len(children(server.process.pid)) == 2, 30, "the worker to be replaced")
    for _ in range(3):  # any worker may answer a scrape: each must give the whole instance
        page = samples(server.request("GET", "/metrics").body.decode())
        assert requests_total(page, "POST", "/plants", 200) == 60
        assert requests_total(page, "GET", "/plants/<plant_id>", 200) == 60
        assert page[("plantstore_plants_created_total", frozenset())] == 60
