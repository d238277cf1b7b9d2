"""The suite can fail: each broken variant of the emulator is caught by the check meant for it."""

from __future__ import annotations

from functools import partial

import pytest
from together_rl_contract_tests import SuiteOptions, SuiteResult, run_suite
from together_rl_contract_tests._results import FAILED

from ._broken import BrokenVariant

NO_SCENARIOS: tuple[str, ...] = ()

# kind -> (options, the check that must fail: (part, check-name substring))
VARIANTS = {
    "drop_status": (
        SuiteOptions(operation_ids=("getForwardBackwardOperation",), phases=("examples", "fuzzing"),
                     max_examples=3, scenario_modules=NO_SCENARIOS),
        ("schemathesis", "response_schema_conformance"),
    ),
    "accept_missing_key": (
        SuiteOptions(operation_ids=("forwardBackward",), phases=("coverage",), max_examples=3,
                     scenario_modules=NO_SCENARIOS),
        ("schemathesis", "missing_required_header"),
    ),
    "replay_creates_new": (
        SuiteOptions(schemathesis=False, scenario_modules=("test_idempotency.py",),
                     pytest_args=("-k", "replay")),
        ("scenario", "test_replay_returns_the_same_operation"),
    ),
    "wrong_loss": (
        SuiteOptions(schemathesis=False, scenario_modules=("test_loss_math.py",),
                     pytest_args=("-k", "importance_sampling or grpo_token_mean_token_beta0.1")),
        ("loss-math", "test_loss_matches_definition"),
    ),
    "500_on_malformed_json": (
        SuiteOptions(schemathesis=False, scenario_modules=("test_validation.py",),
                     pytest_args=("-k", "malformed")),
        ("scenario", "test_malformed_body_is_a_clean_400"),
    ),
    "sample_logprobs_drift": (
        SuiteOptions(schemathesis=False, scenario_modules=("test_sampling.py",),
                     pytest_args=("-k", "logprobs_equal_forward")),
        ("scenario", "test_sample_logprobs_equal_forward_logprobs"),
    ),
    "ignore_cross_field_rule": (
        SuiteOptions(operation_ids=("estimateRollouts",), phases=("examples", "fuzzing"),
                     max_examples=20, scenario_modules=NO_SCENARIOS),
        ("schemathesis", "cross_field_rules"),
    ),
    "ignore_cross_field_rule_scenario": (
        SuiteOptions(schemathesis=False, scenario_modules=("test_rollouts.py",),
                     pytest_args=("-k", "cross_field")),
        ("scenario", "test_a_body_below_its_cross_field_bound_is_refused_naming_the_field"),
    ),
}  # fmt: skip


def _failed(suite: SuiteResult, part: str, check: str) -> list[str]:
    return [
        r.check for r in suite.results if r.status == FAILED and r.part == part and check in r.check
    ]


@pytest.mark.parametrize("kind", sorted(VARIANTS))
def test_broken_variant_is_caught(kind: str, serve_emulator) -> None:  # type: ignore[no-untyped-def]
    options, (part, check) = VARIANTS[kind]
    broken = kind.removesuffix("_scenario")
    with serve_emulator(partial(BrokenVariant, kind=broken)) as target:
        suite = run_suite(target, SuiteOptions(**{**options.__dict__, "progress": False}))
    assert _failed(suite, part, check), (
        f"{kind} was not caught by {part}/{check}; failures: "
        f"{[(r.part, r.check) for r in suite.results if r.status == FAILED]}"
    )


@pytest.mark.parametrize(
    "kind",
    [
        "replay_creates_new",
        "500_on_malformed_json",
        "sample_logprobs_drift",
        "ignore_cross_field_rule",
        "ignore_cross_field_rule_scenario",
    ],
)
def test_same_checks_pass_on_the_real_emulator(kind: str, serve_emulator) -> None:  # type: ignore[no-untyped-def]
    """Control: the checks above fail because of the break, not on their own."""
    options, (_part, check) = VARIANTS[kind]
    with serve_emulator() as target:
        suite = run_suite(target, SuiteOptions(**{**options.__dict__, "progress": False}))
    assert not suite.failed
    assert any(r.status == "passed" and check in r.check for r in suite.results)
