"""The document's webhooks (the contract's "The event catalog"): each event type's body under
each payload ("plant", "event", "thin"), as component schemas no two of which take the same
body, with a named example of each; the "plant" one is the catalog's schema, and the events the
feed shows are the "event" body of their type."""

import pytest
from jsonschema import Draft202012Validator
from openapi_spec_validator import validate

from support.event_catalog import TYPES, schemas_by_type
from support.webhooks import create

PAYLOADS = ["plant", "event", "thin"]
# What a component holds for a reader of the document alone, beside what it allows.
ANNOTATIONS = {"$schema", "title", "description", "examples"}


@pytest.fixture
def document(client):
    """The OpenAPI document, checked valid."""
    document = client.get("/openapi.json").get_json()
    validate(document)
    return document


def bodies(document, name):
    """{payload: reference} of the body of the webhook of event type name, in the anyOf's order."""
    content = document["webhooks"][name]["post"]["requestBody"]["content"]["application/json"]
    return dict(zip(PAYLOADS, [each["$ref"] for each in content["schema"]["anyOf"]], strict=True))


def taken_by(document, name, body):
    """The payloads whose schema, in the webhook of event type name, takes body."""
    components = document["components"]
    return [
        payload
        for payload, reference in bodies(document, name).items()
        if Draft202012Validator({"$ref": reference, "components": components}).is_valid(body)
    ]


def component(document, reference):
    return document["components"]["schemas"][reference.rpartition("/")[2]]


@pytest.mark.backend_independent
def test_each_type_s_body_is_one_of_three_payloads_with_an_example_of_each(document):
    assert sorted(document["webhooks"]) == sorted(TYPES)
    for name in TYPES:
        content = document["webhooks"][name]["post"]["requestBody"]["content"]
        examples = {
            key: each["value"] for key, each in content["application/json"]["examples"].items()
        }
        assert sorted(examples) == sorted(PAYLOADS)
        for payload, example in examples.items():
            assert taken_by(document, name, example) == [payload]
        plant, event, thin = (examples[payload] for payload in PAYLOADS)
        assert set(event) == {"id", "type", "created_at", "data"} and event["type"] == name
        assert event["data"] == plant
        assert thin == {**event, "data": {"id": plant["id"]}}
        for reference in bodies(document, name).values():
            Draft202012Validator.check_schema(component(document, reference))


@pytest.mark.backend_independent
def test_the_plant_body_is_the_schema_the_catalog_serves(document, client, auth_headers):
    catalog = client.get("/event-types", headers=auth_headers).get_json()
    for name, served in schemas_by_type(catalog).items():
        described = component(document, bodies(document, name)["plant"])
        assert {key: value for key, value in described.items() if key not in ANNOTATIONS} == {
            key: value for key, value in served.items() if key not in ANNOTATIONS
        }


def test_an_event_the_feed_shows_is_its_type_s_event_body(document, client, auth_headers):
    assert create(client, 1, tag="tropical").status_code == 200
    assert client.patch("/plants/1", json={"tag": None}, headers=auth_headers).status_code == 200
    assert client.delete("/plants/1", headers=auth_headers).status_code == 204
    page = client.get("/events", headers=auth_headers).get_json()
    assert [event["type"] for event in page] == TYPES
    for event in page:
        assert taken_by(document, event["type"], event) == ["event"]
        assert taken_by(document, event["type"], event["data"]) == ["plant"]
        thin = {**event, "data": {"id": event["data"]["id"]}}
        assert taken_by(document, event["type"], thin) == ["thin"]
        other = next(name for name in TYPES if name != event["type"])
        assert taken_by(document, other, event) == []
