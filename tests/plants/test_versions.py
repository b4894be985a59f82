"""Versions of a plant: the contract's ETag, If-None-Match on a read, If-Match on PATCH and
DELETE (RFC 9110's comparisons), and a change that changes nothing."""

import re

import pytest

from support.errors import assert_error

FERN = {"id": 7, "name": "Fern", "tag": "shade"}
STRONG = re.compile(r'"[\x21\x23-\x7e]+"')
STALE = "If-Match does not name the plant's current version."
NO_VERSION = "There is no plant with this id for If-Match to match."


@pytest.fixture
def fern(client, auth_headers):
    """Plant 7, a Fern tagged shade; its ETag."""
    assert client.post("/plants", json=FERN, headers=auth_headers).status_code == 200
    return client.get("/plants/7", headers=auth_headers).headers["ETag"]


@pytest.fixture
def change(client, auth_headers):
    def change(body, plant_id=7, **headers):
        return client.patch(f"/plants/{plant_id}", json=body, headers={**auth_headers, **headers})

    return change


def read(client, auth_headers, plant_id=7, **headers):
    return client.get(f"/plants/{plant_id}", headers={**auth_headers, **headers})


def weak(etag):
    return f"W/{etag}"


def test_a_read_carries_a_strong_etag(fern):
    assert STRONG.fullmatch(fern)


def test_the_answer_of_a_change_carries_the_new_etag_which_reads_then_give(
    client, auth_headers, fern, change
):
    changed = change({"name": "Ivy"})
    assert STRONG.fullmatch(changed.headers["ETag"]) and changed.headers["ETag"] != fern
    assert read(client, auth_headers).headers["ETag"] == changed.headers["ETag"]


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"name": "Ivy"}, id="name"),
        pytest.param({"tag": "humid"}, id="tag"),
        pytest.param({"tag": None}, id="tag removed"),
        pytest.param({"tag": ""}, id="empty tag is not no tag"),
    ],
)
def test_the_etag_changes_whenever_the_content_does(auth_headers, fern, change, body):
    assert change(body).headers["ETag"] != fern


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({}, id="empty patch"),
        pytest.param({"name": "Fern", "tag": "shade"}, id="the same values"),
        pytest.param({"id": 7, "colour": "green"}, id="only ignored keys"),
    ],
)
def test_a_change_that_changes_nothing_keeps_the_etag(fern, change, body):
    response = change(body)
    assert (response.status_code, response.get_json()) == (200, FERN)
    assert response.headers["ETag"] == fern


def test_the_same_content_again_is_the_same_version(client, auth_headers, fern, change):
    change({"name": "Ivy"})
    assert change({"name": "Fern"}).headers["ETag"] == fern
    client.post("/plants", json={**FERN, "id": 8}, headers=auth_headers)
    assert read(client, auth_headers, 8).headers["ETag"] != fern  # another plant


# If-None-Match on a read: the weak comparison, * included.
@pytest.mark.parametrize(
    "value",
    [
        pytest.param(lambda etag: etag, id="the ETag"),
        pytest.param(weak, id="the ETag, weak"),
        pytest.param(lambda etag: f'"other", {etag}', id="in a list"),
        pytest.param(lambda etag: "*", id="star"),
    ],
)
def test_if_none_match_that_matches_is_304_with_the_etag_and_no_body(
    client, auth_headers, fern, value
):
    response = read(client, auth_headers, **{"If-None-Match": value(fern)})
    assert response.status_code == 304
    assert response.headers["ETag"] == fern
    assert response.data == b""
    assert "Content-Type" not in response.headers


@pytest.mark.parametrize(
    "value",
    [
        pytest.param('"other"', id="another tag"),
        pytest.param('W/"other"', id="another weak tag"),
        pytest.param("not an entity tag", id="malformed"),
    ],
)
def test_if_none_match_that_does_not_match_reads_the_plant(client, auth_headers, fern, value):
    response = read(client, auth_headers, **{"If-None-Match": value})
    assert (response.status_code, response.get_json()) == (200, FERN)
    assert response.headers["ETag"] == fern


def test_if_none_match_names_the_old_version_after_a_change(client, auth_headers, fern, change):
    change({"tag": None})
    response = read(client, auth_headers, **{"If-None-Match": fern})
    assert (response.status_code, response.get_json()) == (200, {"id": 7, "name": "Fern"})


@pytest.mark.backend_independent
@pytest.mark.parametrize("value", ["*", '"any"'])
def test_if_none_match_on_no_plant_is_404(client, auth_headers, value):
    response = read(client, auth_headers, 404, **{"If-None-Match": value})
    assert assert_error(response, 404) == "There is no plant with this id."


# If-Match on PATCH and DELETE: the strong comparison.
MATCHING = [
    pytest.param(lambda etag: etag, id="the ETag"),
    pytest.param(lambda etag: f'"other", {etag}', id="in a list"),
    pytest.param(lambda etag: "*", id="star"),
]
NOT_MATCHING = [
    pytest.param(weak, id="the ETag, weak"),
    pytest.param(lambda etag: '"other"', id="another tag"),
    pytest.param(lambda etag: "W/*", id="weak star"),
    pytest.param(lambda etag: "", id="empty"),
    pytest.param(lambda etag: '"unterminated', id="malformed"),
]


@pytest.mark.parametrize("value", MATCHING)
def test_a_change_under_a_matching_if_match_is_made(client, auth_headers, fern, change, value):
    response = change({"name": "Ivy"}, **{"If-Match": value(fern)})
    assert (response.status_code, response.get_json()) == (200, {**FERN, "name": "Ivy"})


@pytest.mark.parametrize("value", NOT_MATCHING)
def test_a_change_under_another_if_match_is_412_and_changes_nothing(
    client, auth_headers, fern, change, value
):
    response = change({"name": "Ivy"}, **{"If-Match": value(fern)})
    assert assert_error(response, 412) == STALE
    assert read(client, auth_headers).get_json() == FERN


def test_a_change_from_a_version_since_replaced_is_412(client, auth_headers, fern, change):
    assert change({"name": "Ivy"}, **{"If-Match": fern}).status_code == 200
    response = change({"name": "Moss"}, **{"If-Match": fern})
    assert assert_error(response, 412) == STALE
    assert read(client, auth_headers).get_json() == {**FERN, "name": "Ivy"}


def test_a_change_that_changes_nothing_under_a_stale_if_match_is_412(fern, change):
    change({"name": "Ivy"})
    assert_error(change({}, **{"If-Match": fern}), 412)


@pytest.mark.backend_independent
@pytest.mark.parametrize("value", ["*", '"any"'])
def test_if_match_on_no_plant_is_412(client, auth_headers, change, value):
    response = change({"name": "Ivy"}, 404, **{"If-Match": value})
    assert assert_error(response, 412) == NO_VERSION
    assert read(client, auth_headers, 404).status_code == 404


@pytest.mark.parametrize("value", MATCHING)
def test_a_delete_under_a_matching_if_match_is_made(client, auth_headers, fern, value):
    response = client.delete("/plants/7", headers={**auth_headers, "If-Match": value(fern)})
    assert (response.status_code, response.data) == (204, b"")
    assert read(client, auth_headers).status_code == 404


@pytest.mark.parametrize("value", NOT_MATCHING)
def test_a_delete_under_another_if_match_is_412_and_deletes_nothing(
    client, auth_headers, fern, value
):
    response = client.delete("/plants/7", headers={**auth_headers, "If-Match": value(fern)})
    assert assert_error(response, 412) == STALE
    assert read(client, auth_headers).get_json() == FERN


def test_a_delete_from_a_version_since_replaced_is_412(client, auth_headers, fern, change):
    change({"tag": "humid"})
    response = client.delete("/plants/7", headers={**auth_headers, "If-Match": fern})
    assert assert_error(response, 412) == STALE
    assert read(client, auth_headers).status_code == 200


@pytest.mark.backend_independent
@pytest.mark.parametrize("value", ["*", '"any"'])
def test_a_delete_under_if_match_of_no_plant_is_412(client, auth_headers, value):
    response = client.delete("/plants/404", headers={**auth_headers, "If-Match": value})
    assert assert_error(response, 412) == NO_VERSION


def test_without_if_match_changes_and_deletes_are_unconditional(client, auth_headers, fern, change):
    assert change({"name": "Ivy"}).status_code == 200
    assert change({"name": "Moss"}).status_code == 200
    assert client.delete("/plants/7", headers=auth_headers).status_code == 204
