"""`GET /events` in process: every bad input is a 400 Error that names its parameter, as the
contract's "The events feed" lists them; the same parameters well formed are a 200. The e2e
module keeps one of these rows over real HTTP."""

import re

import pytest

from support.errors import assert_error

# (the parameter the message names, the query string, why it is refused). "{event}" stands
# for the id of an event that the feed gave.
BAD_INPUT = [
    ("after", "after=nope", "not an id the feed gave"),
    ("after", "after=ev_x", "shaped like an id, but not one the feed gave"),
    ("after", "after=", "empty: no id the feed gave"),
    ("after", "after=%00", "a NUL"),
    ("after", "after=" + "a" * 65, "longer than any id (64 characters at most)"),
    ("types", "types=", "empty"),
    ("types", "types=plant.planted", "a type that does not exist"),
    ("types", "types=plant.created,plant.planted", "one of the list does not exist"),
    ("types", "types=plant.created,", "an empty name in the list"),
    ("types", "types=PLANT.CREATED", "a type is named exactly"),
    ("limit", "limit=0", "below 1"),
    ("limit", "limit=-1", "below 1"),
    ("limit", "limit=1001", "above 1000"),
    ("limit", "limit=abc", "not an integer"),
    ("limit", "limit=1.5", "not an integer"),
    ("limit", "limit=", "empty"),
    ("limit", "limit=1&limit=2", "given twice"),
    ("limit", "limit=5&limit=5", "given twice, the same value"),
    ("types", "types=plant.created&types=plant.deleted", "given twice"),
    ("after", "after={event}&after={event}", "given twice, an id the feed gave"),
]


@pytest.fixture
def event_id(client, auth_headers):
    """The id of an event that the feed gave: that of a create."""
    plant = {"id": 1, "name": "Fern"}
    assert client.post("/plants", json=plant, headers=auth_headers).status_code == 200
    response = client.get("/events", headers=auth_headers)
    assert response.status_code == 200, response.get_json()
    (event,) = response.get_json()
    return event["id"]


def with_event(request, query):
    """query with "{event}" replaced by the id of an event that the feed gave, if it has one."""
    if "{event}" not in query:
        return query
    return query.format(event=request.getfixturevalue("event_id"))


def _row_id(query):
    """A row's name in pytest's output: its query, a long one cut short."""
    name, _, value = query.partition("=")
    return query if len(query) <= 40 else f"{name}=<{len(value)} characters>"


@pytest.mark.backend_independent
@pytest.mark.parametrize(
    ("parameter", "query", "why"), BAD_INPUT, ids=[_row_id(row[1]) for row in BAD_INPUT]
)
def test_bad_input_is_a_400_naming_the_parameter(
    request, client, auth_headers, parameter, query, why
):
    response = client.get(f"/events?{with_event(request, query)}", headers=auth_headers)
    assert response.status_code == 400, response.get_json()
    message = assert_error(response, 400)
    assert re.search(rf"\b{parameter}\b", message), (why, message)


@pytest.mark.parametrize(
    "query",
    [
        "after={event}",
        "after={event}&types=plant.created,plant.deleted&limit=1000",
        "types=plant.updated&limit=1",
        "limit=1000",
        "",
    ],
)
def test_the_same_parameters_well_formed_are_a_200(request, client, auth_headers, query):
    response = client.get(f"/events?{with_event(request, query)}", headers=auth_headers)
    assert response.status_code == 200, response.get_json()
    assert isinstance(response.get_json(), list)
