"""An operation's own rule list (`x-rules`) is compared as a schema's is: an entry added,
removed or changed (the upload threshold's number included) is one change that binds both
sides; the entries' `x-source` alone is no change."""

from __future__ import annotations

import copy
from typing import Any

from together_rl_api_diff import compare_documents
from together_rl_spec import Document

RULE = {"rule": "Bodies over 10 bytes are uploaded.", "x-upload-threshold-bytes": 10}
BASE: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1.0.0"},
    "paths": {
        "/upload": {
            "post": {
                "x-rules": [{**RULE, "x-source": "emulator"}],
                "responses": {"200": {"description": "ok"}},
            }
        }
    },
}


def _edited(rules: list[dict[str, Any]] | None) -> dict[str, Any]:
    edited = copy.deepcopy(BASE)
    operation = edited["paths"]["/upload"]["post"]
    if rules is None:
        del operation["x-rules"]
    else:
        operation["x-rules"] = rules
    return edited


def _changes(new: dict[str, Any]) -> list[tuple[str, str, str, Any, Any]]:
    report = compare_documents(Document("old", BASE), Document("new", new))
    return [(c.kind, c.clients, c.servers, c.old, c.new) for c in report.changes]


def test_the_threshold_changed_is_one_change_breaking_both_sides() -> None:
    moved = {**RULE, "x-upload-threshold-bytes": 20, "x-source": "emulator"}
    kind, clients, servers, old, new = _changes(_edited([moved]))[0]
    assert (kind, clients, servers) == ("operation-rules-changed", "breaking", "breaking")
    assert old == [RULE] and new == [{**RULE, "x-upload-threshold-bytes": 20}]


def test_a_rule_removed_or_added_is_reported() -> None:
    assert [c[0] for c in _changes(_edited(None))] == ["operation-rules-changed"]
    added = [{**RULE, "x-source": "emulator"}, {"rule": "Another.", "x-source": "emulator"}]
    assert _changes(_edited(added))[0][3:] == (None, [{"rule": "Another."}])


def test_a_source_changed_alone_is_no_change() -> None:
    assert _changes(_edited([{**RULE, "x-source": "docs:post-training/x"}])) == []
