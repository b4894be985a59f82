"""What of the schema one backend builds alone: PostgreSQL's own defaults and indexes, marked on
the tables, and Alembic's comparisons of a database, which leave out what its backend does not
build."""


def postgresql_default(column, sql):
    """column, whose server default on PostgreSQL is sql instead of its own (the migrations set
    it, as the functions it may call; Alembic compares neither)."""
    column.info["postgresql_default"] = sql
    return column


def postgresql_only(index):
    """index, built on PostgreSQL alone (create_all, the migrations, and the comparisons of
    the schema, through of_backend, leave it out elsewhere)."""
    index.info["backend"] = "postgresql"
    return index.ddl_if(dialect="postgresql")


def sqlite_only(index):
    """index, built on SQLite alone, as postgresql_only builds one on PostgreSQL alone."""
    index.info["backend"] = "sqlite"
    return index.ddl_if(dialect="sqlite")


def server_defaults_of(name):
    """Alembic's compare_server_default for a database of the backend name: a default the
    migrations set on PostgreSQL (postgresql_default) is theirs, as are the functions it calls,
    and is not compared there; every other is, as Alembic compares."""

    def differs(_context, _inspected, column, _found, _expected, _rendered):
        return False if name == "postgresql" and "postgresql_default" in column.info else None

    return differs


def of_backend(name):
    """Alembic's include_object for a database of the backend name: what only another backend
    builds (postgresql_only) is left out of its comparisons."""

    def include_object(item, _name, _type, _reflected, _compare_to):
        return getattr(item, "info", {}).get("backend", name) == name

    return include_object
