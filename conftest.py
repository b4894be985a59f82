"""README.md's and docs/*.md's examples, run as tests (tests/support/doc_examples.py).

pytest asks for a file's collector only the conftest files at or above it, and the pages are
here and in docs/: so Sybil's collector is wired in here, beside setup.cfg's testpaths that name
the pages with tests/. The fixtures of tests/conftest.py stay where the tests are.
"""

import pytest

from support import doc_examples

_collect_examples = doc_examples.DOCUMENTATION.pytest()


def pytest_collect_file(file_path, parent):
    """Sybil's collector of a page's examples, for the pages alone (not another README.md)."""
    if doc_examples.is_page(file_path):
        return _collect_examples(file_path, parent)
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A page's examples run in order on one xdist worker (one group), which starts its
    service once; they are end to end, which tests/conftest.py orders by (so this runs first)."""
    for item in items:
        if doc_examples.is_page(item.path):
            item.add_marker(pytest.mark.xdist_group(f"examples of {item.path.name}"))
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="module")
def doc_page(request, tmp_path_factory):
    """The service of one page's examples (support.doc_examples.Page): Sybil's file of a page
    is the module of its items."""
    with doc_examples.page(request.path, tmp_path_factory.mktemp("page")) as page:
        yield page
