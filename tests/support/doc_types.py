"""The Python blocks of the docs that use the typed client, type-checked as `mypy --strict` does."""

import pathlib

from mypy import api
from sybil import Document
from sybil.parsers.markdown import PythonCodeBlockParser

from harness.processes import ROOT

# The client's package (docs/client.md): a block that imports it is type-checked.
CLIENT_PACKAGE = "plantstore_client"


def typed_client_module(path):
    """The Python blocks of the page at path from the first that imports the client on, in
    order, as one module (they share the page's namespace when they run); None if none does."""
    document = Document.parse(str(path), PythonCodeBlockParser())
    blocks = [str(example.parsed) for example in document.examples()]
    first = next((n for n, block in enumerate(blocks) if CLIENT_PACKAGE in block), None)
    return None if first is None else "\n".join(blocks[first:])


def mypy_strict(modules, folder):
    """mypy --strict's report on modules ({name: source}), written into folder; "" when it
    finds nothing. One run for them all: mypy's start and its reading of the client and httpx
    cost more than the blocks."""
    paths = []
    for name, source in modules.items():
        path = pathlib.Path(folder) / f"{name}.py"
        path.write_text(source)
        paths.append(str(path))
    cache = pathlib.Path(folder) / "mypy_cache"
    stdout, stderr, status = api.run(
        ["--strict", "--no-error-summary", "--cache-dir", str(cache), *paths]
    )
    return "" if status == 0 else stdout + stderr


def typed_pages():
    """The pages' typed-client modules, by a name made from each page's path."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    modules = {page.stem.replace("-", "_"): typed_client_module(page) for page in pages}
    return {name: module for name, module in modules.items() if module is not None}
