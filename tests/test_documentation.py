"""README.md and docs/ against the code: the paths, settings, code names and links they name
all exist; and the settings and code names app/'s own docstrings and comments name."""

import ast
import builtins
import functools
import importlib
import importlib.util
import inspect
import pathlib
import re
import textwrap
from fnmatch import fnmatch
from urllib.parse import urlsplit

import flask
import pytest

from app import FEATURES, config_docs
from app.config import OTHER_VARIABLES
from app.config_spec import defaults
from app.database import metadata
from app.webhooks.security import guard

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
README_MOST_LINES = 250
# Every setting's default, by name, as the features' specs declare them.
DEFAULTS = defaults(FEATURES)

# A path into the repository's code, from where a word starts; `<name>` is a placeholder.
CODE_PATH = re.compile(r"(?<![\w./-])(?:app|tests|bench|deploy)/[\w./*<>-]*")
TEST_CASE = re.compile(r"(tests/[\w./-]+\.py)::(\w+)")
PLACEHOLDER = re.compile(r"<[^<>]*>")
SETTING = re.compile(r"\bPLANTSTORE_[A-Z0-9_]*[A-Z0-9]\b")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
URL = re.compile(r"https?://[^\s)>\]`'\"]+")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
# Hosts a reader's own machine answers for, and the names reserved for examples (RFC 2606).
LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
EXAMPLE_DOMAINS = ("example", "example.com", "example.net", "example.org")

APP = ROOT / "app"
# The folders of the project's code, beside the files at the root.
CODE_FOLDERS = ("app", "bench", "clients", "deploy", "harness", "tests")
# Alembic's environment and revisions, files the tool loads, and the command line, which runs
# when imported: not modules to import.
NOT_MODULES = ("app/database/migrations/", "app/__main__.py")
# An inline code span: a run of backquotes, the code, and a run as long (CommonMark).
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.DOTALL)
ENVIRON_READ = re.compile(r"""(?:environ\.get\(|environ\[|getenv\()\s*["'](PLANTSTORE_\w+)""")
# A setting spelt without its prefix, as app.config's key is (`WEBHOOK_CLAIM_BATCH`).
UNPREFIXED_SETTING = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
SENTENCE_END = re.compile(r"\.\s|\n\s*\n|\|")
SAYS_GONE = re.compile(r"\b(?:gone|replaces|no more)\b", re.IGNORECASE)
# Settings the service no longer reads, which a page may name in a sentence saying so.
GONE_SETTINGS = {
    "WEBHOOK_CLAIM_BATCH",  # the worker's fixed claim, replaced by claims that follow the backlog
    "SQLITE_BUSY_TIMEOUT",  # replaced by DATABASE_TIMEOUT, one bound for every wait
    "DATABASE_POOL_TIMEOUT",  # replaced by DATABASE_TIMEOUT too
}
# The shapes of a code name, each the whole of a code span (test_every_code_name_named_exists).
DOTTED = re.compile(r"(\w+(?:\.\w+)+)(?:\([^()]*\))?")
CALL = re.compile(r"([a-z_][a-z0-9_]*)\([^()]*\)")
CAMEL_CASE = re.compile(r"[A-Z]+[a-z0-9]+(?:[A-Z]+[a-z0-9]+)+")
SNAKE_CASE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")
FILE_NAME = re.compile(r"[\w./*<>-]+\.(?:py|pyc|md|toml|cfg|ini|json|conf|txt|yml|jinja|sqlite)")
WORD = re.compile(r"\w+")
SQL_CALL = re.compile(r"\b(\w+)\(")
# Snake-case names no Python code has: the database's, the kernel's, a library's option.
OUTSIDE_NAMES = {
    "max_connections",  # PostgreSQL's setting
    "epoll_pwait",  # a system call, as strace counts it
    "swallow_errors",  # an option of flask-limiter that the service leaves off
    "name_gw0",  # the test databases, one per pytest-xdist worker, named after the given one
    "name_gw1",  # the same
    "default_pool_size",  # PgBouncer's settings, which the deploying page sizes
    "max_client_conn",
}


def page_id(page):
    """The page's path from the repository's root, as a test id."""
    return str(page.relative_to(ROOT))


def prose(text):
    """The text without its fenced code blocks, where brackets are code rather than links."""
    return FENCE.sub("", text)


def slug(heading):
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page):
    """Every anchor a page's headings make, a repeated one numbered as GitHub does."""
    seen = {}
    for line in prose(page.read_text()).splitlines():
        match = re.match(r"#{1,6} (.+)", line)
        if match:
            name = slug(match.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
            if count:
                seen[f"{name}-{count}"] = 1
    return set(seen)


def ignored_folders():
    """The folders .gitignore names, which a run makes rather than a clone holds."""
    lines = (ROOT / ".gitignore").read_text().splitlines()
    return {line.strip() for line in lines if line.strip().endswith("/")}


def path_exists(path):
    """Whether a named path (a glob, if it holds `*`) is in the repository, or is made by a run."""
    pattern = PLACEHOLDER.sub("*", path)
    if any(pattern.startswith(folder) for folder in ignored_folders()):
        return True
    return any(ROOT.glob(pattern)) if "*" in pattern else (ROOT / pattern).exists()


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_code_path_named_exists(page):
    named = {path.rstrip(".,;:") for path in CODE_PATH.findall(page.read_text())}
    assert sorted(path for path in named if not path_exists(path)) == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_test_case_named_is_defined_in_its_module(page):
    named = set(TEST_CASE.findall(page.read_text()))
    missing = [
        f"{path}::{name}"
        for path, name in sorted(named)
        if not re.search(rf"^def {name}\(", (ROOT / path).read_text(), re.MULTILINE)
    ]
    assert missing == []


def app_files():
    """Every Python file of app/."""
    return sorted(APP.rglob("*.py"))


@functools.cache
def settings_read():
    """Every PLANTSTORE_* variable something reads: a setting of a feature create_app reads
    (DEFAULTS), the test suite's (OTHER_VARIABLES), and each one read with os.environ in app/,
    bench/, harness/ or tests/."""
    read = {f"PLANTSTORE_{key}" for key in DEFAULTS} | set(OTHER_VARIABLES)
    for folder in ("app", "bench", "harness", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            read |= set(ENVIRON_READ.findall(path.read_text()))
    return read


def sentence_at(text, start, end):
    """The sentence (or table cell) of text that holds text[start:end]."""
    starts = [match.end() for match in SENTENCE_END.finditer(text, 0, start)]
    after = SENTENCE_END.search(text, end)
    return text[starts[-1] if starts else 0 : after.start() if after else len(text)]


def settings_named(text):
    """Each setting text names, as (its name with the prefix, the sentence naming it): every
    PLANTSTORE_* name, and every code span spelt as a setting without its prefix, whose first
    word is a setting's (`WEBHOOK_...`, `DATABASE_...`, `SQLITE_...`), but a name the project's
    Python defines (a constant such as `EVENT_TYPES`)."""
    named = [(match[0], sentence_at(text, *match.span())) for match in SETTING.finditer(text)]
    first_words = {key.split("_")[0] for key in DEFAULTS}
    text = prose(text)
    for match in CODE_SPAN.finditer(text):
        name = match[2].strip()
        if name in defined():
            continue
        if UNPREFIXED_SETTING.fullmatch(name) and name.split("_")[0] in first_words:
            named.append((f"PLANTSTORE_{name}", sentence_at(text, *match.span())))
    return named


def said_gone(name, sentence):
    """Whether a setting is one of GONE_SETTINGS, named in a sentence that says it is gone."""
    return name.removeprefix("PLANTSTORE_") in GONE_SETTINGS and bool(SAYS_GONE.search(sentence))


def unread_settings(text):
    """The settings text names that nothing reads, but a gone one in a sentence saying so."""
    unread = [
        (name, sentence) for name, sentence in settings_named(text) if name not in settings_read()
    ]
    return sorted({name for name, sentence in unread if not said_gone(name, sentence)})


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_plantstore_name_is_a_setting_the_service_reads(page):
    """Each PLANTSTORE_* name of a page, and each code span spelt as a setting without its
    prefix, is a setting something reads (settings_read); a setting that is gone may be named
    only in a sentence that says so ("is gone", "replaces", "no more"), and only if it is one
    of GONE_SETTINGS."""
    assert unread_settings(page.read_text()) == []


def test_every_plantstore_name_in_app_is_a_setting_the_service_reads():
    named = {path: unread_settings(path.read_text()) for path in app_files()}
    assert {str(path.relative_to(ROOT)): names for path, names in named.items() if names} == {}


def test_the_configuration_page_holds_the_tables_the_specs_make():
    """docs/configuration.md's tables of settings are those `make settings-table` writes: each
    setting of the specs once, with its name, meaning and default as declared, and no other."""
    page = (ROOT / "docs" / "configuration.md").read_text()
    assert page == config_docs.with_tables(page, FEATURES)
    rows = re.findall(r"^\| `(PLANTSTORE_\w+)` \|", page, re.MULTILINE)
    assert sorted(rows) == sorted(f"PLANTSTORE_{key}" for key in DEFAULTS)


def test_the_tables_change_with_a_setting_s_name_default_or_meaning():
    page = (ROOT / "docs" / "configuration.md").read_text()
    feature, *others = FEATURES
    setting, *rest = feature.settings
    for changed in (
        setting._replace(name="RENAMED"),
        setting._replace(default=7),
        setting._replace(meaning="another meaning"),
    ):
        features = (feature._replace(settings=(changed, *rest)), *others)
        assert config_docs.with_tables(page, features) != page


def test_the_settings_command_writes_the_tables_into_the_page(make_app, tmp_path):
    written = (ROOT / "docs" / "configuration.md").read_text()
    page = tmp_path / "configuration.md"
    page.write_text(config_docs.with_tables(written, ()))
    runner = make_app().test_cli_runner()
    result = runner.invoke(args=["settings", "table", str(page)])
    assert result.exit_code == 0, result.output
    assert page.read_text() == written
    printed = runner.invoke(args=["settings", "table"]).output
    assert printed == config_docs.tables(FEATURES)


def resolves(page, target):
    """Whether a relative link of page leads to a file of the repository, and to its anchor."""
    path, _, anchor = target.partition("#")
    linked = (page.parent / path).resolve() if path else page
    if not linked.exists() or ROOT not in linked.parents:
        return False
    return not anchor or linked.suffix != ".md" or anchor in anchors(linked)


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_relative_link_resolves(page):
    targets = LINK.findall(prose(page.read_text()))
    relative = [target for target in targets if not urlsplit(target).scheme]
    assert [target for target in relative if not resolves(page, target)] == []


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_no_link_leaves_the_repository(page):
    outside = []
    for url in URL.findall(page.read_text()):
        host = urlsplit(url).hostname or ""
        example = any(host == name or host.endswith(f".{name}") for name in EXAMPLE_DOMAINS)
        if host not in LOCAL_HOSTS and not example:
            outside.append(url)
    assert outside == []


def ignored(relative):
    """Whether a file is in a folder .gitignore names (made by a run), or is compiled."""
    folders = [f"{'/'.join(relative.parts[:end])}/" for end in range(1, len(relative.parts))]
    names = [f"{part}/" for part in relative.parts[:-1]]
    return relative.suffix == ".pyc" or any(
        fnmatch(each, pattern) for pattern in ignored_folders() for each in folders + names
    )


def code_files():
    """Every file of the project's code and configuration: not markdown, and not this module,
    whose lists of names would otherwise vouch for them."""
    paths = [path for path in ROOT.iterdir() if path.is_file()]
    paths += [path for folder in CODE_FOLDERS for path in (ROOT / folder).rglob("*")]
    return sorted(
        path
        for path in paths
        if path.is_file()
        and path.suffix != ".md"
        and path != pathlib.Path(__file__).resolve()
        and not ignored(path.relative_to(ROOT))
    )


@functools.cache
def trees():
    """The syntax tree of every Python file of the project's code."""
    return {path: ast.parse(path.read_text()) for path in code_files() if path.suffix == ".py"}


@functools.cache
def words():
    """Every word of the project's code and configuration: identifiers, SQL, texts, comments."""
    texts = (path.read_text("utf-8", "replace") for path in code_files())
    return {word for text in texts for word in WORD.findall(text)}


@functools.cache
def defined():
    """Every name the project's Python defines at any depth: a def, a class, an assignment to
    a name or to an attribute of self."""
    names = set()
    for tree in trees().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Name | ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.id if isinstance(node, ast.Name) else node.attr)
    return names


@functools.cache
def imported():
    """Every name the project's Python imports from a module by name, as it calls it."""
    return {
        (alias.asname or alias.name).split(".")[0]
        for tree in trees().values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }


def outside(name):
    """Whether a top-level module is not one of the project's own (app, wsgi, tests' helpers):
    installed (.venv may lie inside the checkout), or outside the checkout."""
    spec = importlib.util.find_spec(name)
    if spec is None:
        return False
    origin = pathlib.Path(spec.origin or ROOT)
    return "site-packages" in origin.parts or ROOT not in origin.parents


@functools.cache
def libraries():
    """builtins, and every module outside the project that its Python imports (the top-level
    package: aiohttp, not aiohttp.payload)."""
    names = set()
    for tree in trees().values():
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names.add(node.module.split(".")[0])
    names = sorted(name for name in names - {"__future__"} if outside(name))
    return [builtins, *(importlib.import_module(name) for name in names)]


def of_a_library(name):
    """Whether name is builtin, or an attribute of a library the project imports (aiohttp's
    `BytesPayload`)."""
    return any(hasattr(module, name) for module in libraries())


@functools.cache
def sql_calls():
    """The functions app/'s SQL calls: in its texts (`pg_current_xact_id()`) and through
    SQLAlchemy's func (`func.clock_timestamp()`)."""
    nodes = [
        node for path, tree in trees().items() if APP in path.parents for node in ast.walk(tree)
    ]
    texts = {
        name
        for node in nodes
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        for name in SQL_CALL.findall(node.value)
    }
    return texts | {
        node.attr
        for node in nodes
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "func"
    }


@functools.cache
def app_modules():
    """Every module and package of app/ that may be imported, by its dotted name."""
    names = []
    for path in app_files():
        relative = path.relative_to(ROOT)
        if not relative.as_posix().startswith(NOT_MODULES):
            parts = relative.with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@functools.cache
def app_module_words():
    """Each word of a module's dotted name, a dotted code name's first word when it is app/'s."""
    return {part for name in app_modules() for part in name.split(".")}


@functools.cache
def app_classes():
    """{name: the modules of app/ defining a class of that name at their top level}."""
    classes = {}
    for name in app_modules():
        path = ROOT / name.replace(".", "/")
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
        for node in trees()[path].body:
            if isinstance(node, ast.ClassDef):
                classes.setdefault(node.name, []).append(name)
    return classes


def instance_attributes(cls):
    """The attributes a class's instances have but the class may not: the annotated ones (a
    dataclass's fields), and those its methods assign to self."""
    names = set()
    for each in cls.__mro__:
        names |= set(vars(each).get("__annotations__", {}))
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(each)))
        except (OSError, TypeError):
            continue
        names |= {
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        }
    return names


def has_path(thing, names):
    """Whether thing.name1.name2... exists; the last name may be an instance's attribute."""
    for index, name in enumerate(names):
        if hasattr(thing, name):
            thing = getattr(thing, name)
        else:
            last = index == len(names) - 1
            return last and isinstance(thing, type) and name in instance_attributes(thing)
    return True


def app_path_resolves(parts):
    """Whether a dotted name whose first word is a module of app/ names what app/ has."""
    starts = [
        (importlib.import_module(module), parts[count:])
        for count in range(len(parts), 0, -1)
        for module in app_modules()
        if module.split(".")[-count:] == parts[:count]
    ]
    if parts[0] == "app":
        # `app` is also the application, as Flask's own pages call it (`app.url_map`).
        starts.append((flask.Flask("app"), parts[1:]))
    return any(has_path(thing, rest) for thing, rest in starts)


def is_a_column(parts):
    """Whether table.column names a column of app/'s tables (`events.xid`)."""
    table = metadata.tables.get(parts[0])
    return len(parts) == 2 and table is not None and parts[1] in table.c


def code_name_exists(token):
    """Whether a code span that names code of the project's names what the code has; true of a
    span that names none (see test_every_code_name_named_exists)."""
    if FILE_NAME.fullmatch(token) or (ROOT / token).is_file():
        return True
    if dotted := DOTTED.fullmatch(token):
        parts = dotted[1].split(".")
        if is_a_column(parts):
            return True
        if parts[0] in app_module_words():
            return app_path_resolves(parts)
        if parts[0] in app_classes():
            classes = (
                getattr(importlib.import_module(module), parts[0])
                for module in app_classes()[parts[0]]
            )
            return any(has_path(cls, parts[1:]) for cls in classes)
        if parts[0][0].isupper():
            return parts[0] in defined() | imported() or of_a_library(parts[0])
        return True
    if call := CALL.fullmatch(token):
        name = call[1]
        return name in defined() or name in sql_calls() or of_a_library(name)
    if CAMEL_CASE.fullmatch(token):
        return token in defined() | imported() or of_a_library(token)
    if SNAKE_CASE.fullmatch(token):
        return token in words() or token in OUTSIDE_NAMES or of_a_library(token)
    return True


def missing_code_names(text):
    """The code names of text's code spans that the code does not have, each once."""
    tokens = {match[2].strip() for match in CODE_SPAN.finditer(text)}
    return sorted(token for token in tokens if not code_name_exists(token))


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_code_name_named_exists(page):
    """Each code span of a page (outside its fenced blocks) that names the project's code names
    what the code has. A span is taken whole, with the one rule its shape calls for:

    - a file name (`wsgi.py`, `nginx.conf`) is not code; nor is a span with a space in it (a
      command, SQL, an error's text) or a hyphen (an HTTP header), which no rule below takes;
    - a dotted name, optionally called (`events.Announcing.run`, `tables.deliveries.queue.claim`,
      `settings.of(app)`): when its first word is a module or package of app/, some module of
      app/ whose dotted name ends with its leading words, imported, has the words left as
      attributes (`events` is app/events.py, app/plants/events.py and
      app/webhooks/tables/events.py; `app` is also the Flask application, `app.url_map`); the
      last may be an instance's (annotated, or assigned to self). A table's column
      (`events.xid`) is not code. When its first word is a class at the top of a module of
      app/ (`Ledger.exchange`), the class has the rest; when it is another capitalised name,
      the project defines or imports it, or a library the project imports has it
      (`ClientSession`). Any other first word is not app/'s (`json.dumps`, `plant.created`,
      and the generated client's `plantstore_client.types`);
    - a bare call, `fan_out()` or `init_app(app)`: the project's Python defines the function
      (app/, tests/, bench/, harness/, clients/), or app/'s SQL calls it
      (`pg_current_xact_id()`), or it is builtin or a library's;
    - a CamelCase name of two words or more (`WebhookSettings`, `HTTPTokenAuth`): the project
      defines or imports it, or a library the project imports has it (`BytesPayload`). A
      single capitalised word is left alone: as often an HTTP header (`Link`, `Allow`), a plant
      or English as a class;
    - a snake_case name with an underscore and no call (`as_dict`, `created_at`): as often a
      column, a JSON field, a gunicorn or PostgreSQL setting as Python, so it is only held to
      be a word somewhere in the project's code or configuration (any file but markdown and
      this one), or a library's, or one of OUTSIDE_NAMES; one without an underscore is a word.

    Any other span (a number, a path, a header, a value, a setting) is left to the other tests.
    """
    assert missing_code_names(prose(page.read_text())) == []


def test_every_code_name_in_the_docstrings_and_comments_of_app_exists():
    """The same of app/'s own code spans (``events.Announcing.run``); as a snake_case word is
    in app/ when its docstring names it, only the other shapes tell anything here. A name
    its docstrings and comments do not quote is not read: those are as often another
    library's (alembic's command.current, click's ClickException) or an old table's column."""
    named = {path: missing_code_names(path.read_text()) for path in app_files()}
    assert {str(path.relative_to(ROOT)): names for path, names in named.items() if names} == {}


def test_the_readme_is_read_in_five_minutes():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MOST_LINES


def test_the_guard_page_names_every_range_the_guard_refuses_or_reads_through():
    page = (ROOT / "docs" / "webhook-endpoints.md").read_text()
    ranges = [network for network, *_why in (*guard.NOT_PUBLIC, *guard.CARRIERS)]
    assert [str(each) for each in ranges if f"`{each}`" not in page] == []
    assert f"`{guard.GLOBAL_UNICAST}`" in page
