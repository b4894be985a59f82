"""The revisions a serving process reads without Alembic (revisions.py) are Alembic's: the
shipped ones, two branches, and their merge."""

import shutil

import pytest

from app.database import migrate, revisions


def alembics():
    """(heads, every revision) as Alembic reads them from the same folder."""
    script = migrate.script_directory()
    return frozenset(script.get_heads()), frozenset(r.revision for r in script.walk_revisions())


def read():
    """(heads, every revision) as a serving process reads them, read afresh."""
    revisions.shipped.cache_clear()
    return revisions.shipped()


@pytest.fixture
def versions(tmp_path, monkeypatch):
    """A copy of the shipped revisions, which both read instead: its versions folder."""
    scripts = tmp_path / "migrations"
    shutil.copytree(
        revisions.SCRIPT_LOCATION, scripts, ignore=shutil.ignore_patterns("__pycache__")
    )
    monkeypatch.setattr(revisions, "SCRIPT_LOCATION", scripts)
    monkeypatch.setattr(migrate, "SCRIPT_LOCATION", scripts)
    yield scripts / "versions"
    revisions.shipped.cache_clear()  # the next reader reads the shipped folder again


def write(versions, revision, down_revision):
    """A revision file as script.py.mako writes one, changing nothing."""
    (versions / f"{revision}_test.py").write_text(
        f'"""A test revision."""\n\nrevision = {revision!r}\ndown_revision = {down_revision!r}\n'
        "branch_labels = None\ndepends_on = None\n\n\ndef upgrade():\n    pass\n\n\n"
        "def downgrade():\n    pass\n"
    )


def test_the_shipped_revisions_are_read_as_alembic_reads_them(versions):
    heads, known = read()
    assert (heads, known) == alembics()
    assert len(heads) == 1
    assert len(known) == len(list(versions.glob("*.py")))


def test_two_branches_are_two_heads_and_their_merge_the_one(versions):
    (head,) = read()[0]
    write(versions, "branch_a", head)
    write(versions, "branch_b", head)
    assert read() == alembics()
    assert read()[0] == {"branch_a", "branch_b"}
    write(versions, "merge", ("branch_a", "branch_b"))
    assert read() == alembics()
    assert read()[0] == {"merge"}
