"""Problem Details when asked for: the contract's 'Every response' section, every error the
service answers, in RFC 9457's shape for a client whose Accept prefers it, and in the seed's
Error shape for any other."""

import time

import pytest

from support.errors import assert_error

PROBLEM = {"Accept": "application/problem+json"}
# Longest an in-process answer of a failure may take (the database and the counter store here
# refuse at once).
BOUND = 2.0


def assert_problem(response, status, title):
    """Assert that response is Problem Details for status; return its body."""
    assert response.status_code == status
    assert response.headers["Content-Type"] == "application/problem+json"
    assert "Accept" in response.headers["Vary"]
    body = response.get_json(force=True)
    assert body["type"] == "about:blank"
    assert (body["title"], body["status"]) == (title, status)
    assert body["detail"]
    return body


@pytest.fixture
def asked(client, auth_headers):
    """Send a request twice, as Problem Details and without Accept; return both answers."""

    def send(method, path, headers=None, **kwargs):
        headers = {**auth_headers, **(headers or {})}
        plain = client.open(path, method=method, headers=headers, **kwargs)
        problem = client.open(path, method=method, headers={**headers, **PROBLEM}, **kwargs)
        assert problem.status_code == plain.status_code
        assert problem.get_json(force=True)["detail"] == assert_error(plain, plain.status_code)
        return plain, problem

    return send


@pytest.mark.backend_independent
def test_body_fields_are_errors_with_json_pointers(asked):
    plain, problem = asked("POST", "/plants", json={"id": "1", "name": ""})
    body = assert_problem(problem, 400, "Bad Request")
    assert body["errors"] == [
        {"detail": "Not a valid integer.", "pointer": "#/id"},
        {"detail": "Length must be between 1 and 255.", "pointer": "#/name"},
    ]
    message = "id: Not a valid integer. name: Length must be between 1 and 255."
    assert plain.data == b'{"error":400,"message":"' + message.encode() + b'"}'


@pytest.mark.backend_independent
def test_a_pointer_escapes_as_rfc_6901_says(client, admin_headers):
    body = {"url": "https://example.com/hook", "a/b~c d": 1}
    answer = client.post("/webhooks", json=body, headers={**admin_headers, **PROBLEM})
    problem = assert_problem(answer, 400, "Bad Request")
    assert problem["errors"] == [{"detail": "Unknown field.", "pointer": "#/a~1b~0c%20d"}]


@pytest.mark.backend_independent
def test_query_parameters_are_errors_by_name(asked):
    _, problem = asked("GET", "/plants?limit=0&after=x&after=y")
    body = assert_problem(problem, 400, "Bad Request")
    assert body["errors"] == [{"detail": "Must be given at most once.", "parameter": "after"}]
    _, problem = asked("GET", "/plants?limit=0&after=x")
    names = [item["parameter"] for item in assert_problem(problem, 400, "Bad Request")["errors"]]
    assert names == ["after", "limit"]


@pytest.mark.backend_independent
def test_a_path_variable_is_a_parameter(asked):
    _, problem = asked("GET", "/plants/x")
    body = assert_problem(problem, 400, "Bad Request")
    assert body["errors"] == [{"detail": "Not a valid integer.", "parameter": "id"}]


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "data", [b"{", b"", b"[]"], ids=["malformed JSON", "empty body", "not an object"]
)
def test_a_400_that_names_no_field_has_no_errors(asked, data):
    _, problem = asked("POST", "/plants", data=data, content_type="application/json")
    assert "errors" not in assert_problem(problem, 400, "Bad Request")


@pytest.mark.backend_independent
def test_401_keeps_its_challenge(client):
    headers = {"Authorization": "Bearer nope", **PROBLEM}
    response = client.post("/plants", json={"id": 1, "name": "Fern"}, headers=headers)
    assert_problem(response, 401, "Unauthorized")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")


@pytest.mark.backend_independent
def test_403_of_a_read_only_token(client, read_only_headers):
    headers = {**read_only_headers, **PROBLEM}
    response = client.post("/plants", json={"id": 1, "name": "Fern"}, headers=headers)
    assert assert_problem(response, 403, "Forbidden")["detail"] == "This token is read-only."


@pytest.mark.backend_independent
def test_404_of_a_path_and_of_a_plant(asked):
    _, problem = asked("GET", "/nothing")
    assert assert_problem(problem, 404, "Not Found")["detail"] == "There is nothing at this path."
    _, problem = asked("GET", "/plants/404")
    assert assert_problem(problem, 404, "Not Found")["detail"] == "There is no plant with this id."


@pytest.mark.backend_independent
def test_405_keeps_its_allow(asked):
    plain, problem = asked("PUT", "/plants")
    body = assert_problem(problem, 405, "Method Not Allowed")
    assert body["detail"].startswith("The method PUT is not allowed here")
    assert problem.headers["Allow"] == plain.headers["Allow"]


@pytest.mark.backend_independent
def test_409_of_another_plant_under_the_id(asked, client, auth_headers):
    client.post("/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers)
    _, problem = asked("POST", "/plants", json={"id": 1, "name": "Ivy"})
    assert_problem(problem, 409, "Conflict")


@pytest.mark.backend_independent
def test_412_of_a_stale_version(asked, client, auth_headers):
    client.post("/plants", json={"id": 1, "name": "Fern"}, headers=auth_headers)
    stale = {"If-Match": '"0"', "Content-Type": "application/merge-patch+json"}
    _, problem = asked("PATCH", "/plants/1", headers=stale, data=b'{"name": "Ivy"}')
    assert_problem(problem, 412, "Precondition Failed")


@pytest.mark.backend_independent
def test_413_names_the_limit_and_its_setting(asked):
    _, problem = asked("POST", "/plants", json={"id": 1, "name": "x" * 70_000})
    detail = assert_problem(problem, 413, "Content Too Large")["detail"]
    assert "65536 bytes" in detail and "PLANTSTORE_MAX_CONTENT_LENGTH" in detail


@pytest.mark.backend_independent
def test_415_of_a_body_that_is_not_json(asked):
    _, problem = asked("POST", "/plants", data=b"{}", content_type="text/plain")
    assert_problem(problem, 415, "Unsupported Media Type")


@pytest.mark.backend_independent
def test_429_keeps_retry_after_and_the_rate_limit_headers(make_app, auth_headers):
    client = make_app(RATE_LIMIT="1 per day").test_client()
    client.get("/plants", headers=auth_headers)
    plain = client.get("/plants", headers=auth_headers)
    problem = client.get("/plants", headers={**auth_headers, **PROBLEM})
    assert_error(plain, 429)
    assert_problem(problem, 429, "Too Many Requests")
    for name in ("Retry-After", "X-RateLimit-Limit", "X-RateLimit-Remaining"):
        assert problem.headers[name] == plain.headers[name]


@pytest.mark.backend_independent
def test_503_of_a_database_that_does_not_answer_says_when_to_come_back(
    unreachable_app, auth_headers
):
    client = unreachable_app.test_client()
    for headers in (auth_headers, {**auth_headers, **PROBLEM}):
        started = time.monotonic()
        response = client.get("/plants", headers=headers)
        assert time.monotonic() - started < BOUND
        assert response.status_code == 503
        assert int(response.headers["Retry-After"]) >= 1
    assert assert_problem(response, 503, "Service Unavailable")["detail"] == "database unavailable"


@pytest.mark.backend_independent
def test_503_of_a_closed_rate_limit_store_says_when_to_come_back(make_app, auth_headers):
    client = make_app(
        RATE_LIMIT="1 per day",
        RATE_LIMIT_STORAGE_URL="redis://127.0.0.1:1",
        RATE_LIMIT_FAIL="closed",
    ).test_client()
    started = time.monotonic()
    response = client.get("/plants", headers={**auth_headers, **PROBLEM})
    assert time.monotonic() - started < BOUND
    assert_problem(response, 503, "Service Unavailable")
    assert int(response.headers["Retry-After"]) >= 1


@pytest.mark.backend_independent
def test_500_says_no_more_than_the_error_shape(make_app):
    app = make_app()

    @app.get("/boom")
    def boom():
        raise RuntimeError("secret detail from deep inside")

    response = app.test_client().get("/boom", headers=PROBLEM)
    body = assert_problem(response, 500, "Internal Server Error")
    assert body["detail"] == "internal server error" and b"secret" not in response.data


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "accept",
    [
        "application/problem+json, application/json",
        "*/*",
        "application/*",
        "text/html",
        "application/json",
        "application/json, application/problem+json;q=0.9",
        "application/problem+json;q=0",
    ],
)
def test_the_error_shape_wins_unless_problem_details_are_preferred(client, accept):
    response = client.get("/nothing", headers={"Accept": accept})
    assert response.data == b'{"error":404,"message":"There is nothing at this path."}'
    assert response.headers["Content-Type"] == "application/json"
    assert response.headers["Vary"] == "Accept"


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "accept",
    ["application/problem+json;q=0.9, application/json;q=0.8", "application/json;q=0.5, */*"],
)
def test_problem_details_preferred_by_q(client, accept):
    assert_problem(client.get("/nothing", headers={"Accept": accept}), 404, "Not Found")


@pytest.mark.backend_independent
def test_a_success_is_not_changed_by_asking_for_problem_details(client, auth_headers):
    response = client.get("/plants", headers={**auth_headers, **PROBLEM})
    assert response.status_code == 200
    assert response.headers["Content-Type"] == "application/json"
