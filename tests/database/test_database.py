"""The one way into the database: what each failure is called, on both backends."""

import pytest
from sqlalchemy import bindparam, insert
from sqlalchemy.exc import IntegrityError

from app import database
from app.database import Database, SchemaMissing, Statement, Unavailable
from app.plants.store import plants

INSERT = Statement(insert(plants).values(id=bindparam("id"), name=bindparam("name")))


@pytest.fixture
def db(app):
    """The app's Database, its schema created."""
    return database.of(app)


def test_a_transaction_commits_at_the_end_of_the_block(db):
    with db.transaction() as cursor:
        cursor.execute(INSERT[db.dialect], {"id": 1, "name": "Fern"})
    with db.cursor() as cursor:
        cursor.execute("SELECT name FROM plants WHERE id = 1")
        assert cursor.fetchall() == [("Fern",)]


def test_an_exception_in_the_block_rolls_back(db):
    with pytest.raises(RuntimeError), db.transaction() as cursor:
        cursor.execute(INSERT[db.dialect], {"id": 1, "name": "Fern"})
        raise RuntimeError("the block fails after its statement")
    with db.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM plants")
        assert cursor.fetchone()[0] == 0


def test_a_constraint_is_still_sqlalchemys_integrity_error(db):
    with db.transaction() as cursor:
        cursor.execute(INSERT[db.dialect], {"id": 1, "name": "Fern"})
    with pytest.raises(IntegrityError), db.transaction() as cursor:
        cursor.execute(INSERT[db.dialect], {"id": 1, "name": "Fern"})


def test_a_missing_table_is_schema_missing(db):
    with pytest.raises(SchemaMissing), db.cursor() as cursor:
        cursor.execute("SELECT colour FROM plants")


def test_a_database_that_cannot_be_opened_is_unavailable(tmp_path, app):
    config = {**app.config, "DATABASE_URL": f"sqlite:///{tmp_path / 'none' / 'x.sqlite'}"}
    db = Database(config)
    with pytest.raises(Unavailable), db.cursor() as cursor:
        cursor.execute("SELECT 1")
    with pytest.raises(Unavailable):
        db.ping()
