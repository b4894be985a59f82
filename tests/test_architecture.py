"""docs/architecture.md and the README's map against the tree of app/; one name for one module,
and no two modules or packages (of app/, tests/support/, harness/) a letter apart; no text run as
code; values converted by the data layer alone; and each table's statements in that table's
module alone."""

import ast
import collections
import itertools
import pathlib
import re

import pytest

# Importing app imports every feature, and so puts every table in the metadata.
from app.database import metadata

ROOT = pathlib.Path(__file__).resolve().parent.parent
APP = ROOT / "app"
# Alembic's environment and revisions are files the tool reads, named by their folder.
DATA_FOLDERS = ("app/database/migrations/",)
# Each table, and the module (or package) that owns its statements.
OWNERS = {
    "plants": "app/plants/store.py",
    "tokens": "app/tokens/store.py",
    "deliveries": "app/webhooks/tables/deliveries/",
    "events": "app/events/",
    "event_cursors": "app/events/cursors.py",
    "feed_epochs": "app/events/store.py",
    "webhook_endpoints": "app/webhooks/tables/endpoints/",
    "webhook_endpoint_timelines": "app/webhooks/tables/endpoints/",
    "webhook_disables": "app/webhooks/tables/disables.py",
    "webhook_windows": "app/webhooks/tables/window_sizes.py",
    "webhook_window_workers": "app/webhooks/tables/window_sizes.py",
    "webhook_endpoint_changes": "app/webhooks/tables/endpoints/",
}


def named(page):
    """Every code path a page names in backquotes."""
    return set(re.findall(r"`(app/[\w./]*)`", (ROOT / page).read_text()))


def modules():
    """Every module of app/, as its path from the repository's root."""
    paths = (path.relative_to(ROOT).as_posix() for path in APP.rglob("*.py"))
    return sorted(path for path in paths if not path.startswith(DATA_FOLDERS))


@pytest.mark.parametrize("module", modules())
def test_the_architecture_names_every_module(module):
    names = named("docs/architecture.md")
    package = module.removesuffix("__init__.py")
    assert module in names or package in names


# The names several features' modules share: each is the same part of its own feature.
SHARED_STEMS = {"__init__", "routes", "schemas", "store", "cli", "settings"}


def test_no_two_modules_of_app_share_a_name_but_a_feature_s_parts():
    stems = collections.Counter(pathlib.Path(module).stem for module in modules())
    assert {stem for stem, count in stems.items() if count > 1} <= SHARED_STEMS


# The trees whose modules and packages are named for a reader: the service, the suite's support
# and the harness. A name a letter from another's is read as the other (issue 58).
NAMED_TREES = ("app", "tests/support", "harness")


def names_in_trees():
    """Every module's stem and every package's name under NAMED_TREES, with their paths
    (the trees themselves are the roots imports start from, not parts)."""
    found = collections.defaultdict(set)
    for tree in NAMED_TREES:
        for path in (ROOT / tree).rglob("*"):
            where = path.relative_to(ROOT).as_posix()
            if "__pycache__" in path.parts or where.startswith(DATA_FOLDERS):
                continue
            if path.is_dir() and (path / "__init__.py").exists():
                found[path.name].add(where + "/")
            elif path.suffix == ".py" and path.stem != "__init__":
                found[path.stem].add(where)
    return found


def one_edit_apart(one, other):
    """Whether one becomes other by adding, dropping or changing one letter (a plural's s too)."""
    if len(one) > len(other):
        one, other = other, one
    if len(other) - len(one) > 1 or one == other:
        return False
    if len(one) == len(other):
        return sum(a != b for a, b in zip(one, other, strict=True)) == 1
    return any(other[:i] + other[i + 1 :] == one for i in range(len(other)))


def near_equal(names):
    """Each pair of names a letter apart, with the paths that bear them."""
    return [
        (sorted(names[one]), sorted(names[other]))
        for one, other in itertools.combinations(sorted(names), 2)
        if one_edit_apart(one, other)
    ]


@pytest.mark.parametrize(
    ("one", "other", "apart"),
    [
        ("command", "commands", True),
        ("log", "logs", True),
        ("clock", "block", True),
        ("receiver", "receivers", True),
        ("clock", "locks", False),
        ("store", "store", False),
        ("cli", "cli_base", False),
    ],
)
def test_one_edit_apart_is_a_letter_added_dropped_or_changed(one, other, apart):
    assert one_edit_apart(one, other) is apart
    assert one_edit_apart(other, one) is apart


def test_no_two_modules_or_packages_have_names_a_letter_apart():
    names = names_in_trees()
    assert {"database", "webhooks", "tables", "chaos"} <= set(names)
    assert near_equal(names) == []


def test_app_runs_no_text_as_code():
    calls = [
        f"{module}:{node.lineno}"
        for module in modules()
        for node in ast.walk(ast.parse((ROOT / module).read_text()))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("eval", "exec", "compile")
    ]
    assert calls == []


def parts():
    """Every module and package directly in app/ and in app/webhooks/."""
    found = []
    for folder in (APP, APP / "webhooks"):
        for path in folder.iterdir():
            if path.name not in ("__init__.py", "__pycache__"):
                found.append(path.relative_to(ROOT).as_posix() + ("/" if path.is_dir() else ""))
    return sorted(found)


@pytest.mark.parametrize("part", parts())
def test_the_readme_map_names_every_part_of_app_and_of_webhooks(part):
    assert part in named("README.md")


def _uses(table):
    # SQL text naming the table, or a Core statement built from its Table (named as the table).
    return re.compile(
        rf"\b(?:INSERT INTO|UPDATE|DELETE FROM|FROM|JOIN|TABLE)\s+{table}\b"
        rf"|\b{table}\.(?:c\b|alias\(|insert\(\)|update\(\)|delete\(\))"
        rf"|\b(?:select|insert|update|delete)\({table}\b"
        rf'|\bTable\(\s*"{table}"'
    )


def test_every_table_has_an_owner():
    assert set(OWNERS) == set(metadata.tables)


@pytest.mark.parametrize("table", sorted(OWNERS))
def test_a_table_is_written_and_read_in_its_module_alone(table):
    statement = _uses(table)
    users = [path for path in modules() if statement.search((ROOT / path).read_text())]
    assert users and all(path.startswith(OWNERS[table]) for path in users), users


def test_values_are_converted_in_the_data_layer_alone():
    # Values go both ways by the columns' types, and every statement with values runs through
    # Statement.execute, which binds the clock too: no caller converts, binds a time, or runs
    # SQL past it (a table lock is SQL with no values).
    converting = re.compile(
        r"\b(?:bind|read)_time\b|_processor\(|\bdb\.(?:now|later)\("
        r"|\bcursor\.execute(?:many)?\((?!LOCK\))"
    )
    callers = [
        f"{module}:{number}"
        for module in modules()
        if not module.startswith("app/database/")
        for number, line in enumerate((ROOT / module).read_text().splitlines(), 1)
        if converting.search(line)
    ]
    assert callers == []
