"""What a test does when something it needs is missing.

Under `CI=true` (set by `.ci/run`), a tool, file or package that the project installs or ships
(npx and Redocly, make, the example files, the pinned `together` SDK) must be there: a test that
needs it fails. Elsewhere it is skipped, and `-ra` prints the reason in the summary.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType
from typing import NoReturn

import pytest

__all__ = ["IN_CI", "import_required", "missing"]

IN_CI = os.environ.get("CI", "").strip().lower() in {"1", "true", "yes"}


def missing(reason: str) -> NoReturn:
    """Fail under CI (the project installs this), skip with `reason` elsewhere."""
    if IN_CI:
        pytest.fail(f"{reason} (required under CI=true)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def import_required(name: str, version: str | None = None) -> ModuleType:
    """`importlib.import_module(name)`, or `missing(...)` if it is not installed (or is not the
    pinned `version`)."""
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        missing(f"{name} is not installed ({error}); `make venv` installs it")
    found = getattr(module, "__version__", None)
    if version is not None and found != version:
        missing(f"{name} {found} is installed, the tests need {version}; `make venv` installs it")
    return module
