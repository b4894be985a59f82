"""What the /webhooks API tests share: registering endpoints, and deliveries rows written and
read straight in the app's database (state to start from, not a stand-in for it)."""

import datetime
import json
import re
import uuid

from sqlalchemy import select, update

from app import database
from app.database import utcnow
from app.webhooks.tables.deliveries import deliveries

# A host that never resolves (RFC 6761), so that the address rule accepts it.
URL = "https://nowhere.invalid/hooks"
# What the guard says of an address it refuses, after the address: the setting that allows one.
NOT_PUBLIC = "is not a public address, nor in PLANTSTORE_WEBHOOK_ALLOWED_NETWORKS"
LINK = re.compile(r'<(?P<url>[^>]+)>; rel="next"')
T0 = datetime.datetime(2026, 1, 1, 12, 0, tzinfo=datetime.UTC)


def register(client, headers, **body):
    """POST /webhooks with body (url defaults to URL); the created endpoint, secret included."""
    response = send(client, "POST", "/webhooks", headers, {"url": URL, **body})
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def send(client, method, path, headers, body=None):
    """A request with a JSON body written by the json module, which keeps lone surrogates."""
    data = None if body is None else json.dumps(body)
    return client.open(
        path, method=method, data=data, content_type="application/json", headers=headers
    )


def add_delivery(app, receiver, status="failed", created_at=T0, **columns):
    """Write one deliveries row of receiver; its id."""
    row = {
        "id": uuid.uuid4().hex,
        "receiver": receiver,
        "event_type": "plant.created",
        "body": '{"id":1,"name":"Fern"}',
        "status": status,
        "attempts": 3,
        "created_at": created_at,
        "next_attempt_at": created_at + datetime.timedelta(minutes=5),
        **columns,
    }
    db = database.of(app)
    with db.engine.begin() as conn:
        conn.execute(deliveries.insert(), row)
    return row["id"]


def delivery_rows(app, receiver=None):
    """Every deliveries row (of receiver, if given) by id, each as a dict."""
    query = select(deliveries)
    if receiver is not None:
        query = query.where(deliveries.c.receiver == receiver)
    with database.of(app).engine.connect() as conn:
        return {row.id: row._asdict() for row in conn.execute(query)}


def pages(client, headers, url):
    """Follow the Link header from url; the items of each page, and the next URLs seen."""
    found, links = [], []
    while url is not None:
        response = client.get(url, headers=headers)
        assert response.status_code == 200, response.get_json()
        found.append(response.get_json())
        link = LINK.fullmatch(response.headers.get("Link", ""))
        url = link["url"] if link else None
        if url:
            links.append(url)
    return found, links


def lease_ends(app, delivery_id):
    """Move the delivery's lease into the past, as its worker's death leaves it once it ends."""
    past = utcnow() - datetime.timedelta(seconds=1)
    statement = update(deliveries).where(deliveries.c.id == delivery_id)
    with database.of(app).engine.begin() as conn:
        conn.execute(statement.values(claimed_until=past))
