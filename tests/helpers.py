"""What test modules share beside fixtures: the tokens, and the Error shape's check."""

from app import database
from app.auth import ADMIN
from app.tokens import store as token_store
from app.tokens.lookup import token_hash

TOKEN = "test-read-write-token-0123456789abcdef"
# Issued in the test database by admin_headers: a static token is read-write only.
ADMIN_TOKEN = "pst_test-admin-token-0123456789abcdef"


def issue_admin_token(app):
    """Issue ADMIN_TOKEN in app's database; the headers of a request that presents it."""
    token_store.create(database.of(app), "test admin", token_hash(ADMIN_TOKEN), ADMIN, None)
    return {"Authorization": f"Bearer {ADMIN_TOKEN}"}


def assert_error(response, status):
    """Assert that a test-client response is the Error shape for status; return its message."""
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) == {"error", "message"}
    assert body["error"] == status
    assert isinstance(body["message"], str) and body["message"]
    return body["message"]
