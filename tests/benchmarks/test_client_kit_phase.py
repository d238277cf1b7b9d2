"""The client-kit bench starts each round's drivers at one phase of the second, so that the
HTTP-date Retry-After's whole-second wait does not lock to the run before (fake clock)."""

from __future__ import annotations

import pytest

from benchmarks.bench_client_kit import start_at_phase


@pytest.mark.parametrize(
    ("now", "phase", "waited"),
    [(100.25, 0.75, 0.5), (100.75, 0.25, 0.5), (100.5, 0.5, 0.0), (100.9, 0.0, 0.1)],
)
def test_a_run_starts_at_the_phase_asked(now: float, phase: float, waited: float) -> None:
    sleeps: list[float] = []
    start_at_phase(phase, clock=lambda: now, sleep=sleeps.append)
    assert sleeps == [pytest.approx(waited)]
    assert (now + sleeps[0]) % 1.0 == pytest.approx(phase % 1.0, abs=1e-9)
