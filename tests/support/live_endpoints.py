"""What the end-to-end tests of webhook endpoints share: an admin token, and the /webhooks API
of a live server."""

import secrets

from app import create_app, database
from app.auth import ADMIN
from app.tokens import store as token_store
from app.tokens.lookup import token_hash

# Retrying fast, reaching the receivers of the tests on 127.0.0.1.
ENDPOINT_SETTINGS = {
    "WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
    "WEBHOOK_MAX_ATTEMPTS": 3,
    "WEBHOOK_RETRY_DELAY": 0.1,
    "WEBHOOK_RETRY_MAX_DELAY": 0.2,
    "WEBHOOK_TIMEOUT": 1,
    "WEBHOOK_POLL_INTERVAL": 0.05,
}


def issue_admin_token(database_url):
    """A new admin token in the database at database_url, as `tokens create --admin` makes."""
    app = create_app({"DATABASE_URL": database_url})
    token = "pst_" + secrets.token_urlsafe(32)
    db = database.of(app)
    token_store.create(db, f"admin-{secrets.token_hex(4)}", token_hash(token), ADMIN, None)
    db.dispose()
    return token


class Admin:
    """The /webhooks API of a live server, called with an admin token; each call asserts its
    success status."""

    def __init__(self, server, token):
        self.server = server
        self.token = token

    def call(self, method, path, body=None, expected=200):
        """One request; the response, its status checked."""
        response = self.server.request(method, path, body, token=self.token)
        assert response.status == expected, (response.status, response.body)
        return response

    def register(self, url, **fields):
        """POST /webhooks; the new endpoint, its secret included."""
        return self.call("POST", "/webhooks", {"url": url, **fields}, 201).json()

    def subscribe(self, receiver, **fields):
        """register() receiver's URL; the new endpoint, whose secret the receiver now verifies
        every request with."""
        endpoint = self.register(receiver.url, **fields)
        receiver.verify_with(endpoint["secret"])
        return endpoint

    def patch(self, endpoint_id, **fields):
        """PATCH /webhooks/{id}; the endpoint as it now is."""
        return self.call("PATCH", f"/webhooks/{endpoint_id}", fields).json()

    def get(self, endpoint_id):
        """GET /webhooks/{id}."""
        return self.call("GET", f"/webhooks/{endpoint_id}").json()

    def rotate(self, endpoint_id):
        """POST /webhooks/{id}/secret; the new secret."""
        return self.call("POST", f"/webhooks/{endpoint_id}/secret").json()["secret"]

    def deliveries(self, endpoint_id, query=""):
        """GET /webhooks/{id}/deliveries, newest first."""
        return self.call("GET", f"/webhooks/{endpoint_id}/deliveries{query}").json()

    def newest(self, endpoint_id):
        """The endpoint's newest delivery, or {} while it has none."""
        log = self.deliveries(endpoint_id, "?limit=1")
        return log[0] if log else {}

    def resend(self, endpoint_id, delivery_id):
        """POST .../deliveries/{delivery_id}/resend."""
        path = f"/webhooks/{endpoint_id}/deliveries/{delivery_id}/resend"
        return self.call("POST", path, expected=202)

    def recover(self, endpoint_id, since):
        """POST /webhooks/{id}/recover with since."""
        return self.call("POST", f"/webhooks/{endpoint_id}/recover", {"since": since}, 202)

    def delete(self, endpoint_id):
        """DELETE /webhooks/{id}."""
        return self.call("DELETE", f"/webhooks/{endpoint_id}", expected=204)


def statuses(deliveries):
    """The status of each delivery of a log, newest first."""
    return [delivery["status"] for delivery in deliveries]
