"""The realistic-traces benchmark refuses, before it measures anything, to write a table that
would not be whole: without matplotlib its plot would stay the older one, and without the
TypeScript port's build its row would be left out."""

from __future__ import annotations

import sys

import pytest

from benchmarks import bench_polling_traces
from benchmarks._report import ROOT


def refuse_to_measure(*_: object) -> None:
    raise AssertionError("measured although the table could not be written whole")


def test_without_matplotlib_no_table_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # its import now fails
    monkeypatch.setattr(bench_polling_traces, "measure", refuse_to_measure)
    with pytest.raises(SystemExit, match=r"matplotlib is missing.*--no-write"):
        bench_polling_traces.main([])


def test_without_the_typescript_port_nothing_is_measured(monkeypatch: pytest.MonkeyPatch) -> None:
    missing = ROOT / "no-such-build" / "driver.js"
    monkeypatch.setattr(bench_polling_traces, "TS_DRIVER", missing)
    monkeypatch.setattr(bench_polling_traces, "realistic_emulator", refuse_to_measure)
    with pytest.raises(SystemExit, match=r"driver\.js is missing"):
        bench_polling_traces.measure(quick=True)
