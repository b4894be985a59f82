"""PATCH /plants/{id}: the contract's 'Changing a plant', its body and its answers.

Versions (ETag, If-Match, If-None-Match) are in test_versions.py; concurrent changes on real
gunicorn in test_patch_e2e.py.
"""

import json

import pytest

from support.errors import assert_error

INT64_MAX = 2**63 - 1
MERGE_PATCH = "application/merge-patch+json"
FERN = {"id": 7, "name": "Fern", "tag": "shade"}
RANGE = (
    "id: Must be greater than or equal to -9223372036854775808 and less than or equal to "
    "9223372036854775807."
)


def patch(client, headers, body, plant_id=7, content_type=MERGE_PATCH):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.patch(
        f"/plants/{plant_id}", data=data, headers={**headers, "Content-Type": content_type}
    )


@pytest.fixture
def fern(client, auth_headers):
    """Plant 7, a Fern tagged shade."""
    assert client.post("/plants", json=FERN, headers=auth_headers).status_code == 200
    return FERN


def stored(client, headers, plant_id=7):
    return client.get(f"/plants/{plant_id}", headers=headers).get_json()


@pytest.mark.parametrize(
    ("body", "after"),
    [
        pytest.param({"name": "Maidenhair"}, {**FERN, "name": "Maidenhair"}, id="name"),
        pytest.param({"tag": "humid"}, {**FERN, "tag": "humid"}, id="tag"),
        pytest.param({"tag": None}, {"id": 7, "name": "Fern"}, id="tag null removes it"),
        pytest.param({"tag": ""}, {**FERN, "tag": ""}, id="empty tag"),
        pytest.param(
            {"name": "Ivy", "tag": "climber"}, {"id": 7, "name": "Ivy", "tag": "climber"}, id="both"
        ),
        pytest.param({"name": "x" * 255, "tag": "y" * 255}, None, id="255 characters"),
        pytest.param({"name": "Ficus 🌱", "tag": "日本"}, None, id="unicode"),
        pytest.param({}, FERN, id="empty patch changes nothing"),
        pytest.param({"id": 7, "name": "Ivy"}, {**FERN, "name": "Ivy"}, id="the path's id"),
        pytest.param({"colour": "green"}, FERN, id="unknown key ignored"),
    ],
)
def test_a_merge_patch_changes_what_it_names_and_answers_the_stored_plant(
    client, auth_headers, fern, body, after
):
    after = after or {**FERN, **body}
    response = patch(client, auth_headers, body)
    assert response.status_code == 200
    assert response.get_json() == after
    assert stored(client, auth_headers) == after


def test_a_plant_without_a_tag_gets_one_and_loses_it_again(client, auth_headers):
    client.post("/plants", json={"id": 3, "name": "Moss"}, headers=auth_headers)
    assert patch(client, auth_headers, {"tag": "damp"}, 3).get_json()["tag"] == "damp"
    assert patch(client, auth_headers, {"tag": None}, 3).get_json() == {"id": 3, "name": "Moss"}
    assert patch(client, auth_headers, {"tag": None}, 3).get_json() == {"id": 3, "name": "Moss"}


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "content_type",
    [MERGE_PATCH, "application/json", "application/merge-patch+json; charset=utf-8"],
)
def test_both_media_types_are_taken(client, auth_headers, fern, content_type):
    response = patch(client, auth_headers, {"name": "Ivy"}, content_type=content_type)
    assert response.status_code == 200


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "content_type",
    [
        pytest.param("text/plain", id="text/plain"),
        pytest.param("application/json-patch+json", id="JSON Patch"),
        pytest.param("application/x-www-form-urlencoded", id="form"),
        pytest.param("", id="none"),
    ],
)
def test_another_media_type_is_415(client, auth_headers, fern, content_type):
    response = patch(client, auth_headers, {"name": "Ivy"}, content_type=content_type)
    message = assert_error(response, 415)
    assert message == "Content-Type must be application/merge-patch+json or application/json."
    assert stored(client, auth_headers) == FERN


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param(b"", "The request body is not valid UTF-8 JSON.", id="empty body"),
        pytest.param(b'{"name": ', "The request body is not valid UTF-8 JSON.", id="bad JSON"),
        pytest.param(b'{"name": "\xff"}', "The request body is not valid UTF-8 JSON.", id="UTF-8"),
        pytest.param(b'["Ivy"]', "The request body must be a JSON object.", id="array"),
        pytest.param(b"null", "The request body must be a JSON object.", id="null"),
        pytest.param(b'"Ivy"', "The request body must be a JSON object.", id="string"),
    ],
)
def test_a_body_that_is_not_a_json_object_is_400(client, auth_headers, fern, raw, message):
    assert assert_error(patch(client, auth_headers, raw), 400) == message


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param({"name": None}, "name: Field may not be null.", id="name null"),
        pytest.param({"name": 7}, "name: Not a valid string.", id="name not a string"),
        pytest.param({"name": ""}, "name: Length must be between 1 and 255.", id="name empty"),
        pytest.param(
            {"name": "x" * 256}, "name: Length must be between 1 and 255.", id="name over 255"
        ),
        pytest.param(
            {"name": "Fe\u0000rn"}, "name: Must not contain a NUL character.", id="name NUL"
        ),
        pytest.param(
            {"name": "\ud800"}, "name: Must not contain an unpaired surrogate.", id="name surrogate"
        ),
        pytest.param({"tag": 7}, "tag: Not a valid string.", id="tag not a string"),
        pytest.param({"tag": ["a"]}, "tag: Not a valid string.", id="tag an array"),
        pytest.param({"tag": "y" * 256}, "tag: Longer than maximum length 255.", id="tag over 255"),
        pytest.param({"tag": "\u0000"}, "tag: Must not contain a NUL character.", id="tag NUL"),
        pytest.param(
            {"tag": "a\udc00"}, "tag: Must not contain an unpaired surrogate.", id="tag surrogate"
        ),
        pytest.param({"id": 8}, "id: Must be the id in the path, or left out.", id="another id"),
        pytest.param({"id": "7"}, "id: Not a valid integer.", id="id a string"),
        pytest.param({"id": 7.0}, "id: Not a valid integer.", id="id 7.0"),
        pytest.param({"id": True}, "id: Not a valid integer.", id="id true"),
        pytest.param({"id": None}, "id: Field may not be null.", id="id null"),
        pytest.param({"id": INT64_MAX + 1}, RANGE, id="id above int64"),
        pytest.param(
            {"name": 1, "tag": 2},
            "name: Not a valid string. tag: Not a valid string.",
            id="every field named",
        ),
    ],
)
def test_each_bad_field_is_400_naming_it_and_changes_nothing(
    client, auth_headers, fern, body, message
):
    assert assert_error(patch(client, auth_headers, body), 400) == message
    assert stored(client, auth_headers) == FERN


@pytest.mark.backend_independent
def test_a_body_over_the_limit_is_413(client, auth_headers, fern):
    body = {"name": "Ivy", "padding": "x" * 65536}
    message = assert_error(patch(client, auth_headers, body), 413)
    assert message == (
        "The request body is larger than 65536 bytes, the limit that "
        "PLANTSTORE_MAX_CONTENT_LENGTH sets."
    )
    assert stored(client, auth_headers) == FERN


@pytest.mark.backend_independent
def test_no_such_plant_is_404(client, auth_headers):
    response = patch(client, auth_headers, {"name": "Ivy"}, 404)
    assert assert_error(response, 404) == "There is no plant with this id."
    assert client.get("/plants/404", headers=auth_headers).status_code == 404


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("plant_id", "message"),
    [
        pytest.param("abc", "id: Not a valid integer.", id="letters"),
        pytest.param("1.0", "id: Not a valid integer.", id="decimal"),
        pytest.param(str(INT64_MAX + 1), RANGE, id="above int64"),
    ],
)
def test_an_id_that_is_not_an_int64_literal_is_400(client, auth_headers, plant_id, message):
    response = patch(client, auth_headers, {"name": "Ivy"}, plant_id)
    assert assert_error(response, 400) == message


@pytest.mark.backend_independent
def test_a_read_only_token_is_403_and_changes_nothing(client, auth_headers, runner, fern):
    result = runner.invoke(args=["tokens", "create", "reader", "--read-only"])
    reader = {"Authorization": f"Bearer {result.stdout.splitlines()[-1]}"}
    response = patch(client, reader, {"name": "Ivy"})
    assert assert_error(response, 403) == "This token is read-only."
    assert stored(client, auth_headers) == FERN


@pytest.mark.backend_independent
def test_no_token_is_401_before_the_body_is_read(client, fern):
    response = patch(client, {}, b"not JSON")
    assert assert_error(response, 401) == "A bearer token is required."
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="plantstore"'


def test_after_a_change_the_original_create_is_a_conflict(client, auth_headers, fern):
    patch(client, auth_headers, {"name": "Maidenhair"})
    again = client.post("/plants", json=FERN, headers=auth_headers)
    assert assert_error(again, 409) == "A different plant with id 7 already exists."
    changed = {**FERN, "name": "Maidenhair"}
    replay = client.post("/plants", json=changed, headers=auth_headers)
    assert (replay.status_code, replay.get_json()) == (200, {"name": "Maidenhair", "tag": "shade"})
