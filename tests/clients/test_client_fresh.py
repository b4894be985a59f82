"""clients/python is what `make client` makes of today's document: a stale client fails."""

import difflib

import pytest

from clients import generate

# What building, installing or importing the client leaves beside it (its .gitignore's).
LEFTOVERS = {"__pycache__", "build", "dist", ".ruff_cache", ".pytest_cache"}
DIFF_LINES = 40


def files(folder):
    """Every file under folder, by its path relative to folder, as bytes; leftovers skipped."""
    found = {}
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if path.is_file() and not any(
            part in LEFTOVERS or part.endswith(".egg-info") for part in parts
        ):
            found["/".join(parts)] = path.read_bytes()
    return found


def differences(checked_in, fresh):
    """What differs between two trees of files, file by file, with a short diff of each."""
    report = []
    for name in sorted(checked_in.keys() | fresh.keys()):
        old, new = checked_in.get(name), fresh.get(name)
        if old == new:
            continue
        if old is None or new is None:
            report.append(f"{name}: only in the {'fresh' if old is None else 'checked-in'} client")
            continue
        diff = difflib.unified_diff(
            old.decode(errors="replace").splitlines(),
            new.decode(errors="replace").splitlines(),
            f"clients/python/{name}",
            f"fresh/{name}",
            lineterm="",
        )
        report.append("\n".join(list(diff)[:DIFF_LINES]))
    return report


def test_checked_in_client_is_what_the_document_generates(tmp_path):
    fresh = tmp_path / "python"
    generate.generate(fresh)
    report = differences(files(generate.CLIENT), files(fresh))
    if report:
        pytest.fail("clients/python is stale; run `make client`:\n" + "\n".join(report), False)
