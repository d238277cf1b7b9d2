"""The test tree's own rules: no test module imports another (shared code lives in helper
modules and conftest.py files), and no file is named after an issue."""

from __future__ import annotations

import ast
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_no_test_module_imports_another() -> None:
    offenders = {
        f"{path.relative_to(TESTS)} imports {name}"
        for path in TESTS.rglob("test_*.py")
        for name in _imported_modules(path)
        if name.rsplit(".", 1)[-1].startswith("test_")
    }
    assert not offenders, sorted(offenders)


def test_no_file_is_named_after_an_issue() -> None:
    named = [p.name for p in TESTS.rglob("*.py") if re.search(r"issue_?\d", p.name, re.I)]
    assert named == []


def test_every_shared_test_module_is_listed_in_the_testing_docs() -> None:
    """docs/testing.md ("Where shared test code lives") names every helper module and conftest
    of the test tree, so a new one cannot hide."""
    docs = (TESTS.parent / "docs" / "testing.md").read_text(encoding="utf-8")
    shared = [
        path.relative_to(TESTS.parent).as_posix()
        for path in sorted(TESTS.rglob("*.py"))
        if not path.name.startswith("test_") and path.name != "__init__.py"
    ]
    # A helper may be named by its file name alone; a conftest.py only by its path.
    unlisted = [
        name
        for name in shared
        if name not in docs and (Path(name).name == "conftest.py" or Path(name).name not in docs)
    ]
    assert not unlisted, f"add to docs/testing.md (Where shared test code lives): {unlisted}"
