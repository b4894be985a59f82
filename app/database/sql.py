"""What every table module shares: the MetaData, and Statement, the one way a statement is
compiled per driver, its values bound and its rows read, by column name, converted by the
columns' types (column_types.py)."""

import collections
import datetime
import functools
import sqlite3

from sqlalchemy import Integer, MetaData, String, literal_column
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import psycopg
from sqlalchemy.dialects.sqlite import base as sqlite_base

# Every table of the service, wherever its feature defines it; Alembic compares with this.
metadata = MetaData()


class _SQLiteCompiler(sqlite_base.SQLiteCompiler):
    """SQLite's compiler, without the OFFSET 0 that SQLAlchemy adds to a LIMIT as a parameter of
    its own, which no driver cursor is given (SQLite takes a LIMIT alone)."""

    def limit_clause(self, select, **kw):
        if select._offset_clause is None and select._limit_clause is not None:
            return "\n LIMIT " + self.process(select._limit_clause, **kw)
        return super().limit_clause(select, **kw)


class _SQLite(sqlite.dialect):
    statement_compiler = _SQLiteCompiler


DIALECTS = {"sqlite": _SQLite(paramstyle="named"), "postgresql": psycopg.dialect()}
# Each backend's own INSERT construct, for what Core spells per backend (ON CONFLICT).
INSERTS = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}


def per_backend(statement):
    """{dialect name: Core statement} of one statement for every backend, or of a mapping
    that already gives each backend its own (made with INSERTS)."""
    if isinstance(statement, dict):
        return statement
    return dict.fromkeys(DIALECTS, statement)


def _readers(compiled):
    """(position, result processor) of each column of a compiled statement's rows whose type
    converts what the driver gives (a time, a boolean on SQLite); the others need nothing."""
    dialect = compiled.dialect
    found = (
        (position, column.type.dialect_impl(dialect).result_processor(dialect, None))
        for position, column in enumerate(compiled._result_columns)
    )
    return tuple((position, each) for position, each in found if each is not None)


def _binders(compiled):
    """The parameters of a compiled statement whose types convert them, each once however often
    the SQL names it: ((key, bind processor) of those a caller gives, as a time or a status),
    and ((key, bind processor, value) of those bound without the caller, a clock.Now on
    SQLite); the others go as they are."""
    dialect = compiled.dialect
    given, filled = {}, {}
    for parameter, key in compiled.bind_names.items():
        bind = parameter.type.dialect_impl(dialect).bind_processor(dialect)
        fill = getattr(parameter.type, "fill", None)
        if fill is not None:
            filled[key] = (key, bind, fill)
        elif bind is not None:
            given[key] = (key, bind)
    return tuple(given.values()), tuple(filled.values())


# The backend a driver's cursor runs on, by its type (SQLite's is sqlite3's own; any other is
# psycopg's): a lookup, not a call, in every statement's run and read.
BACKEND_OF = collections.defaultdict(lambda: "postgresql", {sqlite3.Cursor: "sqlite"})


def _columns(statement):
    """The names of the columns a Core statement's rows hold, in order (its SELECT list, or
    its RETURNING list)."""
    return tuple(statement.exported_columns.keys())


class Statement:
    """A Core statement built from its Table, compiled once per backend (``sql[dialect]``),
    run by ``execute``, whose rows are read by name: ``rows`` and ``row`` give records of the
    named tuple called name, made once from the columns the statement returns, or of the record
    given, whose fields must be those columns, or dicts of them (record=dict). A statement of
    one column needs no record: ``value`` and ``values`` give that column's values.

    Values go both ways as the columns' types say (times aware in UTC, booleans, JSON):
    ``execute`` converts the parameters (and binds the host's clock on SQLite: clock.Now),
    ``rows`` and ``row`` the columns, with processors found once per backend."""

    def __init__(self, statement, name=None, record=None, **compile_options):
        each = per_backend(statement)
        compiled = {
            dialect: each[dialect].compile(dialect=DIALECTS[dialect], **compile_options)
            for dialect in DIALECTS
        }
        # A value held in the statement would need passing on every call: write it as SQL.
        held = {
            key
            for each in compiled.values()
            for key, value in each.params.items()
            if value is not None
        }
        if held:
            raise ValueError(f"parameters with values of their own: {sorted(held)}")
        self.sql = {dialect: str(each) for dialect, each in compiled.items()}
        self._readers = {dialect: _readers(each) for dialect, each in compiled.items()}
        self._binders = {dialect: _binders(each) for dialect, each in compiled.items()}
        columns = _columns(each["sqlite"])
        if len(columns) > 1 and name is None and record is None:
            raise ValueError(f"rows of {columns} need a name for what they are, or a record")
        if record is dict:
            self.make = functools.partial(_as_dict, columns)
        else:
            if record is not None and record._fields != columns:
                raise ValueError(f"{record.__name__} has {record._fields}, the statement {columns}")
            record = record or (collections.namedtuple(name, columns) if name else None)
            self.make = record and record._make

    def execute(self, cursor, values=None):
        """Run the statement on the cursor with values (a dict), as its parameters' types
        convert them."""
        dialect = BACKEND_OF[type(cursor)]
        given, filled = self._binders[dialect]
        if given or filled:
            values = _bound(given, _clock(filled), values)
        # None is psycopg's "no parameters", and no parameters sqlite3's.
        if values is None:
            cursor.execute(self.sql[dialect])
        else:
            cursor.execute(self.sql[dialect], values)

    def executemany(self, cursor, rows):
        """Run the statement on the cursor once for each of rows (dicts), converted."""
        dialect = BACKEND_OF[type(cursor)]
        given, filled = self._binders[dialect]
        if given or filled:
            rows = _bound_rows(given, _clock(filled), rows)
        cursor.executemany(self.sql[dialect], rows)

    def rows(self, cursor):
        """Every row the cursor's last execution of this statement returned, as records."""
        found = cursor.fetchall()
        readers = self._readers[BACKEND_OF[type(cursor)]] if found else None
        # map: a page of rows is made in C, but for the readers' and the record's own calls.
        return list(map(self.make, _read(readers, found) if readers else found))

    def values(self, cursor):
        """The one column of every row the cursor's last execution of this statement returned."""
        found = cursor.fetchall()
        readers = self._readers[BACKEND_OF[type(cursor)]]
        column = [each for (each,) in found]
        return list(map(readers[0][1], column)) if readers and found else column

    def value(self, cursor):
        """The one column of the first row the cursor's last execution returned, or None; the
        rows after it are read too, as row() reads them."""
        found = cursor.fetchall()
        if not found:
            return None
        readers = self._readers[BACKEND_OF[type(cursor)]]
        return readers[0][1](found[0][0]) if readers else found[0][0]

    def row(self, cursor):
        """The first row the cursor's last execution returned as a record, or None; the rows
        after it are read too, so that SQLite ends a RETURNING statement."""
        found = cursor.fetchall()
        if not found:
            return None
        readers = self._readers[BACKEND_OF[type(cursor)]]
        return self.make(next(_read(readers, found[:1])) if readers else found[0])


def _clock(filled):
    # The values of the parameters bound without the caller: the host's time on SQLite.
    return {key: bind(fill) for key, bind, fill in filled}


def _bound(given, clock, values):
    values = {**values, **clock} if values else dict(clock)
    for key, bind in given:
        if key in values:
            values[key] = bind(values[key])
    return values


def _bound_rows(given, clock, rows):
    # The clock is read once for every row of one statement. Rows bind the same value again and
    # again (a round's lease, an event's time for each receiver and in two columns): converted
    # once, by identity; each value is kept beside its conversion, so that no id is reused.
    done = {}
    bound = []
    for row in rows:
        values = {**row, **clock}
        for key, bind in given:
            if key in values:
                value = values[key]
                mark = (id(value), bind)
                found = done.get(mark)
                if found is None:
                    found = done[mark] = (bind(value), value)
                values[key] = found[0]
        bound.append(values)
    return bound


def _read(readers, found):
    # Column by column: each reader maps over its column, and no row is copied in Python.
    columns = list(zip(*found, strict=True))
    for position, read in readers:
        columns[position] = map(read, columns[position])
    return zip(*columns, strict=True)


def _as_dict(columns, row):
    return dict(zip(columns, row, strict=True))


def inline(value):
    """A status, message or number written into a statement's SQL, not bound: a Statement is
    compiled once, before it has any value, and holds none of its own."""
    if isinstance(value, str):
        return literal_column("'{}'".format(value.replace("'", "''")), String)
    return literal_column(str(value), Integer)


def utcnow():
    """The current time, in UTC."""
    return datetime.datetime.now(datetime.UTC)
