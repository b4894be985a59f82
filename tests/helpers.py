"""What test modules share beside fixtures: the tokens, and the Error shape's check."""

TOKEN = "test-read-write-token-0123456789abcdef"
# Issued in the test database by the admin_headers fixture: a static token is read-write only.
ADMIN_TOKEN = "pst_test-admin-token-0123456789abcdef"


def assert_error(response, status):
    """Assert that a test-client response is the Error shape for status; return its message."""
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) == {"error", "message"}
    assert body["error"] == status
    assert isinstance(body["message"], str) and body["message"]
    return body["message"]
