"""The tokens table's SQL, on both backends, below HTTP and the commands."""

import datetime

import pytest

from app import database
from app.auth import READ_ONLY, READ_WRITE
from app.database import utcnow
from app.tokens import store


@pytest.fixture
def db(app):
    """The app's Database, its schema created."""
    return database.of(app)


def test_a_created_token_is_found_by_its_hash_only(db):
    store.create(db, "ci", "a" * 64, READ_WRITE, None)
    assert tuple(store.find_live(db, "a" * 64)) == ("ci", READ_WRITE)
    assert store.find_live(db, "b" * 64) is None


def test_a_name_is_taken_for_good(db):
    store.create(db, "ci", "a" * 64, READ_WRITE, None)
    with pytest.raises(store.DuplicateName):
        store.create(db, "ci", "b" * 64, READ_ONLY, None)
    assert store.find_live(db, "b" * 64) is None


def test_an_expired_token_is_not_live(db):
    store.create(db, "old", "a" * 64, READ_WRITE, utcnow() - datetime.timedelta(seconds=1))
    store.create(db, "new", "b" * 64, READ_ONLY, utcnow() + datetime.timedelta(hours=1))
    assert store.find_live(db, "a" * 64) is None
    assert tuple(store.find_live(db, "b" * 64)) == ("new", READ_ONLY)
    assert store.count_live(db) == 1


def test_revoke_ends_a_token_and_tells_an_unknown_name(db):
    store.create(db, "ci", "a" * 64, READ_WRITE, None)
    assert store.revoke(db, "ci") is True
    assert store.revoke(db, "ci") is True  # twice is harmless
    assert store.find_live(db, "a" * 64) is None
    assert store.revoke(db, "nobody") is False
    assert store.count_live(db) == 0


def test_list_gives_aware_utc_times_in_creation_order(db):
    expires = datetime.datetime(2030, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    store.create(db, "first", "a" * 64, READ_WRITE, expires)
    store.create(db, "second", "b" * 64, READ_ONLY, None)
    store.revoke(db, "second")
    first, second = store.list_all(db)
    assert (first.name, first.scope, first.expires_at, first.revoked_at) == (
        "first",
        READ_WRITE,
        expires,
        None,
    )
    assert second.name == "second" and second.revoked_at.tzinfo == datetime.UTC
    assert abs(utcnow() - second.created_at) < datetime.timedelta(minutes=1)
