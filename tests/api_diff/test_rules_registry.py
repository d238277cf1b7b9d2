"""Every kind of change is one entry of the registry (`_rules.RULES`): every kind the comparers
name is registered, none is built from pieces, every entry has a verdict and a message, and
docs/api-changes.md holds the table `--rules-table` prints."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import together_rl_api_diff
from together_rl_api_diff import RULES, judge
from together_rl_api_diff._changes import Finding
from together_rl_api_diff._judging import rules_table

PACKAGE = Path(together_rl_api_diff.__file__).parent
REPO = Path(__file__).resolve().parents[2]
#: the modules that emit findings
EMITTERS = (
    "_comparing.py",
    "_operation_comparison.py",
    "_comparing_schemas.py",
    "_schema_value_checks.py",
    "_patterns.py",
    "_comparing_extra.py",
    "_example_drift.py",
)
_KIND_SHAPED = re.compile(r"^[a-z]+(-[a-z]+)+$")
#: kebab-case strings in the emitters that are not kinds of change
NOT_KINDS = {"content-type", "x-source"}


def _emitter_trees() -> list[tuple[str, ast.Module]]:
    found = []
    for name in EMITTERS:
        path = PACKAGE / name
        if path.is_file():
            found.append((name, ast.parse(path.read_text(encoding="utf-8"))))
    return found


def test_every_kind_named_in_the_comparers_is_registered() -> None:
    named: set[str] = set()
    for _, tree in _emitter_trees():
        for node in ast.walk(tree):
            is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
            if is_text and _KIND_SHAPED.match(node.value):
                named.add(node.value)
    assert named - NOT_KINDS - set(RULES) == set()
    assert set(RULES) - named == set(), "registered kinds no comparer emits"


def test_no_kind_is_built_from_pieces() -> None:
    for name, tree in _emitter_trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
                "Finding",
                "found",
            ):
                first = node.args[0]
                assert not isinstance(first, ast.JoinedStr | ast.BinOp), (
                    f"{name}:{node.lineno}: a kind built from pieces"
                )


@pytest.mark.parametrize("kind", sorted(RULES))
def test_every_entry_has_verdicts_and_a_message(kind: str) -> None:
    rule = RULES[kind]
    assert rule.id == kind
    for position in ("request", "response", "operation"):
        clients, servers = judge(kind, position)  # type: ignore[arg-type]
        assert {clients, servers} <= {"breaking", "compatible", "undecided"}
    text = rule.message.format(old="a", new="b", detail="c")
    assert text and "{" not in text


def test_an_unregistered_kind_cannot_be_emitted() -> None:
    with pytest.raises(KeyError, match=r"not in _rules\.RULES"):
        Finding("made-up-kind", "#/x", "x", None, None, "request")


def test_the_docs_hold_the_rules_table() -> None:
    text = (REPO / "docs" / "api-changes.md").read_text(encoding="utf-8")
    assert rules_table() in text, "docs/api-changes.md: paste `together-rl-api-diff --rules-table`"
