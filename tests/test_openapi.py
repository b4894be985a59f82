"""GET /openapi.json, and the service checked against it by schemathesis."""

import hypothesis
import pytest
import schemathesis
from openapi_spec_validator import validate

from conftest import TOKEN

api = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture
def api_schema(app):
    """The service's own document, loaded by schemathesis against the WSGI app."""
    return schemathesis.openapi.from_wsgi("/openapi.json", app)


def test_document_is_valid_openapi_3(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    document = response.get_json()
    validate(document)
    assert document["openapi"].startswith("3.")
    assert document["info"]["version"] == "1.0.0"
    assert document["info"]["license"]["name"] == "MIT"
    assert document["security"] == [{"bearerAuth": []}]
    assert document["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
    }


def test_document_carries_the_limits_the_service_enforces(client):
    document = client.get("/openapi.json").get_json()
    schemas = document["components"]["schemas"]
    assert set(schemas) == {"Plant", "NewPlant", "StoredPlant", "Error"}
    new_plant = schemas["NewPlant"]
    assert new_plant["required"] == ["id", "name"]
    assert new_plant["properties"]["id"]["format"] == "int64"
    assert new_plant["properties"]["id"]["minimum"] == -(2**63)
    assert new_plant["properties"]["id"]["maximum"] == 2**63 - 1
    assert new_plant["properties"]["name"]["minLength"] == 1
    assert new_plant["properties"]["name"]["maxLength"] == 255
    assert new_plant["properties"]["tag"]["maxLength"] == 255
    assert "id" not in schemas["Plant"]["properties"]
    assert schemas["Error"]["required"] == ["error", "message"]
    limit = document["paths"]["/plants"]["get"]["parameters"][0]
    assert (limit["name"], limit["schema"]["minimum"], limit["schema"]["maximum"]) == (
        "limit",
        1,
        1000,
    )


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/plants", "post", {"200", "400", "401", "403", "409", "413", "415", "503"}),
        ("/plants", "get", {"200", "400", "401", "503"}),
        ("/plants/{id}", "get", {"200", "400", "401", "404", "503"}),
        ("/plants/{id}", "delete", {"204", "400", "401", "403", "404", "503"}),
    ],
)
def test_every_status_an_operation_gives_is_documented(client, path, method, statuses):
    document = client.get("/openapi.json").get_json()
    assert set(document["paths"][path][method]["responses"]) == statuses


def test_document_needs_no_token_and_is_not_cached_as_private(client):
    response = client.get("/openapi.json")
    assert response.status_code == 200
    assert "Cache-Control" not in response.headers


@api.parametrize()
@hypothesis.settings(
    max_examples=25,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
)
def test_service_conforms_to_its_document(case):
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"})
