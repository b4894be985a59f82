"""GET /plants, GET /plants/{id}, DELETE /plants/{id}: the contract's 'Reading and deleting'."""

import re

import pytest

from support.errors import assert_error

INT64_MAX = 2**63 - 1
LINK = re.compile(r'<(?P<url>[^>]+)>; rel="next"')


@pytest.fixture
def create(client, auth_headers):
    def create(plant_id, name=None, tag=None):
        body = {"id": plant_id, "name": name or f"plant {plant_id}"}
        if tag is not None:
            body["tag"] = tag
        assert client.post("/plants", json=body, headers=auth_headers).status_code == 200
        return body

    return create


def test_read_one_plant_with_its_id(client, auth_headers, create):
    create(5, "Aloe", "succulent")
    response = client.get("/plants/5", headers=auth_headers)
    assert response.status_code == 200
    assert response.get_json() == {"id": 5, "name": "Aloe", "tag": "succulent"}


def test_read_omits_a_missing_tag(client, auth_headers, create):
    create(-3, "Fern")
    assert client.get("/plants/-3", headers=auth_headers).get_json() == {"id": -3, "name": "Fern"}


@pytest.mark.backend_independent
def test_read_unknown_id_is_404(client, auth_headers):
    response = client.get("/plants/404", headers=auth_headers)
    assert_error(response, 404)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "plant_id",
    [
        pytest.param("abc", id="letters"),
        pytest.param("1.0", id="decimal"),
        pytest.param("1e3", id="exponent"),
        pytest.param("+1", id="plus sign"),
        pytest.param("%201", id="leading space"),
        pytest.param("0x10", id="hex"),
        pytest.param("%D9%A3", id="non-ASCII digit"),
        pytest.param(str(INT64_MAX + 1), id="above int64"),
        pytest.param(str(-(2**63) - 1), id="below int64"),
        pytest.param("1" * 40, id="forty digits"),
    ],
)
@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_id_that_is_not_an_int64_literal_is_400(client, auth_headers, method, plant_id):
    response = client.open(f"/plants/{plant_id}", method=method, headers=auth_headers)
    assert response.status_code == 400
    assert response.get_json()["message"].startswith("id: ")


@pytest.mark.parametrize("plant_id", [INT64_MAX, -(2**63), 0, -1])
def test_extreme_and_negative_ids_are_addressable(client, auth_headers, create, plant_id):
    create(plant_id)
    assert client.get(f"/plants/{plant_id}", headers=auth_headers).get_json()["id"] == plant_id
    assert client.delete(f"/plants/{plant_id}", headers=auth_headers).status_code == 204


def test_delete_is_204_empty_then_read_and_delete_are_404(client, auth_headers, create):
    create(9)
    deleted = client.delete("/plants/9", headers=auth_headers)
    assert deleted.status_code == 204
    assert deleted.data == b""
    assert "Content-Type" not in deleted.headers
    assert client.get("/plants/9", headers=auth_headers).status_code == 404
    again = client.delete("/plants/9", headers=auth_headers)
    assert_error(again, 404)


def test_deleted_id_can_be_created_again(client, auth_headers, create):
    create(9, "Aloe")
    client.delete("/plants/9", headers=auth_headers)
    create(9, "Cactus")
    assert client.get("/plants/9", headers=auth_headers).get_json()["name"] == "Cactus"


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/plants"), ("GET", "/plants/1"), ("DELETE", "/plants/1")]
)
def test_reading_and_deleting_need_a_token(client, method, path):
    response = client.open(path, method=method)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="plantstore"'


def test_empty_store_lists_nothing_without_link(client, auth_headers):
    response = client.get("/plants", headers=auth_headers)
    assert response.status_code == 200
    assert response.get_json() == []
    assert "Link" not in response.headers


def test_list_is_ascending_by_id_with_default_limit_100(client, auth_headers, create):
    for plant_id in range(150, 0, -1):
        create(plant_id, tag="t" if plant_id % 2 else None)
    response = client.get("/plants", headers=auth_headers)
    page = response.get_json()
    assert [plant["id"] for plant in page] == list(range(1, 101))
    assert page[0] == {"id": 1, "name": "plant 1", "tag": "t"}
    assert page[1] == {"id": 2, "name": "plant 2"}
    link = LINK.fullmatch(response.headers["Link"])
    assert link and link["url"].endswith("/plants?limit=100&after=100")


def test_link_exactly_when_more_remain(client, auth_headers, create):
    for plant_id in (1, 2, 3, 4):
        create(plant_id)
    assert "Link" in client.get("/plants?limit=3", headers=auth_headers).headers
    assert "Link" not in client.get("/plants?limit=4", headers=auth_headers).headers
    assert "Link" not in client.get("/plants?limit=2&after=2", headers=auth_headers).headers


def test_after_starts_past_the_given_id(client, auth_headers, create):
    for plant_id in (-5, 0, 5, 10):
        create(plant_id)
    page = client.get("/plants?after=0", headers=auth_headers).get_json()
    assert [plant["id"] for plant in page] == [5, 10]
    page = client.get(f"/plants?after={-(2**63)}", headers=auth_headers).get_json()
    assert [plant["id"] for plant in page] == [-5, 0, 5, 10]


def test_walking_the_links_visits_every_plant_once(client, auth_headers, create):
    ids = sorted({(n * 7919) % 100_003 - 50_000 for n in range(350)})
    for plant_id in ids:
        create(plant_id)
    seen, url, pages = [], "/plants?limit=37", 0
    while url:
        response = client.get(url, headers=auth_headers)
        assert response.status_code == 200
        seen += [plant["id"] for plant in response.get_json()]
        link = LINK.fullmatch(response.headers.get("Link", ""))
        url = link["url"] if link else None
        pages += 1
    assert seen == ids
    assert pages == -(-len(ids) // 37)


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    "query",
    [
        pytest.param("limit=0", id="limit 0"),
        pytest.param("limit=1001", id="limit over 1000"),
        pytest.param("limit=-1", id="negative limit"),
        pytest.param("limit=abc", id="limit not a number"),
        pytest.param("limit=1.5", id="limit decimal"),
        pytest.param("limit=", id="limit empty"),
        pytest.param(f"after={INT64_MAX + 1}", id="after above int64"),
        pytest.param("after=x", id="after not a number"),
        pytest.param("after=1e3", id="after exponent"),
        pytest.param("limt=5", id="unknown parameter"),
    ],
)
def test_bad_query_is_400(client, auth_headers, query):
    response = client.get(f"/plants?{query}", headers=auth_headers)
    assert response.status_code == 400
    assert set(response.get_json()) == {"error", "message"}


@pytest.mark.parametrize("limit", [1, 1000])
def test_limit_bounds_are_accepted(client, auth_headers, create, limit):
    create(1)
    create(2)
    response = client.get(f"/plants?limit={limit}", headers=auth_headers)
    assert response.status_code == 200
    assert len(response.get_json()) == min(limit, 2)
