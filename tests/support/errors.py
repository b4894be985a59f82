"""The check of the Error shape that every error answer has."""


def assert_error(response, status):
    """Assert that a test-client response is the Error shape for status; return its message."""
    assert response.status_code == status
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert set(body) == {"error", "message"}
    assert body["error"] == status
    assert isinstance(body["message"], str) and body["message"]
    return body["message"]
