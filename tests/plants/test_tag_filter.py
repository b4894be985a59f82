"""GET /plants?tag=T: the contract's 'Reading and deleting', the list filtered by tag."""

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from sqlalchemy import insert, text

from app import database
from app.plants import store
from support.errors import assert_error

LINK = re.compile(r'<(?P<url>[^>]+)>; rel="next"')


@pytest.fixture
def create(client, auth_headers):
    def create(plant_id, tag=None):
        body = {"id": plant_id, "name": f"plant {plant_id}"}
        if tag is not None:
            body["tag"] = tag
        assert client.post("/plants", json=body, headers=auth_headers).status_code == 200
        return body

    return create


@pytest.fixture
def listed(client, auth_headers):
    """The ids of a page of GET /plants with query (a dict, or a string as in a URL), and the
    URL of its Link (None on the last page)."""

    def listed(query):
        response = client.get("/plants", query_string=query, headers=auth_headers)
        assert response.status_code == 200, response.get_json()
        link = LINK.fullmatch(response.headers.get("Link", ""))
        return [plant["id"] for plant in response.get_json()], link and link["url"]

    return listed


def test_only_plants_whose_tag_is_exactly_the_one_asked(create, listed):
    tags = ["tropical", "Tropical", "TROPICAL", "tropicals", "tropica", " tropical", "tropical "]
    for plant_id, tag in enumerate(tags, start=1):
        create(plant_id, tag)
    create(8, "tropical")
    assert listed({"tag": "tropical"}) == ([1, 8], None)
    assert listed({"tag": "Tropical"}) == ([2], None)
    assert listed({"tag": "tropical "}) == ([7], None)


def test_the_filtered_page_is_the_stored_plants(client, auth_headers, create):
    create(3, "succulent")
    response = client.get("/plants?tag=succulent", headers=auth_headers)
    assert response.get_json() == [{"id": 3, "name": "plant 3", "tag": "succulent"}]


def test_a_tag_that_looks_percent_encoded_is_matched_as_written(create, listed):
    create(1, "%ED%A0%80")
    create(2, "100%")
    assert listed("tag=%25ED%25A0%2580") == ([1], None)
    assert listed("tag=100%25") == ([2], None)


def test_plants_without_a_tag_never_match(create, listed):
    create(1)
    create(2, "")
    create(3, "none")
    assert listed({"tag": "none"}) == ([3], None)
    assert listed({"tag": "null"}) == ([], None)


def test_a_tag_nobody_has_is_an_empty_page_without_link(create, listed):
    create(1, "tropical")
    assert listed({"tag": "desert"}) == ([], None)


def test_after_and_limit_apply_within_the_tag(create, listed):
    for plant_id in range(-6, 7):
        create(plant_id, "even" if plant_id % 2 == 0 else "odd")
    assert listed({"tag": "even", "after": "-1", "limit": "2"})[0] == [0, 2]
    assert listed({"tag": "odd", "after": "3"}) == ([5], None)
    assert listed({"tag": "odd", "after": "5"}) == ([], None)


def test_the_link_keeps_the_tag_and_the_limit(create, listed):
    for plant_id in range(1, 11):
        create(plant_id, "fern" if plant_id % 3 else "moss")
    ids, url = listed({"tag": "fern", "limit": "3"})
    assert ids == [1, 2, 4]
    assert url.startswith("http://localhost/plants?")
    assert sorted(parse_qsl(urlsplit(url).query)) == [
        ("after", "4"),
        ("limit", "3"),
        ("tag", "fern"),
    ]


@pytest.mark.parametrize(
    "tag", ["a b&c=d#e/f?g+h%i", "café 🌵", "x" * 255], ids=["URL syntax", "non-ASCII", "255"]
)
def test_walking_the_links_visits_every_plant_of_the_tag_once(client, create, listed, tag):
    for plant_id in range(1, 12):
        create(plant_id, tag if plant_id % 2 else "other")
    seen, pages, (ids, url) = [], 1, listed({"tag": tag, "limit": "2"})
    while url:
        seen += ids
        path = urlsplit(url)
        assert dict(parse_qsl(path.query))["tag"] == tag
        ids, url = listed(path.query)
        pages += 1
    assert seen + ids == [1, 3, 5, 7, 9, 11]
    assert pages == 3


BAD_QUERIES = [
    pytest.param("tag=", "tag: Length must be between 1 and 255.", id="empty tag"),
    pytest.param(f"tag={'x' * 256}", "tag: Length must be between 1 and 255.", id="tag over 255"),
    pytest.param("tag=a%00b", "tag: Must not contain a NUL character.", id="tag with NUL"),
    pytest.param("tag=%ED%A0%80", "tag: Must be percent-encoded UTF-8.", id="tag surrogate"),
    pytest.param("tag=a%FFb", "tag: Must be percent-encoded UTF-8.", id="tag not UTF-8"),
    pytest.param("tag=a&tag=b", "tag: Must be given at most once.", id="tag twice"),
    pytest.param("tag=a&tag=a", "tag: Must be given at most once.", id="same tag twice"),
    pytest.param("tag=a&limit=2&tag=", "tag: Must be given at most once.", id="tag twice apart"),
    pytest.param("limit=2&limit=3", "limit: Must be given at most once.", id="limit twice"),
    pytest.param("after=1&after=2", "after: Must be given at most once.", id="after twice"),
    pytest.param(
        "after=1&tag=a&after=1&tag=a",
        "after: Must be given at most once. tag: Must be given at most once.",
        id="after and tag twice",
    ),
    pytest.param("tags=a", "tags: Unknown field.", id="misspelt tag"),
    pytest.param(
        "tag=a&limit=0",
        "limit: Must be greater than or equal to 1 and less than or equal to 1000.",
        id="tag with a bad limit",
    ),
]


@pytest.mark.backend_independent
@pytest.mark.parametrize(("query", "message"), BAD_QUERIES)
def test_bad_tag_query_is_400_naming_the_parameter(client, auth_headers, create, query, message):
    create(1, "a")
    response = client.get(f"/plants?{query}", headers=auth_headers)
    assert assert_error(response, 400) == message


@pytest.mark.backend_independent
def test_a_repeated_parameter_is_refused_on_every_list_alike(client, admin_headers):
    response = client.get("/webhooks?limit=1&limit=1", headers=admin_headers)
    assert assert_error(response, 400) == "limit: Must be given at most once."


@pytest.mark.backend_independent
def test_a_filtered_list_needs_a_token(client):
    response = client.get("/plants?tag=tropical")
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="plantstore"'


# Plants enough, with a rare tag among them, that a planner prefers an index to a scan.
PLANTED = 5000
RARE_EVERY = 500


@pytest.fixture
def planted(app):
    """The app's database holding PLANTED plants, one in RARE_EVERY tagged "rare", analysed as
    a deployed database would be."""
    db = database.of(app)
    rows = [
        {"id": n, "name": f"plant {n}", "tag": "rare" if n % RARE_EVERY == 0 else "common"}
        for n in range(1, PLANTED + 1)
    ]
    with db.engine.begin() as conn:
        conn.execute(insert(store.plants), rows)
        conn.execute(text("ANALYZE"))
    return db


@pytest.mark.parametrize("after", [False, True], ids=["from the start", "after an id"])
def test_a_page_filtered_by_a_rare_tag_reads_the_index(planted, after):
    sql = store.SELECT_PAGES[True, after].sql[planted.dialect]
    explain = "EXPLAIN QUERY PLAN " if planted.dialect == "sqlite" else "EXPLAIN "
    with planted.cursor() as cursor:
        cursor.execute(explain + sql, {"tag": "rare", "after": 1000, "limit": 101})
        plan = " ".join(str(part) for row in cursor.fetchall() for part in row)
    assert "plants_tag_id" in plan, plan
    # The index gives the rows in id order: no sort of the tag's rows.
    assert "TEMP B-TREE" not in plan and "Sort" not in plan, plan


def test_a_page_filtered_by_a_rare_tag_among_many_answers_in_order(client, auth_headers, planted):
    response = client.get("/plants?tag=rare&limit=3&after=500", headers=auth_headers)
    assert [plant["id"] for plant in response.get_json()] == [1000, 1500, 2000]
    assert LINK.fullmatch(response.headers["Link"])["url"].endswith(
        "/plants?limit=3&after=2000&tag=rare"
    )
