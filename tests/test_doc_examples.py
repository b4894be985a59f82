"""The runner of the docs' examples (the root conftest.py, tests/support/doc_examples.py): it
fails an example broken by hand, the typed-client blocks pass `mypy --strict` and a misuse of
an answer does not, the one block quoted rather than run is the code's, and docs/client.md's
claims that no example shows hold; and a session's reading, its comparison and its shell's
bound, in process."""

import importlib
import os
import pkgutil
import re

import pytest
from sybil.example import SybilFailure

from harness.processes import ROOT
from support import doc_examples
from support.doc_shell import Command, Shell, matches, session
from support.doc_types import mypy_strict, typed_client_module, typed_pages

API = ROOT / "docs" / "api.md"
# What the setup block of docs/api.md creates, and so names the block that does.
SETUP = '"id": 8'
# A real block broken by hand, as (what the page says, what it is made to say, what the failure
# names), each failing in its own way: nothing answers at 5000, a key is not what the service
# printed, a function's name is unknown.
BREAKS = {
    "a port": ("127.0.0.1:8000/plants?limit=2'", "127.0.0.1:5000/plants?limit=2'", ":5000/"),
    "a JSON key": ('{"id":2,"name":"Fern"}]', '{"id":2,"nmae":"Fern"}]', '"nmae"'),
    "a function's name": ("print(list_plants.sync(", "print(list_plant.sync(", "'list_plant'"),
}


def _examples(text, folder, page):
    # The examples of a page with this text, run against page's service.
    path = folder / "api.md"
    path.write_text(text)
    document = doc_examples.DOCUMENTATION.parse(path)
    document.namespace["doc_page"] = page
    return list(document.examples())


def _the_one_with(examples, marker):
    return next(example for example in examples if marker in str(example.parsed))


@pytest.mark.e2e
def test_an_example_broken_by_hand_fails_where_the_page_as_written_passes(tmp_path):
    text = API.read_text()
    with doc_examples.page(API, tmp_path) as page:
        examples = _examples(text, tmp_path, page)
        _the_one_with(examples, SETUP).evaluate()
        for name, (written, broken, named) in BREAKS.items():
            assert text.count(written) == 1, f"docs/api.md no longer says {written}"
            _the_one_with(examples, written).evaluate()
            wrong = _examples(text.replace(written, broken), tmp_path, page)
            with pytest.raises((SybilFailure, NameError)) as failure:
                _the_one_with(wrong, broken).evaluate()
            assert named in str(failure.value), (name, str(failure.value))


def test_the_typed_client_examples_pass_mypy_strict_and_a_misused_answer_fails(tmp_path):
    modules = typed_pages()
    assert {"api", "client"} <= set(modules)
    # The first example of docs/client.md without the check of what create_plant answered: a
    # Plant, an Error or None.
    checked = "assert isinstance(plant, Plant)"
    client = typed_client_module(ROOT / "docs" / "client.md")
    assert checked in client
    misused = client.replace(checked, "")
    report = mypy_strict({**modules, "misused": misused}, tmp_path)
    errors = report.splitlines()
    assert errors, "mypy found nothing in the misused client example"
    assert all("misused.py" in line for line in errors), report
    assert 'Item "Error" of "Error | Plant | None" has no attribute "name"' in report


def test_the_route_quoted_in_api_md_is_the_code():
    """The one Python block not run (a view of app/, quoted) is the code: its decorators and
    its def line, up to the comment on it."""
    quote = re.search(r"```python\n(@bp\.delete\(.*?\ndef [^:]*:)", API.read_text(), re.DOTALL)
    assert quote is not None
    assert quote[1] in (ROOT / "app" / "plants" / "routes.py").read_text()


def test_the_client_is_as_client_md_says_where_no_example_shows_it():
    """docs/client.md's claims that no example runs: a module of `plantstore_client.api` per tag,
    those it lists, each operation's four functions, and `UNSET` false as a boolean."""
    text = (ROOT / "docs" / "client.md").read_text()
    listed = re.search(r"`plantstore_client\.api\.<tag>` \(([^)]*)\)", text)
    assert listed is not None
    api = importlib.import_module("plantstore_client.api")
    tags = {module.name for module in pkgutil.iter_modules(api.__path__)}
    assert set(re.findall(r"`(\w+)`", listed[1])) == tags
    for tag in tags:
        package = importlib.import_module(f"plantstore_client.api.{tag}")
        for operation in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{operation.name}")
            for function in ("sync", "sync_detailed", "asyncio", "asyncio_detailed"):
                assert callable(getattr(module, function, None)), (module.__name__, function)
    assert not importlib.import_module("plantstore_client.types").UNSET


def test_a_session_is_commands_and_what_each_prints_up_to_a_blank_line_or_comment():
    block = (
        "# A comment.\n"
        "$ curl -s \\\n"
        "    http://127.0.0.1:8000/livez\n"
        '{"status": "ok"}\n'
        "\n"
        "$ TOKEN=$(flask --app wsgi tokens create x 2>/dev/null)\n"
        "# Then:\n"
        "$ echo done\n"
        "done\n"
    )
    assert session(block) == [
        Command(2, "curl -s \\\n    http://127.0.0.1:8000/livez", '{"status": "ok"}\n'),
        Command(6, "TOKEN=$(flask --app wsgi tokens create x 2>/dev/null)", ""),
        Command(8, "echo done", "done\n"),
    ]
    with pytest.raises(ValueError, match="line 1 of the block"):
        session("make run\n")
    assert matches('{"id":"ep_...","when":"..."}\n', '{"id":"ep_x1","when":"2026"}\n')
    assert not matches('{"id":"ep_..."}\n', '{"id":"ev_1"}\n')
    assert not matches("", "an error\n")


def test_a_shell_keeps_variables_between_commands_and_bounds_each(tmp_path):
    shell = Shell({"PATH": os.environ["PATH"], "TMPDIR": str(tmp_path)})
    try:
        assert shell.run("PLANT=Fern") == ""
        assert shell.run("printf %s $PLANT; echo ' to stderr' >&2") == "Fern to stderr\n"
        with pytest.raises(TimeoutError):
            shell.run("sleep 30", timeout=0.2)
        with pytest.raises(RuntimeError, match="stopped"):
            shell.run("echo after")
    finally:
        shell.close()
