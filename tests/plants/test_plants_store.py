"""The plants table's SQL, on both backends, below HTTP: what each function promises its route."""

import pytest

from app import database
from app.plants import store

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
