"""The contract suite's own reading of the spec's cross-field rule (`x-at-least`): a body below
its bound is a problem naming the field, with the rule's source; what it says of the source
decides whether another server's breach is a failure or a difference."""

from __future__ import annotations

import copy
from typing import Any

from together_rl_contract_tests._spec import spec
from together_rl_contract_tests._spec_check import SpecJudge, installed_judge

BODY: dict[str, Any] = {
    "base_model": "Qwen/Qwen3-8B",
    "episodes": 10,
    "concurrency": 2,
    "prompt_tokens": 8,
    "turns": 2,
    "generated_tokens_per_turn": 16,
    "added_tokens_per_turn": 16,
}
REQUEST = {"$ref": "#/components/schemas/RolloutEstimateRequest"}


def test_a_body_on_its_bound_has_no_problem() -> None:
    assert installed_judge().value_problems(REQUEST, BODY) == []


def test_a_body_below_its_bound_names_the_field_and_the_rule() -> None:
    problems = installed_judge().value_problems(REQUEST, dict(BODY, added_tokens_per_turn=15))
    assert [(p.field, p.reason) for p in problems] == [
        ("added_tokens_per_turn", "15 is less than generated_tokens_per_turn (16)")
    ]
    (rule,) = problems[0].rules
    assert rule.keyword == "x-at-least"
    assert rule.where == "#/components/schemas/RolloutEstimateRequest"
    assert rule.source == "docs:post-training/rollouts-estimate"
    assert not problems[0].emulator_choice


def test_a_rule_of_this_project_s_choice_is_a_difference() -> None:
    document = copy.deepcopy(spec())
    document["components"]["schemas"]["RolloutEstimateRequest"]["x-source"]["x-at-least"] = (
        "emulator"
    )
    problems = SpecJudge(document).value_problems(REQUEST, dict(BODY, added_tokens_per_turn=1))
    assert len(problems) == 1 and problems[0].emulator_choice
