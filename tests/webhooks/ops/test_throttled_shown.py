"""A throttled endpoint as `webhooks status` and /metrics show it: its rate beside the backlog
that every endpoint shows; none for an endpoint without a rate."""

import re

from prometheus_client.parser import text_string_to_metric_families

from app.webhooks.worker.ledger import Ledger
from support.endpoints import register, send
from support.webhooks import create, status_of


def rates_on_metrics(client):
    """{endpoint id: plantstore_webhook_throttle_rate} of the app's /metrics."""
    text = client.get("/metrics").get_data(as_text=True)
    return {
        sample.labels["endpoint"]: sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "plantstore_webhook_throttle_rate"
    }


def test_a_throttled_endpoint_shows_its_rate_and_backlog_a_lifted_one_none(app, admin_headers):
    client = app.test_client()
    throttled = register(client, admin_headers, events=["plant.created"], throttle_rate=20)
    free = register(client, admin_headers, events=["plant.created"])
    for plant_id in range(3):
        assert create(client, plant_id).status_code == 200
    Ledger(app).round([], [], {}, {})  # a worker's round that fans out and claims nothing
    assert rates_on_metrics(client) == {throttled["id"]: 20}
    status = status_of(app.test_cli_runner())
    assert re.search(
        rf"receiver {throttled['id']}: pending 3, failed 0, oldest pending \d+s, "
        r"throttled to 20 a second\n",
        status,
    ), status
    assert re.search(rf"receiver {free['id']}: pending 3, [^\n]*pending \d+s\n", status), status
    path = f"/webhooks/{throttled['id']}"
    assert send(client, "PATCH", path, admin_headers, {"throttle_rate": None}).status_code == 200
    assert rates_on_metrics(client) == {}
    assert "throttled" not in status_of(app.test_cli_runner())
