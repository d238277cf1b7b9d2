"""Shared use, fast set: every probe family but the command line (tests/emulator covers it) and
the large body (the long run sends 29 MB, `python -m reliability shared`) holds."""

from __future__ import annotations

from reliability.shared_use import Probe, SharedUseReport, run_shared_use


def test_every_probe_holds() -> None:
    report = run_shared_use(slow=False)
    assert report.failures == []
    families = {p.family for p in report.probes}
    assert families >= {"clock", "stats", "oracle", "integers", "query", "files", "seeds"}
    assert len(report.probes) >= 25


def test_a_probe_that_did_not_hold_fails_the_report() -> None:
    report = SharedUseReport([Probe("clock", "x", True), Probe("oracle", "y", False, "403 vs 404")])
    assert not report.ok
    assert report.failures == ["oracle: y: 403 vs 404"]
    assert report.by_family == {"clock": "1/1", "oracle": "0/1"}
