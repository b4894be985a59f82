"""GET /openapi.json: its content, two linters' verdict, and schemathesis against the service."""

import json
import os
import re
import subprocess

import hypothesis
import pytest
import schemathesis
from openapi_spec_validator import validate
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app import create_app
from app.ratelimit import ANSWER_HEADERS as RATE_LIMIT_HEADERS
from harness.processes import ROOT

FORWARDED = {
    "X-Forwarded-Proto": "https",
    "X-Forwarded-Host": "shop.example",
    "X-Forwarded-Prefix": "/store",
}

api = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def api_schema(app):
    """The service's own document, loaded by schemathesis against the WSGI app."""
    schema = schemathesis.openapi.from_wsgi("/openapi.json", app)

    @schema.hook
    def map_body(context, body):
        # JSON Schema 2020-12 counts 2.0 as an integer; the contract refuses it (test_create).
        if isinstance(body, dict) and isinstance(body.get("id"), float) and body["id"].is_integer():
            return {**body, "id": int(body["id"])}
        return body

    return schema


@pytest.mark.backend_independent
def test_document_is_valid_openapi_3_1(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    validate(document)
    assert document["openapi"] == "3.1.0"
    assert document["info"]["version"] == "1.0.0"
    assert document["info"]["license"]["name"] == "MIT"
    assert document["info"]["contact"]
    assert document["security"] == [{"bearerAuth": []}]
    scheme = document["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")


@pytest.mark.backend_independent
def test_document_carries_the_limits_the_service_enforces(client):
    document = client.get("/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    assert set(schemas) == {
        "Plant",
        "NewPlant",
        "StoredPlant",
        "PlantChange",
        "Error",
        "Problem",
        "ProblemItem",
        "NewWebhookEndpoint",
        "WebhookEndpointChange",
        "WebhookEndpoint",
        "CreatedWebhookEndpoint",
        "NewWebhookSecret",
        "Delivery",
        "Recovery",
        "WebhookPayload",
        "EventType",
        "Event",
        "CatalogEntry",
        # Each webhook's body under each payload: plant, event, thin.
        *(
            f"Plant{change}{payload}"
            for change in ("Created", "Updated", "Deleted")
            for payload in ("Data", "Event", "ThinEvent")
        ),
    }
    new_plant = schemas["NewPlant"]
    assert new_plant["required"] == ["id", "name"]
    assert new_plant["properties"]["id"]["format"] == "int64"
    assert new_plant["properties"]["id"]["minimum"] == -(2**63)
    assert new_plant["properties"]["id"]["maximum"] == 2**63 - 1
    assert new_plant["properties"]["name"]["minLength"] == 1
    assert new_plant["properties"]["name"]["maxLength"] == 255
    assert new_plant["properties"]["tag"]["maxLength"] == 255
    # The service refuses a NUL in a name or a tag: a schema-valid body never holds one.
    for shape in ("NewPlant", "PlantChange", "Plant"):
        for text in ("name", "tag"):
            assert schemas[shape]["properties"][text]["pattern"] == "^[^\\x00]*$", (shape, text)
    assert "id" not in schemas["Plant"]["properties"]
    assert schemas["Plant"]["additionalProperties"] is False
    assert schemas["Error"]["required"] == ["error", "message"]
    limit = document["paths"]["/plants"]["get"]["parameters"][0]
    assert (limit["name"], limit["schema"]["minimum"], limit["schema"]["maximum"]) == (
        "limit",
        1,
        1000,
    )


@pytest.mark.backend_independent
def test_webhook_endpoints_carry_the_limits_the_service_enforces(client):
    document = client.get("/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    new = schemas["NewWebhookEndpoint"]
    assert new["required"] == ["url"]
    assert new["additionalProperties"] is False
    assert new["properties"]["url"]["maxLength"] == 2048
    assert new["properties"]["description"]["maxLength"] == 255
    rate = new["properties"]["throttle_rate"]
    assert (rate["type"], rate["minimum"], rate["maximum"]) == (["integer", "null"], 1, 10000)
    events = new["properties"]["events"]
    assert (events["type"], events["minItems"]) == ("array", 1)
    assert events["items"] == {"$ref": "#/components/schemas/EventType"}
    assert schemas["EventType"]["enum"] == ["plant.created", "plant.updated", "plant.deleted"]
    assert set(schemas["EventType"]["enum"]) == set(document["webhooks"])
    # One type of payload, wherever an endpoint's shape has it.
    assert schemas["WebhookPayload"]["enum"] == ["plant", "event", "thin"]
    for shape in ("NewWebhookEndpoint", "WebhookEndpointChange", "WebhookEndpoint"):
        payload = schemas[shape]["properties"]["payload"]
        assert payload["$ref"] == "#/components/schemas/WebhookPayload", shape
    assert new["properties"]["payload"]["default"] == "event"
    assert "required" not in schemas["WebhookEndpointChange"]
    assert "secret" not in schemas["WebhookEndpoint"]["properties"]
    assert "secret" in schemas["CreatedWebhookEndpoint"]["properties"]
    delivery = schemas["Delivery"]["properties"]
    assert delivery["status"]["enum"] == ["pending", "delivered", "failed"]
    assert delivery["next_attempt_at"]["type"] == ["string", "null"]
    assert schemas["Recovery"]["properties"]["since"]["format"] == "date-time"
    created = document["paths"]["/webhooks"]["post"]["responses"]["201"]
    assert "Location" in created["headers"]


@pytest.mark.backend_independent
def test_webhook_posts_a_new_plant_with_its_signature_headers(client):
    webhooks = client.get("/openapi.json").get_json()["webhooks"]
    assert list(webhooks) == ["plant.created", "plant.deleted", "plant.updated"]
    post = webhooks["plant.created"]["post"]
    body = post["requestBody"]["content"]["application/json"]
    names = ["PlantCreatedData", "PlantCreatedEvent", "PlantCreatedThinEvent"]
    assert body["schema"] == {"anyOf": [{"$ref": f"#/components/schemas/{n}"} for n in names]}
    assert {param["name"]: (param["in"], param["required"]) for param in post["parameters"]} == {
        "X-Plantstore-Event": ("header", True),
        "X-Plantstore-Delivery": ("header", True),
        "Plantstore-Event-Id": ("header", True),
        "X-Plantstore-Signature": ("header", True),
        "webhook-id": ("header", True),
        "webhook-timestamp": ("header", True),
        "webhook-signature": ("header", True),
    }
    assert "2XX" in post["responses"]


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/plants", "post", {200, 400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503}),
        ("/plants", "get", {200, 400, 401, 404, 405, 429, 500, 503}),
        ("/plants/{id}", "get", {200, 304, 400, 401, 404, 405, 429, 500, 503}),
        (
            "/plants/{id}",
            "patch",
            {200, 400, 401, 403, 404, 405, 412, 413, 415, 429, 500, 503},
        ),
        ("/plants/{id}", "delete", {204, 400, 401, 403, 404, 405, 412, 429, 500, 503}),
        ("/webhooks", "post", {201, 400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503}),
        ("/webhooks", "get", {200, 400, 401, 403, 404, 405, 429, 500, 503}),
        ("/webhooks/{id}", "get", {200, 400, 401, 403, 404, 405, 429, 500, 503}),
        ("/webhooks/{id}", "patch", {200, 400, 401, 403, 404, 405, 413, 415, 429, 500, 503}),
        ("/webhooks/{id}", "delete", {204, 400, 401, 403, 404, 405, 429, 500, 503}),
        ("/webhooks/{id}/secret", "post", {200, 400, 401, 403, 404, 405, 429, 500, 503}),
        ("/webhooks/{id}/deliveries", "get", {200, 400, 401, 403, 404, 405, 429, 500, 503}),
        (
            "/webhooks/{id}/deliveries/{delivery_id}/resend",
            "post",
            {202, 400, 401, 403, 404, 405, 409, 429, 500, 503},
        ),
        (
            "/webhooks/{id}/recover",
            "post",
            {202, 400, 401, 403, 404, 405, 409, 413, 415, 429, 500, 503},
        ),
        ("/events", "get", {200, 400, 401, 404, 405, 410, 429, 500, 503}),
        ("/event-types", "get", {200, 401, 404, 405, 429, 500, 503}),
        ("/healthz", "get", {200, 404, 405, 500, 503}),
        ("/openapi.json", "get", {200, 404, 405, 500}),
    ],
)
def test_every_status_an_operation_gives_is_documented(client, path, method, statuses):
    document = client.get("/openapi.json").get_json()
    responses = document["paths"][path][method]["responses"]
    assert set(responses) == {str(status) for status in statuses}
    for status in statuses - {200, 201, 202, 204, 304}:
        response = responses[str(status)]
        # Rate limited: each answer has the headers.
        if path.startswith(("/plants", "/webhooks", "/events", "/event-types")):
            assert {*RATE_LIMIT_HEADERS, "Retry-After"} & set(response["headers"]) == (
                set(RATE_LIMIT_HEADERS) if status != 405 else set()
            ) | ({"Retry-After"} if status in (429, 503) else set())
        else:
            assert response == {"$ref": f"#/components/responses/{status}"}
            response = document["components"]["responses"][str(status)]
        error = response["content"]["application/json"]
        assert error["schema"] == {"$ref": "#/components/schemas/Error"}
        assert error["example"]["error"] == status


# The messages the contract fixes word for word; every other is a sentence.
WORD_FOR_WORD = {"database unavailable", "internal server error"}


@pytest.mark.backend_independent
def test_every_error_names_both_shapes_and_every_503_its_retry_after(client):
    document = client.get("/openapi.json").get_json()
    shared = document["components"]["responses"]
    for item in document["paths"].values():
        for operation in item.values():
            for status, answer in operation["responses"].items():
                answer = shared[status] if "$ref" in answer else answer
                if int(status) >= 400:
                    content = answer["content"]
                    assert content["application/json"]["schema"]["$ref"].endswith("/Error")
                    problem = content["application/problem+json"]
                    assert problem["schema"]["$ref"].endswith("/Problem")
                    assert problem["example"]["status"] == int(status)
                    message = content["application/json"]["example"]["message"]
                    assert message.endswith(".") or message in WORD_FOR_WORD, message
                if status == "503":
                    assert "Retry-After" in answer["headers"]


@pytest.mark.backend_independent
@pytest.mark.parametrize(("path", "method"), [("/plants", "post"), ("/plants/{id}", "delete")])
def test_rate_limit_headers_are_declared_on_every_answer_of_a_plants_operation(
    client, path, method
):
    document = client.get("/openapi.json").get_json()
    success = document["paths"][path][method]["responses"]["200" if method == "post" else "204"]
    refs = {name: {"$ref": f"#/components/headers/{name}"} for name in RATE_LIMIT_HEADERS}
    assert success["headers"] == refs
    for name in (*RATE_LIMIT_HEADERS, "Retry-After"):
        assert document["components"]["headers"][name]["schema"]["type"] == "integer"


@pytest.mark.backend_independent
def test_every_operation_has_a_declared_tag_a_description_and_an_id(client):
    document = client.get("/openapi.json").get_json()
    tags = {tag["name"]: tag["description"] for tag in document["tags"]}
    assert {"plants", "webhooks", "events", "event_types", "health", "openapi"} <= set(tags)
    assert all(tags.values())
    operations = [op for item in document["paths"].values() for op in item.values()]
    for operation in operations:
        assert len(operation["tags"]) == 1 and operation["tags"][0] in tags
        assert operation["summary"] and operation["description"]
    assert len({operation["operationId"] for operation in operations}) == len(operations)


@pytest.mark.backend_independent
def test_the_document_lists_the_resources_a_client_came_for_first(client):
    tags = [tag["name"] for tag in client.get("/openapi.json").get_json()["tags"]]
    assert tags == ["plants", "webhooks", "events", "event_types", "health", "openapi"]


# Properties an example leaves out because it shows another: a Problem's item names either a
# pointer or a parameter.
ALTERNATIVES = {"ProblemItem": {"parameter"}}


@pytest.mark.backend_independent
def test_every_schema_and_request_body_has_an_example(client):
    document = client.get("/openapi.json").get_json()
    for name, schema in document["components"]["schemas"].items():
        (example,) = schema["examples"]
        if schema["type"] == "object":
            assert set(example) | ALTERNATIVES.get(name, set()) == set(schema["properties"])
        else:
            assert example in schema["enum"]
    body = document["paths"]["/plants"]["post"]["requestBody"]["content"]["application/json"]
    assert body["example"] == {"id": 1, "name": "Monstera", "tag": "tropical"}
    webhooks = document["paths"]["/webhooks"]["post"]["requestBody"]["content"]
    assert webhooks["application/json"]["example"]["url"] == "https://hooks.example.com/plantstore"


@pytest.mark.backend_independent
def test_versions_are_declared_on_reads_changes_and_deletions(client):
    document = client.get("/openapi.json").get_json()
    item = document["paths"]["/plants/{id}"]
    for method, status in [("get", "200"), ("get", "304"), ("patch", "200")]:
        assert "ETag" in item[method]["responses"][status]["headers"]
    assert "content" not in item["get"]["responses"]["304"]

    def headers(method):
        return {p["name"] for p in item[method]["parameters"] if p["in"] == "header"}

    assert (headers("get"), headers("patch"), headers("delete")) == (
        {"If-None-Match"},
        {"If-Match"},
        {"If-Match"},
    )
    body = item["patch"]["requestBody"]["content"]
    assert set(body) == {"application/merge-patch+json", "application/json"}
    change = document["components"]["schemas"]["PlantChange"]
    assert "required" not in change
    assert change["properties"]["tag"]["type"] == ["string", "null"]
    assert change["properties"]["name"]["type"] == "string"


@pytest.mark.backend_independent
def test_paging_link_header_is_described(client):
    document = client.get("/openapi.json").get_json()
    link = document["paths"]["/plants"]["get"]["responses"]["200"]["headers"]["Link"]
    assert 'rel="next"' in link["description"]


@pytest.mark.backend_independent
def test_the_events_feed_is_described(client):
    document = client.get("/openapi.json").get_json()
    operation = document["paths"]["/events"]["get"]
    answers = operation["responses"]
    assert 'rel="next"' in answers["200"]["headers"]["Link"]["description"]
    assert "dropped" in answers["410"]["content"]["application/json"]["example"]["message"]
    query = {parameter["name"]: parameter["schema"] for parameter in operation["parameters"]}
    assert set(query) == {"after", "types", "limit"}
    assert (query["limit"]["minimum"], query["limit"]["maximum"]) == (1, 1000)
    types = re.compile(query["types"]["pattern"])
    names = document["components"]["schemas"]["EventType"]["enum"]
    assert all(types.fullmatch(name) for name in names)
    assert types.fullmatch(",".join(names)) and not types.fullmatch("plant.planted")
    assert not types.fullmatch("") and not types.fullmatch(f"{names[0]},")
    event = document["components"]["schemas"]["Event"]
    assert event["required"] == ["created_at", "data", "id", "type"]
    assert event["properties"]["type"]["$ref"] == "#/components/schemas/EventType"
    assert event["properties"]["data"]["type"] == "object"


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("settings", "headers", "server"),
    [
        ({}, {}, "http://localhost"),
        ({}, FORWARDED, "http://localhost"),
        ({"TRUSTED_PROXIES": 1}, FORWARDED, "https://shop.example/store"),
    ],
)
def test_servers_is_the_url_the_document_was_served_from(make_app, settings, headers, server):
    client = make_app(**settings).test_client()
    document = client.get("/openapi.json", headers=headers).get_json()
    assert document["servers"] == [{"url": server}]


@pytest.mark.backend_independent
def test_a_route_without_annotations_is_documented_from_its_docstring(make_app):
    app = make_app()

    @app.get("/extra/<name>")
    def say_hello(name):
        """Say hello.

        Longer words.
        """
        return {"hello": name}

    @app.route("/extra", methods=["GET", "PUT"])
    def extra():
        """Two methods, one view."""
        return {}

    document = app.test_client().get("/openapi.json").get_json()
    twice = document["paths"]["/extra"]
    assert (twice["get"]["operationId"], twice["put"]["operationId"]) == ("extraGet", "extraPut")
    operation = document["paths"]["/extra/{name}"]["get"]
    assert (operation["summary"], operation["description"]) == ("Say hello.", "Longer words.")
    assert operation["operationId"] == "sayHello"
    assert operation["tags"] == ["service"]
    assert operation["parameters"][0]["name"] == "name"
    # No auth decorator: a public operation, with the answers of every operation.
    assert set(operation["responses"]) == {"200", "404", "405", "500"}
    assert operation["security"] == []


@pytest.mark.backend_independent
def test_document_needs_no_token_and_is_not_cached_as_private(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert "Cache-Control" not in response.headers


@pytest.fixture
def served_document(tmp_path):
    """The document as a file, served under a real-looking host (linters flag localhost)."""
    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite'}"})
    path = tmp_path / "openapi.json"
    response = app.test_client().get("/openapi.json", base_url="https://plants.example.org")
    path.write_bytes(response.get_data())
    return path


def npm_tool(name):
    """The path of an npm linter that `make test` installs, or a skip saying so."""
    path = ROOT / ".venv" / "npm" / "node_modules" / ".bin" / name
    if not path.exists():
        pytest.skip(f"{name} is not installed: `make test` installs it")
    return path


def test_redocly_recommended_rules_find_nothing(served_document):
    result = subprocess.run(
        [npm_tool("redocly"), "lint", "--extends=recommended", "--format=json", served_document],
        capture_output=True,
        text=True,
        env={**os.environ, "REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true"},
        timeout=120,
    )
    report = json.loads(result.stdout)
    assert report["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, report["problems"]
    assert result.returncode == 0


def test_spectral_oas_rules_find_nothing(served_document, tmp_path):
    ruleset = tmp_path / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n')
    result = subprocess.run(
        [
            npm_tool("spectral"),
            "lint",
            "--quiet",
            "--format=json",
            "--ruleset",
            ruleset,
            served_document,
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(result.stdout) == []
    assert result.returncode == 0


# One field's part of a 400's message: "field: what is wrong." before the next field's.
FIELD_PART = re.compile(r"(?<=\.) (?=[a-z_][a-z_0-9.]*: )")


def parts(response):
    """Each field's part of a 400's message."""
    return FIELD_PART.split(response.json()["message"])


def unforetold(part, body):
    """Whether a refusal is one that no JSON Schema can say, so that a request the document
    allows may still get it: which names resolve to public addresses, or which hosts are names
    (url); which event ids the feed has given (after); which entity tag is a plant's current
    version, or that a PATCH's id must be the path's (a 412, or id); that 20.0 is no integer,
    which JSON Schema's integer takes and the contract refuses."""
    field, _, _ = part.partition(": ")
    if part.startswith(("url: ", "after: Not an", "id: Must be the")):
        return True
    value = body.get(field) if isinstance(body, dict) else None
    return part.endswith(": Not a valid integer.") and isinstance(value, float)


@api.parametrize()
@hypothesis.settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
)
def test_service_conforms_to_its_document(case, admin_headers):
    # An admin token may do everything: /plants and /webhooks alike. A negative case that
    # leaves the token out goes without it: with the token added it would be a valid request.
    dropped = case.meta.generation.mode.is_negative and "Authorization" not in (case.headers or {})
    response = case.call(headers={} if dropped else admin_headers)
    foretold = response.status_code != 412 and not (
        response.status_code == 400 and all(unforetold(part, case.body) for part in parts(response))
    )
    excluded = [] if foretold else [positive_data_acceptance]
    case.validate_response(response, excluded_checks=excluded, headers=admin_headers)
