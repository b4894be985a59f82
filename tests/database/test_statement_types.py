"""Statement converts values both ways by the columns' types, on both backends: a caller binds
and reads Python values (aware datetimes in UTC), never what a driver takes or gives."""

import datetime

import pytest
from sqlalchemy import bindparam, insert, select

from app import database
from app.database import Now, Statement
from app.tokens.store import tokens
from app.webhooks.tables.deliveries import DeliveryStatus, deliveries

WRITE = Statement(
    insert(tokens).values(
        name=bindparam("name"),
        token_hash=bindparam("name"),
        scope=bindparam("name"),
        created_at=bindparam("at"),
        expires_at=bindparam("at"),
    )
)
# The times a caller never binds: now, and seconds from now (a Now's own key, "life").
STAMP = Statement(
    insert(tokens).values(
        name=bindparam("name"),
        token_hash=bindparam("name"),
        scope=bindparam("name"),
        created_at=Now(),
        expires_at=Now("life", later=True),
    )
)
READ = Statement(select(tokens.c.name, tokens.c.created_at, tokens.c.expires_at), "Times")
# An instant given in another zone than UTC: it comes back the same instant, in UTC.
PARIS = datetime.timezone(datetime.timedelta(hours=1))


@pytest.fixture
def db(app):
    """The app's Database, its schema created."""
    return database.of(app)


def test_a_time_bound_and_read_is_the_same_instant_in_utc(db):
    at = datetime.datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=PARIS)
    with db.transaction() as cursor:
        WRITE.execute(cursor, {"name": "a", "at": at})
    with db.cursor() as cursor:
        READ.execute(cursor)
        row = READ.row(cursor)
    assert row == ("a", at, at)
    assert row.created_at.tzinfo == datetime.UTC


def test_many_rows_are_bound_and_read_each_converted(db):
    start = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    times = [start + datetime.timedelta(seconds=each) for each in range(3)]
    with db.transaction() as cursor:
        WRITE.executemany(cursor, [{"name": str(at.second), "at": at} for at in times])
    with db.cursor() as cursor:
        READ.execute(cursor)
        rows = READ.rows(cursor)
    assert sorted(row.created_at for row in rows) == times


def test_a_statement_whose_columns_need_nothing_reads_its_rows_as_they_are():
    plain = Statement(select(tokens.c.name, tokens.c.scope), "Grant")
    assert plain._readers == {"sqlite": (), "postgresql": ()}
    given, filled = WRITE._binders["sqlite"]
    assert ([key for key, _ in given], filled) == (["at"], ())


def test_rows_of_several_columns_are_named_for_what_they_are():
    with pytest.raises(ValueError, match="need a name for what they are"):
        Statement(select(tokens.c.name, tokens.c.scope))


def test_a_statement_of_one_column_gives_its_values_converted(db):
    at = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=PARIS)
    expiries = Statement(select(tokens.c.expires_at).order_by(tokens.c.name))
    with db.cursor() as cursor:
        expiries.execute(cursor)
        assert expiries.value(cursor) is None
    with db.transaction() as cursor:
        WRITE.execute(cursor, {"name": "a", "at": at})
        STAMP.execute(cursor, {"name": "b", "life": None})
    with db.cursor() as cursor:
        expiries.execute(cursor)
        assert expiries.values(cursor) == [at, None]
        expiries.execute(cursor)
        assert expiries.value(cursor).tzinfo == datetime.UTC


def test_a_statement_s_clock_is_the_database_s_and_the_caller_binds_only_seconds(db):
    before = database.now(db)
    with db.transaction() as cursor:
        STAMP.executemany(cursor, [{"name": "a", "life": 60}, {"name": "b", "life": None}])
    after = database.now(db)
    with db.cursor() as cursor:
        READ.execute(cursor)
        rows = {row.name: row for row in READ.rows(cursor)}
    assert before <= rows["a"].created_at <= rows["b"].created_at <= after
    lived = rows["a"].expires_at - rows["a"].created_at
    assert datetime.timedelta(seconds=60) <= lived < datetime.timedelta(seconds=61)
    assert rows["b"].expires_at is None


def test_a_status_is_written_from_its_value_and_read_back_as_its_member(db):
    at = datetime.datetime(2026, 1, 2, tzinfo=datetime.UTC)
    row = {"receiver": "r", "event_type": "plant.created", "body": "{}", "attempts": 0}
    row |= {"created_at": at, "next_attempt_at": at}
    write = Statement(
        insert(deliveries).values({key: bindparam(key) for key in [*row, "id", "status"]})
    )
    status = Statement(select(deliveries.c.status).order_by(deliveries.c.id))
    with db.transaction() as cursor:
        write.execute(cursor, {**row, "id": "a", "status": "pending"})
        write.execute(cursor, {**row, "id": "b", "status": DeliveryStatus.FAILED})
        with pytest.raises(ValueError, match="'lost' is not a valid DeliveryStatus"):
            write.execute(cursor, {**row, "id": "c", "status": "lost"})
    with db.cursor() as cursor:
        status.execute(cursor)
        read = status.values(cursor)
    assert read == [DeliveryStatus.PENDING, DeliveryStatus.FAILED]
    assert [type(each) for each in read] == [DeliveryStatus, DeliveryStatus]
