"""The spec tests. Shared helpers live in `_spec_schema.py` (the spec, its operations and examples)
and `_sdk_responses.py` (spec-valid answers for the official SDK); test modules import those,
never each other (tests/test_layout.py checks it). The fixtures of the emulator and the live
server come from tests/conftest.py; the pinned `together` SDK is loaded with
`ci_policy.import_required`, so that under CI=true its absence fails."""

from __future__ import annotations

__all__: list[str] = []
