"""The tokens of the tests: the static read-write one, and an admin and a read-only one issued
in a database."""

from app import database
from app.auth import ADMIN, READ_ONLY
from app.tokens import store as token_store
from app.tokens.lookup import token_hash

TOKEN = "test-read-write-token-0123456789abcdef"
# Issued in the test database by admin_headers: a static token is read-write only.
ADMIN_TOKEN = "pst_test-admin-token-0123456789abcdef"
READ_ONLY_TOKEN = "pst_test-read-only-token-0123456789"


def issue_admin_token(app):
    """Issue ADMIN_TOKEN in app's database; the headers of a request that presents it."""
    return _issue(app, "test admin", ADMIN_TOKEN, ADMIN)


def issue_read_only_token(app):
    """Issue READ_ONLY_TOKEN in app's database; the headers of a request that presents it."""
    return _issue(app, "test reader", READ_ONLY_TOKEN, READ_ONLY)


def _issue(app, name, token, scope):
    token_store.create(database.of(app), name, token_hash(token), scope, None)
    return {"Authorization": f"Bearer {token}"}
