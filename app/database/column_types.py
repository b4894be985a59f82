"""The column types whose values the data layer converts, both ways, for every caller: a point
in time, aware and in UTC, a JSON value kept as its text, and a member of a StrEnum kept as its
value."""

import datetime
import json

from sqlalchemy import DateTime, Text, TypeDecorator


class UTCDateTime(TypeDecorator):
    """A point in time, written and read back as an aware datetime in UTC on both backends."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        """Store UTC: SQLite keeps the wall-clock digits and drops the zone."""
        return value.astimezone(datetime.UTC) if value is not None else None

    def process_result_value(self, value, dialect):
        """SQLite gives back naive UTC; PostgreSQL answers in its session's time zone."""
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=datetime.UTC)
        return value.astimezone(datetime.UTC)

    def bind_processor(self, dialect):
        """On SQLite, the text to store made in one step: a delivery's row binds five."""
        if dialect.name == "sqlite":
            return sqlite_text
        return super().bind_processor(dialect)

    def result_processor(self, dialect, coltype):
        """On SQLite, the stored text parsed in one step: every row of a feed's page has one."""
        if dialect.name == "sqlite":
            return _sqlite_time
        return super().result_processor(dialect, coltype)


class EnumText(TypeDecorator):
    """A member of enum (a StrEnum), kept as its value in a column of type stored, written from
    the member or its value and read back as the member."""

    impl = Text
    cache_ok = True

    def __init__(self, enum, stored=None):
        super().__init__()
        self.enum, self.stored = enum, stored
        if stored is not None:
            self.impl = stored

    def bind_processor(self, dialect):
        """The member's value, found by a lookup (a status is bound for every delivery): a value
        no member has fails here, not in a reader."""
        values = {member: member.value for member in self.enum}
        impl = self.impl_instance.bind_processor(dialect)

        def process(value):
            if value is None:
                return None
            try:
                found = values[value]
            except KeyError:
                raise ValueError(f"{value!r} is not a valid {self.enum.__name__}") from None
            return impl(found) if impl else found

        return process

    def process_result_value(self, value, dialect):
        """The member."""
        return None if value is None else self.enum(value)


class JSONText(TypeDecorator):
    """A JSON value, kept as its text on both backends (json.dumps's, as the rows written
    before it hold), written and read back as the Python value."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value, dialect):
        """The value's JSON text."""
        return json.dumps(value)

    def process_result_value(self, value, dialect):
        """The value the JSON text holds."""
        return json.loads(value)


def sqlite_text(value):
    """A point in time as SQLite keeps it: the wall-clock digits in UTC, microseconds always,
    the text SQLAlchemy's DATETIME writes (so that times compare as text)."""
    if value is None:
        return None
    return value.astimezone(datetime.UTC).isoformat(" ", "microseconds")[:26]


def _sqlite_time(text):
    # The wall-clock digits in UTC that the bind wrote, made aware in the parse itself: five
    # times cheaper than a replace(tzinfo=...) after it.
    return None if text is None else datetime.datetime.fromisoformat(text + "+00:00")
