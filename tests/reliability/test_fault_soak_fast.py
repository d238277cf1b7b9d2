"""Fault soak, fast subset: 100 submissions on 4 sessions, 30 % faults of every kind, through
the wrapper; nothing lost, nothing duplicated, same state as a fault-free run. The long run
(2,000 submissions) is `python -m reliability soak` (make reliability)."""

from __future__ import annotations

import copy

import numpy as np

from reliability._workload import Outcome, SessionState, compare
from reliability.soak import FAULT_KINDS, run_soak


def test_fault_soak_loses_and_duplicates_nothing() -> None:
    report = run_soak(n_submissions=100, n_sessions=4, fault_rate=0.3, seed=7)
    assert report.errors == []
    assert report.operations_created == 100
    assert report.accumulated_passes == report.expected_passes == [25, 25, 25, 25]
    assert report.results_returned == 100
    assert report.comparison.pass_mismatches == []
    assert report.comparison.loss_mismatches == []
    assert report.comparison.max_rel_grad_diff <= 1e-6
    assert report.comparison.max_abs_policy_diff <= 1e-6
    assert set(report.faults_armed) == set(FAULT_KINDS), report.faults_armed
    assert report.faults_left_armed == 0
    # what the wrapper saw matches what was armed (latency is invisible by nature)
    assert report.faults_seen.get("HTTP 429") == report.faults_armed["http_429"]
    assert report.faults_seen.get("HTTP 503") == report.faults_armed["http_503"]
    assert report.faults_seen.get("HTTP 502") == report.faults_armed["http_502_html"]
    assert report.faults_seen.get("connection dropped") == report.faults_armed["drop_after_commit"]
    assert report.ok


def test_comparison_detects_a_gradient_applied_twice() -> None:
    """The oracle can fail: one pass added twice to one session is caught."""
    grads = {"w": np.array([1.0, 2.0])}
    policy = {"w": np.zeros(2)}
    ref = [SessionState(2, copy.deepcopy(grads), policy), SessionState(1, grads, policy)]
    doubled = [SessionState(3, {"w": grads["w"] * 1.5}, policy), SessionState(1, grads, policy)]
    outcome = Outcome(losses={0: 1.0, 1: 2.0})
    result = compare(doubled, ref, outcome, outcome)
    assert not result.identical
    assert result.pass_mismatches and result.max_rel_grad_diff > 1e-6
    assert compare(ref, ref, outcome, outcome).identical
    assert not compare(ref, ref, Outcome(losses={0: 1.0}), outcome).identical  # a lost result
