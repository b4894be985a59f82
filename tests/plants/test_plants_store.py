"""The plants table's SQL, on both backends, below HTTP: what each function promises its route."""

import pytest

from app import database
from app.plants import changes, store

PLANT = {"id": 7, "name": "Monstera", "tag": "tropical"}


@pytest.fixture
def db(app):
    """The app's Database, its schema created."""
    return database.of(app)


def test_create_stores_a_new_plant_once(db):
    assert store.create(db, PLANT) == (store.Outcome.CREATED, PLANT)
    assert store.get(db, 7) == PLANT


def test_create_with_the_same_content_is_a_replay(db):
    store.create(db, PLANT)
    assert store.create(db, dict(PLANT)) == (store.Outcome.REPLAYED, PLANT)


@pytest.mark.parametrize("other", [{"name": "Fern"}, {"tag": None}, {"tag": "dry"}])
def test_create_with_other_content_is_a_conflict_and_changes_nothing(db, other):
    store.create(db, PLANT)
    outcome, stored = store.create(db, {**PLANT, **other})
    assert outcome is store.Outcome.CONFLICT
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


def test_a_change_is_merged_into_what_is_there_when_another_got_in_first(db):
    store.create(db, PLANT)
    seen = []

    def first_read_is_overtaken(plant):
        seen.append(plant)
        if len(seen) == 1:  # another writer changes the plant between this read and the write
            changes.update(db, 7, {"tag": "dry"})
        return True

    outcome, plant = changes.update(db, 7, {"name": "Fern"}, first_read_is_overtaken)
    assert (outcome, plant) == (changes.Outcome.CHANGED, {"id": 7, "name": "Fern", "tag": "dry"})
    assert seen == [PLANT, {**PLANT, "tag": "dry"}]
    assert store.get(db, 7) == plant


@pytest.mark.parametrize("operation", ["update", "delete"])
def test_a_precondition_that_no_longer_holds_at_the_write_is_stale(db, operation):
    store.create(db, PLANT)

    def as_first_read(plant):
        if plant == PLANT:  # another writer wins the race between this read and the write
            changes.update(db, 7, {"tag": "dry"})
        return plant == PLANT

    if operation == "update":
        outcome, plant = changes.update(db, 7, {"name": "Fern"}, as_first_read)
    else:
        outcome, plant = changes.delete(db, 7, as_first_read)
    assert (outcome, plant) == (changes.Outcome.STALE, {**PLANT, "tag": "dry"})
    assert store.get(db, 7) == {**PLANT, "tag": "dry"}


def test_a_change_to_the_same_values_writes_nothing(db):
    store.create(db, PLANT)
    assert changes.update(db, 7, {"tag": "tropical"}) == (changes.Outcome.UNCHANGED, PLANT)
    assert changes.update(db, 8, {"tag": "tropical"}) == (changes.Outcome.MISSING, None)
