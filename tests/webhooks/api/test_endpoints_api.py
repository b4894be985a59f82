"""/webhooks: the contract's 'Webhook endpoints' operations on endpoints, and 'Validating an
endpoint', through HTTP on both backends."""

import base64
import datetime
import re

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select

from app import database
from app.auth import READ_ONLY
from app.database import utcnow
from app.tokens import store as token_store
from app.tokens.lookup import token_hash
from app.webhooks.api.routes import KEYRING
from app.webhooks.tables.endpoints import webhook_endpoints
from support.endpoints import URL, add_delivery, delivery_rows, pages, register, send
from support.errors import assert_error
from support.tokens import TOKEN, issue_admin_token

EVERY_TYPE = ["plant.created", "plant.deleted", "plant.updated"]
SHOWN = {
    "id",
    "url",
    "description",
    "events",
    "enabled",
    "disabled_reason",
    "throttle_rate",
    "payload",
    "created_at",
}
ID = re.compile(r"ep_[A-Za-z0-9_-]{22}")
READ_ONLY_TOKEN = "pst_test-read-only-token-0123456789"
# Every /webhooks operation: method, path, body.
OPERATIONS = [
    ("POST", "/webhooks", {"url": URL}),
    ("GET", "/webhooks", None),
    ("GET", "/webhooks/ep_x", None),
    ("PATCH", "/webhooks/ep_x", {"description": "x"}),
    ("DELETE", "/webhooks/ep_x", None),
    ("POST", "/webhooks/ep_x/secret", None),
    ("GET", "/webhooks/ep_x/deliveries", None),
    ("POST", "/webhooks/ep_x/deliveries/d1/resend", None),
    ("POST", "/webhooks/ep_x/recover", {"since": "2026-01-01T00:00:00Z"}),
]


def secret_key(secret):
    """The signing key of a whsec_ secret: 32 bytes, or an error."""
    assert secret.startswith("whsec_")
    key = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    assert len(key) == 32
    return key


@pytest.mark.backend_independent
def test_create_with_defaults_answers_201_with_location_and_secret(client, admin_headers):
    before = utcnow()
    response = send(client, "POST", "/webhooks", admin_headers, {"url": URL})
    assert response.status_code == 201
    created = response.get_json()
    assert set(created) == SHOWN | {"secret"}
    assert ID.fullmatch(created["id"])
    assert response.headers["Location"] == f"/webhooks/{created['id']}"
    assert response.headers["Cache-Control"] == "no-store"
    assert (created["url"], created["description"], created["events"]) == (URL, "", EVERY_TYPE)
    assert (created["enabled"], created["disabled_reason"]) == (True, None)
    assert (created["throttle_rate"], created["payload"]) == (None, "event")
    secret_key(created["secret"])
    at = datetime.datetime.fromisoformat(created["created_at"])
    assert at.utcoffset() == datetime.timedelta(0)
    assert before <= at <= utcnow()


def test_create_takes_every_field(client, admin_headers):
    body = {"url": "http://[2606:4700::1111]:8080/in?x=1", "events": ["plant.deleted"]}
    created = register(
        client,
        admin_headers,
        **body,
        description="Stock sync",
        enabled=False,
        throttle_rate=20,
        payload="thin",
    )
    assert created["url"] == body["url"]
    assert (created["throttle_rate"], created["payload"]) == (20, "thin")
    assert created["events"] == ["plant.deleted"]
    assert created["description"] == "Stock sync"
    assert (created["enabled"], created["disabled_reason"]) == (False, "disabled through the API")


def test_an_event_type_given_twice_is_kept_once(client, admin_headers):
    events = ["plant.deleted", "plant.created", "plant.deleted"]
    assert register(client, admin_headers, events=events)["events"] == events[:2]


@pytest.mark.backend_independent
def test_the_secret_is_shown_once(client, admin_headers):
    created = register(client, admin_headers)
    secret, path = created.pop("secret"), f"/webhooks/{created['id']}"
    answers = [
        client.get(path, headers=admin_headers),
        client.get("/webhooks", headers=admin_headers),
        send(client, "PATCH", path, admin_headers, {"description": "changed"}),
    ]
    for answer in answers:
        assert answer.status_code == 200
        assert secret.encode() not in answer.data
        assert b"secret" not in answer.data
    assert answers[0].get_json() == created


def test_secrets_are_stored_sealed_with_the_keys(make_app):
    app = make_app(WEBHOOK_KEYS=Fernet.generate_key().decode())
    client, headers = app.test_client(), issue_admin_token(app)
    secret = register(client, headers)["secret"]
    with database.of(app).engine.connect() as conn:
        (stored,) = conn.execute(select(webhook_endpoints.c.secret)).scalars()
    assert secret not in stored
    assert app.extensions[KEYRING].open(stored) == secret


@pytest.mark.backend_independent
@pytest.mark.parametrize(("method", "path", "body"), OPERATIONS)
def test_every_operation_needs_an_admin_token(app, client, method, path, body):
    token_store.create(database.of(app), "ro", token_hash(READ_ONLY_TOKEN), READ_ONLY, None)
    refused = send(client, method, path, {}, body)
    assert assert_error(refused, 401) == "A bearer token is required."
    assert refused.headers["WWW-Authenticate"] == 'Bearer realm="plantstore"'
    for token in (TOKEN, READ_ONLY_TOKEN):
        forbidden = send(client, method, path, {"Authorization": f"Bearer {token}"}, body)
        assert assert_error(forbidden, 403) == "This operation needs an admin token."


def test_list_pages_by_ascending_id_with_a_link(client, admin_headers):
    ids = sorted(register(client, admin_headers, description=str(n))["id"] for n in range(5))
    found, links = pages(client, admin_headers, "/webhooks?limit=2")
    assert [[endpoint["id"] for endpoint in page] for page in found] == [ids[:2], ids[2:4], ids[4:]]
    assert links == [f"http://localhost/webhooks?limit=2&after={ids[n]}" for n in (1, 3)]
    assert all(set(endpoint) == SHOWN for page in found for endpoint in page)
    whole = client.get("/webhooks", headers=admin_headers)
    assert [each["id"] for each in whole.get_json()] == ids
    assert "Link" not in whole.headers


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("limit=0", "limit: Must be greater than or equal to 1 and less than or equal to 1000."),
        ("limit=1001", "limit: Must be greater than or equal to 1 and less than or equal to 1000."),
        ("limit=x", "limit: Not a valid integer."),
        ("after=a%20b", "after: Not a valid id."),
        ("after=" + "a" * 65, "after: Not a valid id."),
        ("cursor=1", "cursor: Unknown field."),
    ],
)
def test_a_bad_list_query_is_a_400(client, admin_headers, query, message):
    response = client.get(f"/webhooks?{query}", headers=admin_headers)
    assert assert_error(response, 400) == message


def test_read_one_or_404(client, admin_headers):
    created = register(client, admin_headers)
    del created["secret"]
    assert client.get(f"/webhooks/{created['id']}", headers=admin_headers).get_json() == created
    missing = client.get("/webhooks/ep_nobody", headers=admin_headers)
    assert assert_error(missing, 404) == "There is no webhook endpoint with this id."
    bad = client.get(f"/webhooks/{'a' * 65}", headers=admin_headers)
    assert assert_error(bad, 400) == "id: Not a valid id."


@pytest.mark.parametrize(
    "change",
    [
        {"url": "https://other.invalid/in"},
        {"events": ["plant.deleted"]},
        {"description": "Stock sync"},
        {"url": "http://[2606:4700::1001]/", "events": ["plant.created"], "description": ""},
        {"throttle_rate": 10000},
        {"throttle_rate": 1, "description": "slow"},
        {"payload": "plant"},
        {"payload": "thin", "enabled": True},
        {},
    ],
    ids=[
        "url",
        "events",
        "description",
        "several",
        "throttle",
        "throttle 1",
        "payload",
        "payload thin",
        "nothing",
    ],
)
def test_patch_changes_what_it_names_and_nothing_else(client, admin_headers, change):
    created = register(client, admin_headers, description="before")
    del created["secret"]
    path = f"/webhooks/{created['id']}"
    response = send(client, "PATCH", path, admin_headers, change)
    assert response.status_code == 200
    assert response.get_json() == {**created, **change}
    assert client.get(path, headers=admin_headers).get_json() == {**created, **change}


def test_patch_of_throttle_rate_to_null_lifts_it(client, admin_headers):
    created = register(client, admin_headers, throttle_rate=60)
    path = f"/webhooks/{created['id']}"
    assert (
        send(client, "PATCH", path, admin_headers, {"description": "x"}).get_json()["throttle_rate"]
        == 60
    )
    lifted = send(client, "PATCH", path, admin_headers, {"throttle_rate": None})
    assert (lifted.status_code, lifted.get_json()["throttle_rate"]) == (200, None)
    assert client.get(path, headers=admin_headers).get_json()["throttle_rate"] is None


@pytest.mark.backend_independent
def test_patch_of_an_unknown_endpoint_is_404(client, admin_headers):
    response = send(client, "PATCH", "/webhooks/ep_nobody", admin_headers, {"enabled": True})
    assert assert_error(response, 404) == "There is no webhook endpoint with this id."


def test_disabling_fails_pending_deliveries_and_enabling_clears_the_reason(
    app, client, admin_headers
):
    endpoint = register(client, admin_headers)["id"]
    pending = add_delivery(app, endpoint, "pending")
    delivered = add_delivery(app, endpoint, "delivered", last_error=None)
    other = add_delivery(app, register(client, admin_headers)["id"], "pending")
    path = f"/webhooks/{endpoint}"
    disabled = send(client, "PATCH", path, admin_headers, {"enabled": False}).get_json()
    assert (disabled["enabled"], disabled["disabled_reason"]) == (False, "disabled through the API")
    rows = delivery_rows(app)
    assert rows[pending]["status"] == "failed"
    assert rows[pending]["last_error"] == "endpoint disabled: disabled through the API"
    assert (rows[delivered]["status"], rows[other]["status"]) == ("delivered", "pending")
    enabled = send(client, "PATCH", path, admin_headers, {"enabled": True}).get_json()
    assert (enabled["enabled"], enabled["disabled_reason"]) == (True, None)
    assert delivery_rows(app)[pending]["status"] == "failed"  # until recovered


def test_delete_is_204_empty_then_404_and_its_deliveries_are_gone(app, client, admin_headers):
    endpoint, other = (register(client, admin_headers)["id"] for _ in range(2))
    for receiver in (endpoint, endpoint, other):
        add_delivery(app, receiver, "pending")
    deleted = client.delete(f"/webhooks/{endpoint}", headers=admin_headers)
    assert (deleted.status_code, deleted.data) == (204, b"")
    assert "Content-Type" not in deleted.headers
    for method in ("GET", "DELETE"):
        gone = client.open(f"/webhooks/{endpoint}", method=method, headers=admin_headers)
        assert assert_error(gone, 404) == "There is no webhook endpoint with this id."
    assert delivery_rows(app, endpoint) == {}
    assert len(delivery_rows(app, other)) == 1


def test_rotation_answers_a_new_secret_and_keeps_the_old_one_for_the_overlap(
    make_app,
):
    app = make_app(WEBHOOK_SECRET_OVERLAP=3600)
    client, headers = app.test_client(), issue_admin_token(app)
    created = register(client, headers)
    response = client.post(f"/webhooks/{created['id']}/secret", headers=headers)
    assert response.status_code == 200
    (secret,) = response.get_json().values()
    assert set(response.get_json()) == {"secret"}
    assert secret_key(secret) != secret_key(created["secret"])
    columns = webhook_endpoints.c
    with database.of(app).engine.connect() as conn:
        row = conn.execute(
            select(columns.secret, columns.previous_secret, columns.previous_until)
        ).one()
    keyring = app.extensions[KEYRING]
    assert keyring.open(row.secret) == secret
    assert keyring.open(row.previous_secret) == created["secret"]
    overlap = row.previous_until - utcnow()
    assert datetime.timedelta(minutes=59) < overlap <= datetime.timedelta(hours=1)
    missing = client.post("/webhooks/ep_nobody/secret", headers=headers)
    assert assert_error(missing, 404) == "There is no webhook endpoint with this id."


def test_one_endpoint_past_the_most_is_a_409(make_app):
    app = make_app(WEBHOOK_MAX_ENDPOINTS=2)
    client, headers = app.test_client(), issue_admin_token(app)
    first = register(client, headers)
    register(client, headers)
    refused = send(client, "POST", "/webhooks", headers, {"url": URL})
    assert assert_error(refused, 409) == (
        "There are 2 webhook endpoints already, the most PLANTSTORE_WEBHOOK_MAX_ENDPOINTS allows."
    )
    assert len(client.get("/webhooks", headers=headers).get_json()) == 2
    assert client.delete(f"/webhooks/{first['id']}", headers=headers).status_code == 204
    register(client, headers)
