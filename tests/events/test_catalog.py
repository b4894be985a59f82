"""GET /event-types, the contract's "The event catalog", through the test client: any valid token
reads it, none is a 401; the types in the contract's order; each schema a JSON Schema of draft
2020-12, whole in itself, made from the marshmallow schema that dumps the data; every event the
feed shows satisfies it, and what the service never sends does not. Over real HTTP:
test_catalog_e2e.py; the document's webhooks: tests/openapi/test_webhook_bodies.py."""

import json

import pytest
from jsonschema import Draft202012Validator

from app import events
from support.errors import assert_error
from support.event_catalog import TYPES, assert_described, schemas_by_type
from support.webhooks import create

DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Bodies every type's schema takes: the service sends a plant with a tag and one without.
SENT = [{"id": 1, "name": "Fern"}, {"id": -(2**63), "name": "Fern", "tag": "shade"}]


@pytest.fixture
def catalog(client, auth_headers):
    """The catalog's entries, as a 200 of GET /event-types gives them."""
    response = client.get("/event-types", headers=auth_headers)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


@pytest.mark.backend_independent
@pytest.mark.parametrize("token", ["read_only_headers", "auth_headers", "admin_headers"])
def test_any_valid_token_reads_every_type_in_the_contract_s_order(request, client, token):
    response = client.get("/event-types", headers=request.getfixturevalue(token))
    assert response.status_code == 200
    assert response.headers["Cache-Control"] == "no-store"
    entries = response.get_json()
    assert [entry["type"] for entry in entries] == TYPES
    for entry in entries:
        assert set(entry) == {"type", "description", "schema"}
        assert isinstance(entry["description"], str) and entry["description"]
    assert len({entry["description"] for entry in entries}) == len(TYPES)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("headers", "challenge"),
    [
        ({}, 'Bearer realm="plantstore"'),
        (
            {"Authorization": "Bearer not-a-token-of-this-service-0123456789"},
            'Bearer realm="plantstore", error="invalid_token"',
        ),
    ],
    ids=["no token", "an unknown token"],
)
def test_no_token_or_an_unknown_one_is_a_401(client, headers, challenge):
    response = client.get("/event-types", headers=headers)
    assert_error(response, 401)
    assert response.headers["WWW-Authenticate"] == challenge


@pytest.mark.backend_independent
def test_each_schema_is_json_schema_of_draft_2020_12_whole_in_itself(catalog):
    for schema in schemas_by_type(catalog).values():
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == DIALECT
        assert "$ref" not in json.dumps(schema)
        assert schema["type"] == "object" and schema["additionalProperties"] is False


@pytest.mark.backend_independent
def test_each_schema_is_the_one_its_marshmallow_schema_gives(app, catalog):
    declared = events.types(app)
    for name, schema in schemas_by_type(catalog).items():
        dumped = declared[name].body().dump_fields
        keys = {field.data_key or key: field for key, field in dumped.items()}
        assert set(schema["properties"]) == set(keys)
        assert schema["required"] == sorted(key for key, field in keys.items() if field.required)
    # As the contract writes them: an int64 id, a name, and a tag left out when absent.
    schema = schemas_by_type(catalog)["plant.created"]
    assert schema["required"] == ["id", "name"]
    assert (schema["properties"]["id"]["type"], schema["properties"]["id"]["format"]) == (
        "integer",
        "int64",
    )
    assert schema["properties"]["tag"]["type"] == "string"


def test_every_event_the_feed_shows_satisfies_its_type_s_schema(client, auth_headers, catalog):
    assert create(client, 1, tag="tropical").status_code == 200
    assert create(client, 2).status_code == 200
    for plant_id, change in ((1, {"tag": None}), (2, {"name": "Ivy", "tag": "shade"})):
        changed = client.patch(f"/plants/{plant_id}", json=change, headers=auth_headers)
        assert changed.status_code == 200
    for plant_id in (1, 2):
        assert client.delete(f"/plants/{plant_id}", headers=auth_headers).status_code == 204
    page = client.get("/events", headers=auth_headers).get_json()
    assert [event["type"] for event in page] == [name for name in TYPES for _ in (1, 2)]
    assert_described(catalog, page)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "body",
    [
        {"id": 1, "name": "Fern", "colour": "green"},
        {"id": "1", "name": "Fern"},
        {"id": 1, "name": "Fern", "tag": None},
        {"id": 1.5, "name": "Fern"},
        {"id": 2**63, "name": "Fern"},
        {"id": 1, "name": ""},
        {"id": 1},
        {"name": "Fern"},
        [{"id": 1, "name": "Fern"}],
    ],
    ids=[
        "an unknown key",
        "id a string",
        "tag null",
        "id a fraction",
        "id past int64",
        "name empty",
        "no name",
        "no id",
        "not an object",
    ],
)
def test_what_the_service_never_sends_is_refused(catalog, body):
    for schema in schemas_by_type(catalog).values():
        validator = Draft202012Validator(schema)
        assert all(validator.is_valid(sent) for sent in SENT)
        assert not validator.is_valid(body)
