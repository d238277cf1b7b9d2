"""Crash loop, fast subset: 3 kill -9 of the emulator subprocess (--state-dir) during a stream of
150 forward-backward submissions with optimizer steps and weights-syncs between them, from the
wrapper, restarted on the same port and state dir each time. The long run is
`python -m reliability crash` (make reliability)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from reliability._workload import FORWARD_BACKWARD, OPTIM_STEP, TRAINING_CHECKPOINT, WEIGHTS_SYNC
from reliability.crash import run_crash_loop


@pytest.mark.slow
def test_kill9_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    report = run_crash_loop(n_submissions=150, n_sessions=2, kills=3, seed=11, state_dir=tmp_path)
    assert report.errors == []
    assert report.kills == 3 and report.restarts == 3
    expected = {FORWARD_BACKWARD: 150, OPTIM_STEP: 24, WEIGHTS_SYNC: 8, TRAINING_CHECKPOINT: 8}
    assert report.expected_operations == expected
    assert report.operations_stored == report.idempotency_records == expected
    assert report.unfinished_operations == 0
    assert report.accumulated_passes == report.expected_passes == [3, 3]
    assert report.steps == report.expected_steps == [12, 12]
    assert report.results_returned == expected
    assert report.comparison.identical, report.comparison
    assert report.ok
    # One checkpoint per checkpoint operation: none lost, none duplicated by a retry or a re-run.
    with sqlite3.connect(tmp_path / "state.sqlite3") as db:
        (checkpoints,) = db.execute("SELECT COUNT(*) FROM checkpoints").fetchone()
    assert checkpoints == expected[TRAINING_CHECKPOINT]
