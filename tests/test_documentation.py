"""README.md and docs/ against the code: the paths, settings and links they name all exist."""

import pathlib
import re
from urllib.parse import urlsplit

import pytest

from app.config import DEFAULTS, OTHER_VARIABLES
from app.webhooks.security import guard

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
README_MOST_LINES = 250

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


@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_every_plantstore_name_is_a_setting_the_service_reads(page):
    known = {f"PLANTSTORE_{key}" for key in DEFAULTS} | set(OTHER_VARIABLES)
    assert sorted(set(SETTING.findall(page.read_text())) - known) == []


def test_every_setting_is_in_the_configuration_page_with_its_default():
    rows = {}
    for line in (ROOT / "docs" / "configuration.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 3 and SETTING.fullmatch(cells[0].strip("`")):
            rows[cells[0].strip("`")] = cells[2]
    wrong = {}
    for key, default in DEFAULTS.items():
        shown = rows.get(f"PLANTSTORE_{key}")
        expected = "none" if default == "" else str(default)
        if shown is None or (default is not None and expected not in shown):
            wrong[key] = (default, shown)
    assert wrong == {}


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


def test_the_readme_is_read_in_five_minutes():
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= README_MOST_LINES


def test_the_guard_page_names_every_range_the_guard_refuses_or_reads_through():
    page = (ROOT / "docs" / "webhook-endpoints.md").read_text()
    ranges = [network for network, *_why in (*guard.NOT_PUBLIC, *guard.CARRIERS)]
    assert [str(each) for each in ranges if f"`{each}`" not in page] == []
    assert f"`{guard.GLOBAL_UNICAST}`" in page
