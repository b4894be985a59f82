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

    def process_bind_param(self, value, dialect):
        """The member's value: a value no member has fails here, not in a reader."""
        return None if value is None else self.enum(value).value

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


def _sqlite_time(text):
    # The wall-clock digits in UTC that the bind wrote, made aware in the parse itself: five
    # times cheaper than a replace(tzinfo=...) after it.
    return None if text is None else datetime.datetime.fromisoformat(text + "+00:00")
