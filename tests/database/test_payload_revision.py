"""The payload revision: an endpoint registered before it keeps the body it was getting, so that
an upgrade changes no receiver's bytes, delivered over real HTTP after the upgrade."""

from app import database
from harness.processes import wait_for
from support.in_process import running
from support.live_endpoints import ENDPOINT_SETTINGS
from support.tokens import issue_admin_token

PAYLOAD_REVISION = "46667d35e13b"


def test_an_endpoint_from_before_the_payload_revision_keeps_plant_bodies(
    make_app, cli, make_receiver
):
    receiver = make_receiver()
    app = make_app(**ENDPOINT_SETTINGS)
    client, headers = app.test_client(), issue_admin_token(app)
    endpoint = client.post("/webhooks", json={"url": receiver.url}, headers=headers).get_json()
    receiver.verify_with(endpoint["secret"])
    database.of(app).dispose()
    # The schema as it was before the revision, the endpoint in it; then the upgrade.
    assert cli("db", "downgrade", f"{PAYLOAD_REVISION}-1").exit_code == 0
    result = cli("db", "upgrade")
    assert result.exit_code == 0, result.output
    del endpoint["secret"]
    shown = client.get(f"/webhooks/{endpoint['id']}", headers=headers).get_json()
    assert shown == {**endpoint, "payload": "plant"}
    created = client.post("/plants", json={"id": 1, "name": "Fern"}, headers=headers)
    assert created.status_code == 200
    with running(app):
        wait_for(lambda: receiver.requests, 10, "the delivery")
    ((_, body),) = receiver.requests
    assert body == b'{"name":"Fern","id":1}'
