"""The plants table's SQL, on both backends, below HTTP: what each function promises its route,
with the events it writes to the feed."""

import pytest
from sqlalchemy import select

from app import database
from app.events.store import events as events_table
from app.plants import changes, store

PLANT = {"id": 7, "name": "Monstera", "tag": "tropical"}
# An operator's receiver gets plant.created; an address nothing listens on, never called here.
RECEIVER = "http://127.0.0.1:9/hook"


@pytest.fixture
def db(app):
    """The app's Database, its schema created."""
    return database.of(app)


def _events(db):
    """(type, body) of every event written, oldest first."""
    with db.engine.connect() as conn:
        rows = conn.execute(select(events_table.c.type, events_table.c.body).order_by("id"))
        return [tuple(row) for row in rows]


def test_create_stores_a_new_plant_once(db):
    assert store.create(db, PLANT) == (store.CreateResult.CREATED, PLANT)
    assert store.get(db, 7) == PLANT


def test_create_with_the_same_content_is_a_replay(db):
    store.create(db, PLANT)
    assert store.create(db, dict(PLANT)) == (store.CreateResult.REPLAYED, PLANT)


@pytest.mark.parametrize("other", [{"name": "Fern"}, {"tag": None}, {"tag": "dry"}])
def test_create_with_other_content_is_a_conflict_and_changes_nothing(db, other):
    store.create(db, PLANT)
    outcome, stored = store.create(db, {**PLANT, **other})
    assert outcome is store.CreateResult.CONFLICT
    assert stored == PLANT == store.get(db, 7)


def test_a_plant_without_a_tag_reads_back_with_none(db):
    store.create(db, {"id": -(2**63), "name": "Oldest"})
    assert store.get(db, -(2**63)) == {"id": -(2**63), "name": "Oldest", "tag": None}


def test_get_of_an_unknown_id_is_none(db):
    assert store.get(db, 2**63 - 1) is None


def test_page_is_by_ascending_id_and_says_whether_more_remain(db):
    for plant_id in (5, -3, 9, 1):
        store.create(db, {"id": plant_id, "name": f"plant {plant_id}"})
    page, more = store.page(db, None, 2)
    assert [plant["id"] for plant in page] == [-3, 1] and more
    page, more = store.page(db, 1, 2)
    assert [plant["id"] for plant in page] == [5, 9] and not more
    assert store.page(db, 9, 2) == ([], False)


def test_delete_removes_the_plant_once(db):
    store.create(db, PLANT)
    assert store.delete(db, 7) is True
    assert store.get(db, 7) is None
    assert store.delete(db, 7) is False


def test_every_change_is_announced_whether_or_not_anybody_receives_it(db):
    store.create(db, PLANT)
    store.create(db, PLANT)  # a replay announces nothing
    store.create(db, {**PLANT, "name": "Fern"})  # nor does a conflict
    changes.update(db, 7, {"tag": "dry"}, None)
    changes.update(db, 7, {"tag": "dry"}, None)  # nor does a change of nothing
    store.delete(db, 7)
    assert _events(db) == [
        ("plant.created", '{"id":7,"name":"Monstera","tag":"tropical"}'),
        ("plant.updated", '{"id":7,"name":"Monstera","tag":"dry"}'),
        ("plant.deleted", '{"id":7,"name":"Monstera","tag":"dry"}'),
    ]


def test_a_change_is_merged_into_what_is_there_when_another_got_in_first(db):
    store.create(db, PLANT)
    seen = []

    def first_read_is_overtaken(plant):
        seen.append(plant)
        if len(seen) == 1:  # another writer changes the plant between this read and the write
            changes.update(db, 7, {"tag": "dry"}, None)
        return True

    outcome, plant = changes.update(db, 7, {"name": "Fern"}, first_read_is_overtaken)
    expected = {"id": 7, "name": "Fern", "tag": "dry"}
    assert (outcome, plant) == (changes.ChangeResult.CHANGED, expected)
    assert seen == [PLANT, {**PLANT, "tag": "dry"}]
    assert store.get(db, 7) == plant


@pytest.mark.parametrize("operation", ["update", "delete"])
def test_a_precondition_that_no_longer_holds_at_the_write_is_stale(db, operation):
    store.create(db, PLANT)

    def as_first_read(plant):
        if plant == PLANT:  # another writer wins the race between this read and the write
            changes.update(db, 7, {"tag": "dry"}, None)
        return plant == PLANT

    if operation == "update":
        outcome, plant = changes.update(db, 7, {"name": "Fern"}, as_first_read)
    else:
        outcome, plant = changes.delete(db, 7, as_first_read)
    assert (outcome, plant) == (changes.ChangeResult.STALE, {**PLANT, "tag": "dry"})
    assert store.get(db, 7) == {**PLANT, "tag": "dry"}


def test_a_change_to_the_same_values_writes_nothing(db):
    store.create(db, PLANT)
    unchanged = changes.update(db, 7, {"tag": "tropical"}, None)
    assert unchanged == (changes.ChangeResult.UNCHANGED, PLANT)
    missing = changes.update(db, 8, {"tag": "tropical"}, None)
    assert missing == (changes.ChangeResult.MISSING, None)
