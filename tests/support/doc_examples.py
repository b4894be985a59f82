"""The examples of README.md and docs/*.md as tests, parsed and collected by Sybil: shell blocks
run as sessions against a service of the page's own, Python blocks run in the page's namespace.

A page's blocks run in order against one gunicorn on a SQLite database of the page's own, which
`page` starts (with a page's SETTINGS); the root conftest.py hands Sybil's items to pytest.
"""

import contextlib
import copy
import dataclasses
import fnmatch
import os
import pathlib
import sys

import pytest
from sybil import Document, Lexeme, Sybil
from sybil.evaluators.python import PythonEvaluator
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

from harness.processes import ROOT
from support.doc_shell import Shell, difference, matches, session
from support.live_servers import Servers
from support.tokens import TOKEN

# Where the docs say the service is: what `make run` serves.
ADDRESS = "127.0.0.1:8000"
PAGES = ("README.md", "docs/*.md")
# A page's service settings beyond the defaults, for what its examples show: a rate limit, and
# a receiver that no worker serves (the events wait for the fan-out).
SETTINGS = {
    "docs/rate-limits.md": {"PLANTSTORE_RATE_LIMIT": "1 per minute"},
    "docs/operating.md": {
        "PLANTSTORE_WEBHOOK_URLS": "http://127.0.0.1:9/plants-hook",
        "PLANTSTORE_WEBHOOK_SECRET": "docs-example-secret-0123456789abcdef",
    },
}
# The Python blocks' PLANTS_HOOK_SECRET, as a receiver of the docs reads it: a Standard Webhooks
# secret made up for them (no page's block receives a real delivery).
HOOK_SECRET = "whsec_" + "cGxhbnRzdG9yZS1kb2NzLWV4YW1wbGVzLWhvb2stc2VjcmV0"


def is_page(path):
    """Whether path is one of the pages whose examples run (not another README.md)."""
    relative = os.path.relpath(pathlib.Path(path).resolve(), ROOT)
    return any(fnmatch.fnmatchcase(relative, pattern) for pattern in PAGES)


class Page:
    """The service one page's examples talk to: gunicorn on a SQLite file in folder, started
    as the release step and the Procfile's web line would, with its settings; and the page's
    shell, started at its first command."""

    def __init__(self, folder, name):
        self.servers = Servers(folder, TOKEN)
        database_url = f"sqlite:///{folder / 'plantstore.sqlite'}"
        self.server = self.servers.start(database_url, **SETTINGS.get(name, {}))
        self.url = f"http://127.0.0.1:{self.server.port}"
        bin_folder = os.path.dirname(sys.executable)
        self.env = {
            **os.environ,
            **self.server.env,
            "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}",
            "TOKEN": TOKEN,
            # What a block makes with mktemp stays in the test's folder.
            "TMPDIR": str(folder),
        }
        self._shell = None

    def rewrite(self, text):
        """text with the docs' address of the service made this page's service's."""
        return text.replace(ADDRESS, self.url.removeprefix("http://"))

    @property
    def shell(self):
        """The page's bash process, started at its first command."""
        if self._shell is None:
            self._shell = Shell(self.env)
        return self._shell

    def close(self):
        """Stop the shell and the service."""
        if self._shell is not None:
            self._shell.close()
        self.servers.stop()


@contextlib.contextmanager
def page(path, folder):
    """A Page for the page at path, the Python blocks' PLANTS_* variables set while it lasts."""
    started = Page(folder, pathlib.Path(path).relative_to(ROOT).as_posix())
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PLANTS_URL", started.url)
            patch.setenv("PLANTS_TOKEN", TOKEN)
            patch.setenv("PLANTS_HOOK_SECRET", HOOK_SECRET)
            yield started
    finally:
        started.close()


def evaluate_session(example):
    """Run a shell block as a session (support.doc_shell.session) in the page's shell.

    The docs' address of the service, http://127.0.0.1:8000 (`make run`'s), is rewritten to the
    page's service's in each command and in the output shown, so a block that names another
    port fails. Commands run with bash from the repository root, the venv's bin/ first on PATH
    (`flask` is the venv's), the service's PLANTSTORE_* settings set (a `flask` command reaches
    its database), TOKEN a read-write token of it until a block sets another, and TMPDIR the
    test's folder.
    """
    current = example.namespace["doc_page"]
    for command in session(example.parsed):
        got = current.shell.run(current.rewrite(command.source))
        shown = dataclasses.replace(command, want=current.rewrite(command.want))
        if not matches(shown.want, got):
            line = example.line + command.line
            return f"line {line}: $ {command.source}\n{difference(shown, got)}"
    return None


PYTHON = PythonEvaluator()


def evaluate_python(example):
    """Run a Python block with Sybil's evaluator, in the page's namespace, the docs' address of
    the service rewritten to the page's service's (see evaluate_session)."""
    source = example.parsed
    # A reader runs a block as a script of their own: a module's name that imports nothing.
    example.namespace.setdefault("__name__", "doc_example")
    rewritten = copy.copy(example)
    text = example.namespace["doc_page"].rewrite(str(source))
    rewritten.parsed = Lexeme(text, source.offset, source.line_offset)
    return PYTHON(rewritten)


DOCUMENTATION = Sybil(
    parsers=[
        SkipParser(),
        CodeBlockParser("sh", evaluate_session),
        CodeBlockParser("python", evaluate_python),
    ],
    patterns=PAGES,
    path=str(ROOT),
    fixtures=["doc_page"],
)


def run_block(page_name, heading, **names):
    """Run the first ```python block under heading (a line of docs/page_name, "### ..." whole)
    with Sybil's evaluator, alone; the names it defined, and names set after it ran (what the
    page leaves to its reader: what to do with an event)."""
    document = Document.parse(str(ROOT / "docs" / page_name), PythonCodeBlockParser())
    start = document.text.index(f"\n{heading}\n")
    example = next(example for example in document.examples() if example.start > start)
    example.evaluate()
    document.namespace.update(names)
    return document.namespace
