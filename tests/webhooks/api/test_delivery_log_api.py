"""/webhooks/{id}/deliveries, resend and recover: an endpoint's delivery log through HTTP, on
both backends, over deliveries rows written in the app's database."""

import datetime

import pytest

from app.database import utcnow
from support.endpoints import T0, add_delivery, delivery_rows, pages, register, send
from support.errors import assert_error

MINUTE = datetime.timedelta(minutes=1)
NO_SUCH_ENDPOINT = "There is no webhook endpoint with this id."
DISABLED = "The webhook endpoint is disabled: enable it first."
NOT_A_CURSOR = "Not a valid cursor: take it from the Link header of the page before."


@pytest.fixture
def endpoint(client, admin_headers):
    """The id of a registered endpoint."""
    return register(client, admin_headers)["id"]


def log(client, headers, endpoint, query=""):
    response = client.get(f"/webhooks/{endpoint}/deliveries{query}", headers=headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def test_the_log_shows_each_delivery_newest_first(app, client, admin_headers, endpoint):
    failed = add_delivery(
        app,
        endpoint,
        "failed",
        T0,
        last_attempt_at=T0 + MINUTE,
        response_status=500,
        last_error="HTTP 500",
        response_body='{"error": "unknown plant"}',
    )
    pending = add_delivery(app, endpoint, "pending", T0 + 2 * MINUTE, attempts=0)
    delivered = add_delivery(
        app,
        endpoint,
        "delivered",
        T0 + MINUTE,
        last_attempt_at=T0 + MINUTE,
        response_status=204,
        response_body="",
    )
    add_delivery(app, register(client, admin_headers)["id"], "pending", T0 + 3 * MINUTE)
    shown = log(client, admin_headers, endpoint)
    assert [each["id"] for each in shown] == [pending, delivered, failed]
    assert shown[2] == {
        "id": failed,
        "event": "plant.created",
        "status": "failed",
        "attempts": 3,
        "created_at": "2026-01-01T12:00:00+00:00",
        "last_attempt_at": "2026-01-01T12:01:00+00:00",
        "next_attempt_at": None,
        "response_status": 500,
        "last_error": "HTTP 500",
        "response_body": '{"error": "unknown plant"}',
    }
    assert shown[0]["next_attempt_at"] == "2026-01-01T12:07:00+00:00"
    assert (shown[0]["last_attempt_at"], shown[0]["response_status"]) == (None, None)
    assert shown[0]["response_body"] is None
    assert (shown[1]["next_attempt_at"], shown[1]["response_status"]) == (None, 204)
    assert shown[1]["response_body"] == ""


def test_the_log_is_filtered_by_status_and_paged_with_a_link(app, client, admin_headers, endpoint):
    # Two deliveries share each creation time: the id orders them.
    made = []
    for n in range(7):
        at = T0 + (n // 2) * MINUTE
        made.append((at, add_delivery(app, endpoint, ("failed", "delivered")[n % 3 == 0], at)))
    newest_first = [delivery for _, delivery in sorted(made, reverse=True)]
    found, links = pages(client, admin_headers, f"/webhooks/{endpoint}/deliveries?limit=2")
    assert [[each["id"] for each in page] for page in found] == [
        newest_first[n : n + 2] for n in range(0, 7, 2)
    ]
    assert all(link.startswith(f"http://localhost/webhooks/{endpoint}/") for link in links)
    rows = delivery_rows(app)
    failed = [each for each in newest_first if rows[each]["status"] == "failed"]
    query = f"/webhooks/{endpoint}/deliveries?status=failed&limit=1"
    found, links = pages(client, admin_headers, query)
    assert [page[0]["id"] for page in found] == failed
    assert all("status=failed" in link for link in links)


def test_a_page_of_the_log_holds_every_delivery_of_a_crowded_moment(
    app, client, admin_headers, endpoint
):
    same_time = sorted((add_delivery(app, endpoint) for _ in range(3)), reverse=True)
    found, _ = pages(client, admin_headers, f"/webhooks/{endpoint}/deliveries?limit=1")
    assert [page[0]["id"] for page in found] == same_time


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("?status=lost", "status: Must be one of: pending, delivered, failed."),
        ("?limit=0", "limit: Must be greater than or equal to 1 and less than or equal to 1000."),
        ("?before=yesterday", f"before: {NOT_A_CURSOR}"),
        ("?before=1." + "x" * 33, f"before: {NOT_A_CURSOR}"),
        ("?before=" + "9" * 18 + ".x", f"before: {NOT_A_CURSOR}"),
        ("?after=x", "after: Unknown field."),
    ],
)
def test_a_bad_log_query_is_a_400(client, admin_headers, endpoint, query, message):
    response = client.get(f"/webhooks/{endpoint}/deliveries{query}", headers=admin_headers)
    assert assert_error(response, 400) == message


@pytest.mark.backend_independent
def test_the_log_of_an_unknown_endpoint_is_404(client, admin_headers):
    response = client.get("/webhooks/ep_nobody/deliveries", headers=admin_headers)
    assert assert_error(response, 404) == NO_SUCH_ENDPOINT


@pytest.mark.parametrize("status", ["failed", "delivered", "pending"])
def test_resend_gives_one_delivery_fresh_attempts_under_its_id(
    app, client, admin_headers, endpoint, status
):
    delivery = add_delivery(
        app,
        endpoint,
        status,
        last_error="HTTP 500",
        claimed_until=T0,
        response_status=500,
        response_body="busy",
    )
    untouched = add_delivery(app, endpoint, status)
    before = utcnow()
    response = client.post(
        f"/webhooks/{endpoint}/deliveries/{delivery}/resend", headers=admin_headers
    )
    assert (response.status_code, response.data) == (202, b"")
    assert "Content-Type" not in response.headers
    rows = delivery_rows(app)
    row = rows[delivery]
    assert (row["status"], row["attempts"], row["claimed_until"], row["last_error"]) == (
        "pending",
        0,
        None,
        None,
    )
    assert before <= row["next_attempt_at"] <= utcnow()
    # As stored, until the next attempt.
    assert (row["response_status"], row["response_body"]) == (500, "busy")
    assert rows[untouched]["status"] == status


def test_resend_of_another_endpoints_delivery_or_an_unknown_one_is_404(
    app, client, admin_headers, endpoint
):
    theirs = add_delivery(app, register(client, admin_headers)["id"])
    for delivery in (theirs, "f" * 32):
        path = f"/webhooks/{endpoint}/deliveries/{delivery}/resend"
        response = client.post(path, headers=admin_headers)
        assert assert_error(response, 404) == "The webhook endpoint has no delivery with this id."
    assert delivery_rows(app)[theirs]["status"] == "failed"
    unknown = client.post(f"/webhooks/ep_nobody/deliveries/{theirs}/resend", headers=admin_headers)
    assert assert_error(unknown, 404) == NO_SUCH_ENDPOINT
    bad = client.post(f"/webhooks/{endpoint}/deliveries/{'a' * 33}/resend", headers=admin_headers)
    assert assert_error(bad, 400) == "delivery_id: Not a valid id."


def test_recover_sends_every_failed_delivery_since_then_again(app, client, admin_headers, endpoint):
    older = add_delivery(app, endpoint, "failed", T0 - MINUTE)
    since = add_delivery(app, endpoint, "failed", T0)
    newer = add_delivery(app, endpoint, "failed", T0 + MINUTE)
    delivered = add_delivery(app, endpoint, "delivered", T0 + MINUTE)
    theirs = add_delivery(app, register(client, admin_headers)["id"], "failed", T0 + MINUTE)
    # The same moment, written at another offset.
    body = {"since": "2026-01-01T13:00:00+01:00"}
    response = send(client, "POST", f"/webhooks/{endpoint}/recover", admin_headers, body)
    assert (response.status_code, response.data) == (202, b"")
    assert "Content-Type" not in response.headers
    rows = delivery_rows(app)
    assert {each: rows[each]["status"] for each in (older, since, newer, delivered, theirs)} == {
        older: "failed",
        since: "pending",
        newer: "pending",
        delivered: "delivered",
        theirs: "failed",
    }
    assert (rows[since]["attempts"], rows[since]["last_error"]) == (0, None)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({}, "since: Missing data for required field."),
        ({"since": "yesterday"}, "since: Not a valid datetime."),
        ({"since": "2026-01-01T12:00:00"}, "since: Not a valid datetime."),
        ({"since": "2026-01-01"}, "since: Not a valid datetime."),
        ({"since": "2026-02-30T12:00:00Z"}, "since: Not a valid datetime."),
        ({"since": "0001-01-01T00:00:00+01:00"}, "since: Not a valid datetime."),
        ({"since": 1767268800}, "since: Not a valid datetime."),
        ({"since": T0.isoformat(), "until": T0.isoformat()}, "until: Unknown field."),
    ],
    ids=[
        "missing",
        "words",
        "no offset",
        "date only",
        "no such day",
        "before year 1",
        "number",
        "unknown key",
    ],
)
def test_a_bad_recover_body_is_a_400(client, admin_headers, endpoint, body, message):
    response = send(client, "POST", f"/webhooks/{endpoint}/recover", admin_headers, body)
    assert assert_error(response, 400) == message


def test_resend_and_recover_on_a_disabled_endpoint_are_409(app, client, admin_headers, endpoint):
    delivery = add_delivery(app, endpoint)
    send(client, "PATCH", f"/webhooks/{endpoint}", admin_headers, {"enabled": False})
    path = f"/webhooks/{endpoint}/deliveries/{delivery}/resend"
    resend = client.post(path, headers=admin_headers)
    assert assert_error(resend, 409) == DISABLED
    body = {"since": T0.isoformat()}
    recover = send(client, "POST", f"/webhooks/{endpoint}/recover", admin_headers, body)
    assert assert_error(recover, 409) == DISABLED
    assert delivery_rows(app)[delivery]["status"] == "failed"
    unknown = send(client, "POST", "/webhooks/ep_nobody/recover", admin_headers, body)
    assert assert_error(unknown, 404) == NO_SUCH_ENDPOINT
