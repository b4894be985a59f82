"""A PostgreSQL test database's state between tests: its schema in one fingerprint, and the
statements that empty it, so that a test finds exactly the latest migration without a row."""

from types import SimpleNamespace

from sqlalchemy import MetaData

from app import create_app, database
from app.database import migrate

# What a test could change of a PostgreSQL schema, read in one statement: tables and views,
# columns, indexes, constraints, triggers, functions, types, and the revision alembic_version
# holds. Each line is a row's text, which quotes its fields: no two schemas give the same lines.
SCHEMA_FINGERPRINT = """
SELECT md5(string_agg(line, E'\\n' ORDER BY line)) FROM (
  SELECT ROW('column', table_name, column_name, data_type, is_nullable, column_default)::text
    FROM information_schema.columns WHERE table_schema = 'public'
  UNION ALL SELECT ROW('table', table_name, table_type)::text
    FROM information_schema.tables WHERE table_schema = 'public'
  UNION ALL SELECT ROW('index', indexname, indexdef)::text
    FROM pg_indexes WHERE schemaname = 'public'
  UNION ALL SELECT ROW('constraint', conname, pg_get_constraintdef(oid))::text
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT ROW('trigger', tgname, tgrelid::regclass::text)::text
    FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT ROW('function', proname, prosrc)::text
    FROM pg_proc WHERE pronamespace = 'public'::regnamespace
  UNION ALL SELECT ROW('type', typname)::text
    FROM pg_type WHERE typnamespace = 'public'::regnamespace
  UNION ALL SELECT ROW('revision', CASE WHEN to_regclass('public.alembic_version') IS NOT NULL
    THEN query_to_xml('SELECT version_num FROM alembic_version', false, false, '')::text END)::text
) AS catalog(line)
"""
# The functions of public that no extension owns: a test's own, which its triggers call.
ROUTINES = (
    "SELECT oid::regprocedure::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace"
    " AND NOT EXISTS (SELECT FROM pg_depend WHERE objid = pg_proc.oid AND deptype = 'e')"
)
SEQUENCES = (
    "SELECT relname FROM pg_class WHERE relkind = 'S' AND relnamespace = 'public'::regnamespace"
)


def fingerprint(conn):
    """The schema's SCHEMA_FINGERPRINT, the same for two schemas that show no difference."""
    return conn.exec_driver_sql(SCHEMA_FINGERPRINT).scalar_one()


def drop_every_table(conn):
    """Drop every table, alembic_version and a test's own included, and a test's functions."""
    tables = MetaData()
    tables.reflect(conn)
    tables.drop_all(conn)
    # Left, a function would keep every later fingerprint from the latest migration's.
    for routine in conn.exec_driver_sql(ROUTINES).scalars().all():
        conn.exec_driver_sql(f"DROP ROUTINE {routine}")


def migrate_to_latest(url):
    """Run the latest migration on the database at url, as make_app would."""
    app = create_app({"DATABASE_URL": url})
    migrate.upgrade(database.of(app))
    database.of(app).dispose()


def latest(url, engine):
    """Make the latest migration on the empty database at url; return its state: .fingerprint,
    and .empty, the statements that delete every row and start every sequence again."""
    with engine.begin() as conn:
        drop_every_table(conn)
    migrate_to_latest(url)
    with engine.begin() as conn:
        tables = MetaData()
        tables.reflect(conn)
        # Referring tables first; the sequences restart as TRUNCATE's RESTART IDENTITY does.
        empty = [
            f'DELETE FROM "{table.name}"'
            for table in reversed(tables.sorted_tables)
            if table.name != "alembic_version"
        ]
        empty += [
            f'ALTER SEQUENCE "{name}" RESTART' for name in conn.exec_driver_sql(SEQUENCES).scalars()
        ]
        return SimpleNamespace(fingerprint=fingerprint(conn), empty="; ".join(empty))
