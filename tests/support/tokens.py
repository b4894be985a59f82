"""The tokens of the tests: the static read-write one, and an admin one issued in a database."""

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
