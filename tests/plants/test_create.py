"""POST /plants: the contract's 'Validating a NewPlant' and 'Creating a plant' sections."""

import fcntl
import json
import threading

import pytest

from app import database
from support.errors import assert_error

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def post(client, headers, body, content_type="application/json"):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post("/plants", data=data, headers={**headers, "Content-Type": content_type})


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "content_type",
    [
        pytest.param("text/plain", id="text/plain"),
        pytest.param("application/x-www-form-urlencoded", id="form"),
        pytest.param("application/jsonx", id="lookalike"),
        pytest.param("", id="none"),
    ],
)
def test_content_type_other_than_json_is_415(client, auth_headers, content_type):
    response = post(client, auth_headers, {"id": 1, "name": "Fern"}, content_type)
    assert_error(response, 415)


@pytest.mark.backend_independent
def test_content_type_parameters_are_fine(client, auth_headers):
    response = post(
        client, auth_headers, {"id": 1, "name": "Fern"}, "application/json; charset=utf-8"
    )
    assert response.status_code == 200


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"", id="empty body"),
        pytest.param(b'{"id": 1, "name": ', id="invalid JSON"),
        pytest.param(b'{"id": 1, "name": "\xff\xfe"}', id="invalid UTF-8"),
        pytest.param(b'{"id": NaN, "name": "Fern"}', id="NaN is not JSON"),
        pytest.param(b"[" * 5000, id="nesting deeper than the parser goes"),
        pytest.param(b'[{"id": 1, "name": "Fern"}]', id="top-level array"),
        pytest.param(b'"Fern"', id="top-level string"),
        pytest.param(b"1", id="top-level number"),
        pytest.param(b"null", id="top-level null"),
    ],
)
def test_body_that_is_not_a_json_object_is_400(client, auth_headers, raw):
    assert_error(post(client, auth_headers, raw), 400)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"name": "Fern"}, "id", id="id missing"),
        pytest.param({"id": True, "name": "Fern"}, "id", id="id true"),
        pytest.param({"id": 1.0, "name": "Fern"}, "id", id="id 1.0"),
        pytest.param({"id": "1", "name": "Fern"}, "id", id="id string"),
        pytest.param({"id": None, "name": "Fern"}, "id", id="id null"),
        pytest.param({"id": INT64_MAX + 1, "name": "Fern"}, "id", id="id above int64"),
        pytest.param({"id": INT64_MIN - 1, "name": "Fern"}, "id", id="id below int64"),
        pytest.param({"id": 1}, "name", id="name missing"),
        pytest.param({"id": 1, "name": 7}, "name", id="name not a string"),
        pytest.param({"id": 1, "name": ""}, "name", id="name empty"),
        pytest.param({"id": 1, "name": "x" * 256}, "name", id="name over 255"),
        pytest.param({"id": 1, "name": "Fern", "tag": None}, "tag", id="tag null"),
        pytest.param({"id": 1, "name": "Fern", "tag": 7}, "tag", id="tag not a string"),
        pytest.param({"id": 1, "name": "Fern", "tag": "x" * 256}, "tag", id="tag over 255"),
        pytest.param({"id": 1, "name": "Fe\u0000rn"}, "name", id="name with NUL"),
        pytest.param({"id": 1, "name": "Fern", "tag": "\u0000"}, "tag", id="tag with NUL"),
        pytest.param({"id": 1, "name": "\ud800"}, "name", id="name with unpaired surrogate"),
        pytest.param(
            {"id": 1, "name": "Fern", "tag": "a\udc00"}, "tag", id="tag with unpaired surrogate"
        ),
    ],
)
def test_invalid_field_is_400_naming_it(client, auth_headers, body, field):
    message = assert_error(post(client, auth_headers, body), 400)
    assert message.startswith(f"{field}: ")


@pytest.mark.backend_independent
def test_every_offending_field_is_named(client, auth_headers):
    message = assert_error(post(client, auth_headers, {"tag": 3}), 400)
    assert message == (
        "id: Missing data for required field. "
        "name: Missing data for required field. "
        "tag: Not a valid string."
    )


@pytest.mark.backend_independent
def test_body_over_the_limit_is_413(client, auth_headers):
    body = json.dumps({"id": 1, "name": "Fern", "padding": "x" * 65536})
    assert_error(post(client, auth_headers, body), 413)


@pytest.mark.backend_independent
def test_the_limit_is_configurable(make_app, auth_headers):
    client = make_app(MAX_CONTENT_LENGTH=100).test_client()
    assert post(client, auth_headers, {"id": 1, "name": "x" * 50}).status_code == 200
    assert_error(post(client, auth_headers, {"id": 2, "name": "x" * 100}), 413)


def test_unknown_keys_are_ignored_not_stored_nor_echoed(client, auth_headers):
    response = post(client, auth_headers, {"id": 1, "name": "Fern", "colour": "green"})
    assert response.status_code == 200
    assert response.get_json() == {"name": "Fern"}
    replay = post(client, auth_headers, {"id": 1, "name": "Fern", "colour": "red"})
    assert replay.status_code == 200


@pytest.mark.parametrize(
    ("body", "answer"),
    [
        pytest.param({"id": 1, "name": "Fern"}, {"name": "Fern"}, id="no tag: tag omitted"),
        pytest.param(
            {"id": 1, "name": "Fern", "tag": "shade"}, {"name": "Fern", "tag": "shade"}, id="tag"
        ),
        pytest.param(
            {"id": 1, "name": "Fern", "tag": ""}, {"name": "Fern", "tag": ""}, id="empty tag"
        ),
        pytest.param({"id": INT64_MAX, "name": "Big"}, {"name": "Big"}, id="largest int64"),
        pytest.param({"id": INT64_MIN, "name": "Small"}, {"name": "Small"}, id="smallest int64"),
        pytest.param({"id": 0, "name": "Zero"}, {"name": "Zero"}, id="zero"),
        pytest.param({"id": 1, "name": "x" * 255, "tag": "y" * 255}, None, id="255 characters"),
        pytest.param({"id": 1, "name": "Ficus 🌱", "tag": "日本"}, None, id="unicode"),
        pytest.param(
            {"id": 1, "name": "\ud83c\udf31"}, {"name": "🌱"}, id="escaped surrogate pair"
        ),
    ],
)
def test_valid_plant_is_created(client, auth_headers, body, answer):
    response = post(client, auth_headers, body)
    assert response.status_code == 200
    expected = answer or {key: value for key, value in body.items() if key != "id"}
    assert response.get_json() == expected
    assert "id" not in response.get_json()


def test_same_id_and_content_is_answered_again(client, auth_headers):
    plant = {"id": 7, "name": "Aloe", "tag": "succulent"}
    first = post(client, auth_headers, plant)
    again = post(client, auth_headers, plant)
    assert (first.status_code, again.status_code) == (200, 200)
    assert first.get_json() == again.get_json() == {"name": "Aloe", "tag": "succulent"}


@pytest.mark.parametrize(
    "other",
    [
        pytest.param({"id": 7, "name": "Cactus", "tag": "succulent"}, id="other name"),
        pytest.param({"id": 7, "name": "Aloe", "tag": "medicinal"}, id="other tag"),
        pytest.param({"id": 7, "name": "Aloe"}, id="tag dropped"),
    ],
)
def test_same_id_with_other_content_is_409_and_keeps_the_plant(client, auth_headers, other):
    plant = {"id": 7, "name": "Aloe", "tag": "succulent"}
    assert post(client, auth_headers, plant).status_code == 200
    assert_error(post(client, auth_headers, other), 409)
    assert post(client, auth_headers, plant).status_code == 200


def test_tag_added_on_retry_is_a_conflict(client, auth_headers):
    assert post(client, auth_headers, {"id": 8, "name": "Aloe"}).status_code == 200
    assert_error(post(client, auth_headers, {"id": 8, "name": "Aloe", "tag": "x"}), 409)


# PostgreSQL queues writers itself: the writer lock is SQLite's alone.
@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_sqlite_writers_of_the_host_take_turns(app, client, auth_headers):
    db = database.of(app)
    answers = []
    writer = threading.Thread(
        target=lambda: answers.append(post(client, auth_headers, {"id": 9, "name": "Ivy"}))
    )
    # Another process's writer holds the lock: this create waits for its turn, then goes in.
    with open(db.writer_lock.path, "a") as other_writer:
        fcntl.flock(other_writer, fcntl.LOCK_EX)
        writer.start()
        writer.join(timeout=0.5)
        assert writer.is_alive() and not answers
    writer.join(timeout=10)
    assert [response.status_code for response in answers] == [200]
    assert client.get("/plants/9", headers=auth_headers).get_json() == {"id": 9, "name": "Ivy"}
