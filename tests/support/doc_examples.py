"""The examples of the docs as code the tests run: a page's Python block, by its heading."""

import re

from harness.processes import ROOT

FENCE = re.compile(r"```python\n(.*?)```", re.DOTALL)


def python_block(page, heading):
    """The first ```python block under heading (a line of the page, "### ..." whole) of
    docs/page, as text."""
    text = (ROOT / "docs" / page).read_text()
    start = text.index(f"\n{heading}\n")
    return FENCE.search(text, start).group(1)


def run_block(page, heading, **names):
    """The names python_block(page, heading) defines once run, with names set after it ran
    (what the page leaves to its reader: what to do with an event)."""
    namespace = {"__name__": "doc_example"}
    exec(compile(python_block(page, heading), f"docs/{page}", "exec"), namespace)
    namespace.update(names)
    return namespace
