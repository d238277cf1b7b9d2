"""Fault soak, fast subset: 100 forward-backward submissions on 4 sessions with an optimizer step
after every 6th of a session and a weights-sync after every 3rd step, 30 % faults of every kind,
through the wrapper; nothing lost, nothing duplicated, the same final policy as a fault-free run.
The long run (2,000 submissions) is `python -m reliability soak` (make reliability)."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import together_rl
from together_rl_emulator import serve_emulator

from reliability._workload import (
    FORWARD_BACKWARD,
    OPTIM_STEP,
    TRAINING_CHECKPOINT,
    WEIGHTS_SYNC,
    Outcome,
    SessionState,
    Step,
    app_session_states,
    compare,
    count_by_kind,
    reference_run,
    run_stream,
    stream,
)
from reliability.soak import FAULT_KINDS, route_key, run_soak


def test_stream_interleaves_optimizer_steps_and_syncs() -> None:
    steps = stream(100, 4, optim_every=6, sync_every=3)
    assert count_by_kind(steps) == {
        FORWARD_BACKWARD: 100, OPTIM_STEP: 16, WEIGHTS_SYNC: 4, TRAINING_CHECKPOINT: 4
    }  # fmt: skip
    first = [s.kind for s in steps if s.session == 0][:23]
    assert first == ([FORWARD_BACKWARD] * 6 + [OPTIM_STEP]) * 2 + [FORWARD_BACKWARD] * 6 + [
        OPTIM_STEP, WEIGHTS_SYNC, TRAINING_CHECKPOINT,
    ]  # fmt: skip


@pytest.mark.slow
def test_fault_soak_loses_and_duplicates_nothing() -> None:
    report = run_soak(n_submissions=100, n_sessions=4, fault_rate=0.3, seed=7)
    assert report.errors == []
    expected = {FORWARD_BACKWARD: 100, OPTIM_STEP: 16, WEIGHTS_SYNC: 4, TRAINING_CHECKPOINT: 4}
    assert report.expected_operations == expected
    assert report.operations_created == expected
    assert report.results_returned == expected
    assert report.accumulated_passes == report.expected_passes == [1, 1, 1, 1]
    assert report.steps == report.expected_steps == [4, 4, 4, 4]
    assert report.weights_versions == report.expected_weights_versions == [1, 1, 1, 1]
    assert report.comparison.counter_mismatches == []
    assert report.comparison.result_mismatches == []
    assert report.comparison.max_rel_grad_diff <= 1e-6
    assert report.comparison.max_abs_policy_diff <= 1e-6
    assert report.comparison.max_abs_other_diff <= 1e-6
    assert set(report.faults_armed) == set(FAULT_KINDS), report.faults_armed
    assert report.faults_left_armed == 0
    # what the wrapper saw matches what was armed (latency is invisible by nature)
    assert report.faults_seen.get("HTTP 429") == report.faults_armed["http_429"]
    assert report.faults_seen.get("HTTP 503") == report.faults_armed["http_503"]
    assert report.faults_seen.get("HTTP 502") == report.faults_armed["http_502_html"]
    assert report.faults_seen.get("connection dropped") == report.faults_armed["drop_after_commit"]
    assert report.ok


def test_route_keys_cover_every_operation_kind() -> None:
    base = "/v1/rl/training-sessions/sess-1/operations"
    assert route_key("POST", f"{base}/optim-step") == (
        "POST /v1/rl/training-sessions/{session_id}/operations/optim-step"
    )
    assert route_key("GET", f"{base}/weights-sync/op-1") == (
        "GET /v1/rl/training-sessions/{session_id}/operations/weights-sync/{operation_id}"
    )
    assert route_key("GET", "/v1/rl/training-sessions/sess-1") == (
        "GET /v1/rl/training-sessions/{session_id}"
    )


def test_comparison_detects_a_gradient_applied_twice() -> None:
    """The oracle can fail: one pass added twice to one session is caught."""
    grads = {"w": np.array([1.0, 2.0])}
    policy = {"w": np.zeros(2)}
    ref = [SessionState(2, copy.deepcopy(grads), policy), SessionState(1, grads, policy)]
    doubled = [SessionState(3, {"w": grads["w"] * 1.5}, policy), SessionState(1, grads, policy)]
    outcome = Outcome(results={(FORWARD_BACKWARD, 0): 1.0, (FORWARD_BACKWARD, 1): 2.0})
    result = compare(doubled, ref, outcome, outcome)
    assert not result.identical
    assert result.counter_mismatches and result.max_rel_grad_diff > 1e-6
    assert compare(ref, ref, outcome, outcome).identical
    lost = Outcome(results={(FORWARD_BACKWARD, 0): 1.0})
    assert not compare(ref, ref, lost, outcome).identical


def _run_steps(steps: list[Step]) -> tuple[list[SessionState], Outcome]:
    server = serve_emulator(api_keys=["oracle-key"], seed=0)
    try:
        ids, outcome = run_stream(
            lambda: together_rl.Client(api_key="oracle-key", base_url=server.base_url),
            steps, n_sessions=1, seed=5,
        )  # fmt: skip
        return app_session_states(server.app, ids), outcome
    finally:
        server.stop()


def test_policy_comparison_detects_a_doubled_pass_or_step() -> None:
    """The policy oracle can fail, on the real emulator: a forward-backward applied twice before
    an optimizer step (its pass counter is reset by the step, only the weights keep the trace), or
    an optimizer step applied twice, gives weights far from the fault-free run's."""
    steps = stream(12, 1, optim_every=6, sync_every=2)
    assert [s.kind for s in steps][-3:] == [OPTIM_STEP, WEIGHTS_SYNC, TRAINING_CHECKPOINT]
    ref_states, ref_out = reference_run(steps, 1, seed=5)
    extra_fb = _run_steps([steps[0], *steps])  # forward-backward 0 submitted twice
    cmp_fb = compare(extra_fb[0], ref_states, extra_fb[1], ref_out)
    assert extra_fb[0][0].accumulated_passes == ref_states[0].accumulated_passes == 0
    assert cmp_fb.max_abs_policy_diff > 1e-6
    extra_step = _run_steps([*steps[:7], steps[6], *steps[7:]])  # optim-step 0 submitted twice
    cmp_step = compare(extra_step[0], ref_states, extra_step[1], ref_out)
    assert cmp_step.max_abs_policy_diff > 1e-6 and cmp_step.counter_mismatches
