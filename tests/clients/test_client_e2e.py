"""The generated client (clients/python) against real gunicorn: every operation of the document,
errors as its typed Error, and paging through the Link header."""

import datetime
import re
import uuid
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlsplit

import httpx
import pytest
from plantstore_client import AuthenticatedClient, Client
from plantstore_client.api.event_types import list_event_types
from plantstore_client.api.events import list_events
from plantstore_client.api.health import healthz, livez
from plantstore_client.api.openapi import openapi_document
from plantstore_client.api.plants import (
    create_plant,
    delete_plant,
    get_plant,
    list_plants,
    update_plant,
)
from plantstore_client.api.webhooks import (
    create_webhook_endpoint,
    delete_webhook_endpoint,
    get_webhook_endpoint,
    list_deliveries,
    list_webhook_endpoints,
    recover_deliveries,
    resend_delivery,
    rotate_webhook_secret,
    update_webhook_endpoint,
)
from plantstore_client.models import (
    CreatedWebhookEndpoint,
    Error,
    EventType,
    NewPlant,
    NewWebhookEndpoint,
    Plant,
    PlantChange,
    Recovery,
    StoredPlant,
    WebhookEndpointChange,
)
from sqlalchemy import create_engine

from app.webhooks.tables.deliveries import deliveries
from support.tokens import TOKEN

pytestmark = pytest.mark.e2e

# The keys of a path item that are operations (it may hold parameters and a summary too).
METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}
NEXT = re.compile(r'<([^>]+)>;\s*rel="next"')
# BASIL is stored before each error case; OTHER_BASIL, its id with another name, conflicts.
BASIL = NewPlant(id=21, name="Basil")
OTHER_BASIL = NewPlant(id=21, name="Sweet basil")


@pytest.fixture(scope="module")
def server(module_live_server, module_database_url):
    """One gunicorn that every test of the module shares, on each backend."""
    return module_live_server(module_database_url)


@pytest.fixture(scope="module")
def base_url(server):
    """The URL of the shared gunicorn."""
    return f"http://127.0.0.1:{server.port}"


@pytest.fixture(scope="module")
def admin_token(server):
    """An admin token, issued as an operator does, for /webhooks."""
    return server.cli("tokens", "create", "client e2e", "--admin").splitlines()[-1]


@pytest.fixture
def answered():
    """(method, path, status) of every answer that the clients below received."""
    return []


@pytest.fixture
def clients(base_url, admin_token, answered):
    """Clients of the server that record their answers: public (no token), read_write (the
    read-write token), admin (an admin token) and wrong (a token the service does not know)."""

    def record(response):
        answered.append((response.request.method, response.request.url.path, response.status_code))

    options = {"base_url": base_url, "timeout": httpx.Timeout(30)}
    options["httpx_args"] = {"event_hooks": {"response": [record]}}
    with (
        Client(**options) as public,
        AuthenticatedClient(token=TOKEN, **options) as read_write,
        AuthenticatedClient(token=admin_token, **options) as admin,
        AuthenticatedClient(token="not-a-token-of-this-service", **options) as wrong,
    ):
        yield SimpleNamespace(public=public, read_write=read_write, admin=admin, wrong=wrong)


def test_every_operation_of_the_document_succeeds_through_the_client(
    clients, answered, base_url, module_database_url
):
    public, client = clients.public, clients.read_write
    document = openapi_document.sync(client=public).to_dict()
    assert document["servers"] == [{"url": base_url}]
    assert healthz.sync(client=public).status == "ok"
    assert livez.sync(client=public).status == "ok"

    plant = NewPlant(id=10, name="Monstera", tag="tropical")
    assert create_plant.sync(client=client, body=plant) == Plant(name="Monstera", tag="tropical")
    stored = StoredPlant(id=10, name="Monstera", tag="tropical")
    assert stored in list_plants.sync(client=client, limit=1000)
    read = get_plant.sync_detailed(10, client=client)
    assert read.parsed == stored
    change = PlantChange(name="Swiss cheese plant", tag=None)
    changed = update_plant.sync_detailed(
        10, client=client, body=change, if_match=read.headers["ETag"]
    )
    assert changed.parsed == StoredPlant(id=10, name="Swiss cheese plant")
    gone = delete_plant.sync_detailed(10, client=client, if_match=changed.headers["ETag"])
    assert gone.status_code == 204
    _drive_events(client)
    _drive_webhooks(clients.admin, module_database_url)

    missed = sorted(
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in METHODS & set(item)
        if not _succeeded(method, path, answered)
    )
    assert not missed, f"operations this test never drove through the client: {missed}"


def _drive_events(client):
    """GET /events through the typed client: the changes to plant 10 above, in order; and
    GET /event-types, whose types are theirs, in the same order."""
    types = "plant.created,plant.updated,plant.deleted"
    page = list_events.sync_detailed(client=client, types=types, limit=1000)
    assert 'rel="next"' in page.headers["Link"]
    mine = [event for event in page.parsed if event.data.additional_properties.get("id") == 10]
    assert [event.type_ for event in mine] == [
        EventType.PLANT_CREATED,
        EventType.PLANT_UPDATED,
        EventType.PLANT_DELETED,
    ]
    assert mine[-1].data.additional_properties == {"id": 10, "name": "Swiss cheese plant"}
    assert mine[0].created_at.utcoffset() == datetime.timedelta(0)
    catalog = list_event_types.sync(client=client)
    assert [entry.type_ for entry in catalog] == [event.type_ for event in mine]
    schema = catalog[-1].schema.additional_properties
    assert set(schema["properties"]) == set(mine[-1].data.additional_properties) | {"tag"}


def _drive_webhooks(admin, database_url):
    """Every /webhooks operation once, each a success, through the typed client."""
    new = NewWebhookEndpoint(url="https://nowhere.invalid/e2e", events=[EventType.PLANT_CREATED])
    created = create_webhook_endpoint.sync(client=admin, body=new)
    assert isinstance(created, CreatedWebhookEndpoint) and created.secret.startswith("whsec_")
    endpoint = created.id
    assert get_webhook_endpoint.sync(endpoint, client=admin).events == [EventType.PLANT_CREATED]
    assert endpoint in [each.id for each in list_webhook_endpoints.sync(client=admin, limit=1000)]
    change = WebhookEndpointChange(description="through the client")
    changed = update_webhook_endpoint.sync(endpoint, client=admin, body=change)
    assert changed.description == "through the client"
    assert rotate_webhook_secret.sync(endpoint, client=admin).secret != created.secret
    delivery = _failed_delivery(database_url, endpoint)
    (logged,) = list_deliveries.sync(endpoint, client=admin)
    assert (logged.id, logged.status.value, logged.next_attempt_at) == (delivery, "failed", None)
    assert resend_delivery.sync_detailed(endpoint, delivery, client=admin).status_code == 202
    since = Recovery(since=datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC))
    assert recover_deliveries.sync_detailed(endpoint, client=admin, body=since).status_code == 202
    assert delete_webhook_endpoint.sync_detailed(endpoint, client=admin).status_code == 204


def _failed_delivery(database_url, endpoint):
    """Write a failed delivery to endpoint in the server's database (no worker runs); its id."""
    at = datetime.datetime.now(datetime.UTC)
    row = {
        "id": uuid.uuid4().hex,
        "receiver": endpoint,
        "event_type": "plant.created",
        "body": "{}",
    }
    row.update(status="failed", attempts=3, created_at=at, next_attempt_at=at)
    engine = create_engine(database_url)
    with engine.begin() as conn:
        conn.execute(deliveries.insert(), row)
    engine.dispose()
    return row["id"]


def _succeeded(method, template, answered):
    # A path template's {variables} match any one segment.
    pattern = "/".join(
        "[^/]+" if part.startswith("{") else re.escape(part) for part in template.split("/")
    )
    return any(
        answer_method == method.upper() and re.fullmatch(pattern, path) and 200 <= status < 300
        for answer_method, path, status in answered
    )


@pytest.mark.parametrize(
    ("status", "call"),
    [
        (404, lambda clients: get_plant.sync(20, client=clients.read_write)),
        (404, lambda clients: delete_plant.sync(20, client=clients.read_write)),
        (404, lambda clients: update_plant.sync(20, client=clients.read_write, body=PlantChange())),
        (
            412,
            lambda clients: update_plant.sync(
                21, client=clients.read_write, body=PlantChange(name="Mint"), if_match='"stale"'
            ),
        ),
        (409, lambda clients: create_plant.sync(client=clients.read_write, body=OTHER_BASIL)),
        (400, lambda clients: list_plants.sync(client=clients.read_write, limit=0)),
        (401, lambda clients: list_plants.sync(client=clients.wrong)),
        (400, lambda clients: list_events.sync(client=clients.read_write, after="nope")),
        (401, lambda clients: list_events.sync(client=clients.wrong)),
        (403, lambda clients: list_webhook_endpoints.sync(client=clients.read_write)),
        (404, lambda clients: get_webhook_endpoint.sync("ep_nobody", client=clients.admin)),
    ],
    ids=[
        "get missing",
        "delete missing",
        "change missing",
        "change a stale version",
        "create conflicting",
        "list limit 0",
        "wrong token",
        "events after no event",
        "events with a wrong token",
        "webhooks without admin",
        "missing endpoint",
    ],
)
def test_errors_arrive_as_the_typed_error(clients, status, call):
    assert create_plant.sync(client=clients.read_write, body=BASIL) == Plant(name="Basil")
    error = call(clients)
    assert isinstance(error, Error)
    assert error.error == status
    assert error.message


def test_pages_are_followed_through_the_link_header(clients, base_url):
    client = clients.read_write
    ids = list(range(101, 106))
    for plant_id in ids:
        create_plant.sync(client=client, body=NewPlant(id=plant_id, name=f"plant {plant_id}"))
    pages, query = [], {"limit": 2, "after": 100}
    while query is not None:
        response = list_plants.sync_detailed(client=client, **query)
        pages.append([plant.id for plant in response.parsed])
        query = _next_page(response, base_url)
    assert pages == [ids[0:2], ids[2:4], ids[4:5]]


def _next_page(response, base_url):
    """The query of the page that the Link header names next; None on the last page."""
    found = NEXT.search(response.headers.get("Link", ""))
    if found is None:
        return None
    url = urlsplit(found[1])
    assert f"{url.scheme}://{url.netloc}{url.path}" == f"{base_url}/plants"
    return {name: int(value) for name, value in parse_qsl(url.query)}
