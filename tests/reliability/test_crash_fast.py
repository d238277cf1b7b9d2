"""Crash loop, fast subset: 3 kill -9 of the emulator subprocess (--state-dir) during a stream of
150 submissions from the wrapper, restarted on the same port and state dir each time. The long
run is `python -m reliability crash` (make reliability).

OPTIM-STEP (issue 6): the stream (reliability/_workload.py) gains optimizer steps there; this
test then also proves that no step is lost or applied twice (policy comparison)."""

from __future__ import annotations

from pathlib import Path

from reliability.crash import run_crash_loop


def test_kill9_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    report = run_crash_loop(n_submissions=150, n_sessions=2, kills=3, seed=11, state_dir=tmp_path)
    assert report.errors == []
    assert report.kills == 3 and report.restarts == 3
    assert report.operations_stored == report.idempotency_records == 150
    assert report.unfinished_operations == 0
    assert report.accumulated_passes == report.expected_passes == [75, 75]
    assert report.results_returned == 150
    assert report.comparison.identical, report.comparison
    assert report.ok
