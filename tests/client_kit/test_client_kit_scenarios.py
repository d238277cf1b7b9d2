"""Scenario files are data validated by the kit's schema; the spec supplies every fact."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from together_rl_client_kit import RULES, ScenarioError, load_scenarios
from together_rl_client_kit import _spec as kit_spec


def test_builtin_scenarios_load_and_cover_every_rule() -> None:
    scenarios = load_scenarios()
    assert len({s.id for s in scenarios}) == len(scenarios)
    judged = {rule for s in scenarios for rule in s.rules}
    assert judged == set(RULES)
    assert {s.level for s in scenarios} == {"MUST", "SHOULD"}


def test_failed_scenarios_expand_over_every_error_code_of_the_spec() -> None:
    codes = kit_spec.enum_values("OperationErrorCode")
    failed = [s for s in load_scenarios() if s.id.startswith("poll.failed.")]
    assert sorted(s.expect.error_code or "" for s in failed) == sorted(codes)
    assert all(s.faults[0].error_code == s.expect.error_code for s in failed)


def test_payload_bodies_sit_where_the_spec_puts_the_threshold() -> None:
    threshold = kit_spec.upload_threshold_bytes()
    assert threshold == 524_288
    by_id = {s.id: s for s in load_scenarios()}
    upload = by_id["payload.upload-large-body"].calls[0].body
    assert len(orjson.dumps(upload)) > threshold


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("scenarios: []", "scenarios: [] should be non-empty"),
        (
            "scenarios: [{id: x, level: MAYBE, title: t, requires: [], rules: [result-returned], "
            "calls: [{op: getTrainingSession}], expect: {ok: true}}]",
            "scenarios/0/level: 'MAYBE' is not one of ['MUST', 'SHOULD']",
        ),
        (
            "scenarios: [{id: x, level: MUST, title: t, requires: [], rules: [be-nice], "
            "calls: [{op: getTrainingSession}], expect: {ok: true}}]",
            "unknown rules ['be-nice']",
        ),
        (
            "scenarios: [{id: x, level: MUST, title: t, requires: [], rules: [result-returned], "
            "calls: [{op: noSuchOperation}], expect: {ok: true}}]",
            "the spec has no operationId 'noSuchOperation'",
        ),
        (
            "scenarios: [{id: x, level: MUST, title: t, requires: [teleport], "
            "rules: [result-returned], calls: [{op: getTrainingSession}], expect: {ok: true}}]",
            "unknown features ['teleport']",
        ),
    ],
)
def test_a_bad_scenario_file_is_refused_naming_the_place(
    tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as raised:
        load_scenarios([path])
    assert str(path) in str(raised.value) or "mine.yaml" in str(raised.value)
    assert words in str(raised.value)
