"""Load, 5-second smoke: 32 async wrapper clients on 8 sessions of an emulator subprocess. The
60-second run with its latency and memory figures is `python -m reliability load`."""

from __future__ import annotations

import pytest

from reliability.load import PIPELINE, Exchange, order_violations, run_load


@pytest.mark.slow
def test_load_smoke_has_no_error_and_keeps_order() -> None:
    report = run_load(clients=32, sessions=8, seconds=5.0)
    assert report.errors == []
    assert set(report.status_counts) == {200}, report.status_counts
    assert report.order_violations == []
    # Every client filled its pipeline at least once and collected every result it submitted.
    assert report.operations >= report.clients * PIPELINE
    assert report.server_error_lines == 0
    assert report.rss_peak_kib > 0


def _ex(method: str, op: str, sent: float, received: float, status: str) -> Exchange:
    return Exchange(method, "s", op, sent, received, 200, status)


def test_order_check_detects_a_swap() -> None:
    """The oracle can fail: B (submitted after A was acknowledged) seen done while A pending."""
    pending, done = "TRAINING_OPERATION_STATUS_PENDING", "TRAINING_OPERATION_STATUS_COMPLETED"
    swapped = [
        _ex("POST", "A", 0.0, 1.0, pending),
        _ex("POST", "B", 2.0, 3.0, pending),
        _ex("GET", "B", 4.0, 5.0, done),
        _ex("GET", "A", 6.0, 7.0, pending),
        _ex("GET", "A", 8.0, 9.0, done),
    ]
    assert order_violations(swapped) == ["session s: B finished before A"]
    in_order = [*swapped[:2], _ex("GET", "A", 4.0, 5.0, done), _ex("GET", "B", 6.0, 7.0, done)]
    assert order_violations(in_order) == []
