"""What every benchmark table in docs/benchmarks.md states, written one way.

A table says what it measured (payload), how (command), where (machine), under what load (load
average at the start and the end of the run) and when (UTC date, git commit). Below it, a JSON
block of *checked facts*: the payload sizes and digests and the code path of every row (entry
points, the bytes that reached the transport, the versions that decide the path). The facts are
computed by running each row once, untimed, with the documented payload;
tests/benchmarks/test_documented_figures.py recomputes them and fails when they differ, that is
when the code at the command can no longer produce the documented figure.

Timings that are compared with each other are taken by `interleaved`: one repetition of each in
turn, so the load of a shared machine falls on all of them alike.

A new table: give it a key in `TABLES`, build it as a `Table` with its own `RunInfo`, and make
its bench's `checked_facts(key, ...)` (behind `--facts KEY`) return the same facts from one
untimed pass.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import hashlib
import importlib.metadata
import json
import math
import os
import platform
import re
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DOC",
    "FACTS_FENCE",
    "ROOT",
    "TABLES",
    "Measured",
    "RunInfo",
    "Table",
    "bench_arguments",
    "digest",
    "documented_facts",
    "interleaved",
    "load_average",
    "publish",
    "versions",
    "write_section",
]

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
FACTS_FENCE = "json bench-facts"
# Every table docs/benchmarks.md holds, by key "<bench>.<table>": `python -m
# benchmarks.bench_<bench> --facts <key>` recomputes its checked facts. A new table goes here.
TABLES = (
    "emulator.forward_backward",
    "wrapper.polling",
    "wrapper.large_batch",
    "wrapper.pipelining",
    "proxy.latency",
    "proxy.bomb",
    "api_diff.versus_redocly",
    "client_kit.whole_run",
    "polling_traces.side_by_side",
    "polling_emulator.side_by_side",
)


def bench_arguments(
    doc: str | None, *, quick: str = "fewer repetitions"
) -> argparse.ArgumentParser:
    """The options every bench takes: `--quick`, `--no-write` (print only) and `--facts TABLE`
    (print that table's checked facts, no timing); a bench adds its own to the parser."""
    parser = argparse.ArgumentParser(description=(doc or "").split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=quick)
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs alone")
    parser.add_argument("--facts", metavar="TABLE", help="print TABLE's checked facts, no timing")
    return parser


# The packages whose version decides a measured code path (the official SDK's above all).
PACKAGES = ("together", "httpx", "orjson", "numpy", "pydantic", "starlette", "uvicorn")


def digest(data: bytes) -> str:
    """Short SHA-256 of bytes: enough to tell two payloads apart in a doc."""
    return hashlib.sha256(data).hexdigest()[:16]


def load_average() -> float:
    with contextlib.suppress(OSError):
        return float(Path("/proc/loadavg").read_text().split()[0])
    return os.getloadavg()[0]


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in PACKAGES:
        with contextlib.suppress(importlib.metadata.PackageNotFoundError):
            found[name] = importlib.metadata.version(name)
    return found


def _cpu() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _commit() -> str:
    """The commit measured, `-dirty` when files outside docs/ differ from it (the benchmarks
    write their tables and plots there, so a run does not mark its own later tables dirty)."""

    def git(*args: str) -> str:
        run = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        )
        return run.stdout.strip()

    try:
        head = git("rev-parse", "--short=10", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)docs")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("-dirty" if changed else "")


@dataclass
class RunInfo:
    """The run of one table: started when created, `finish()` when its measuring is over."""

    command: str
    started: float = field(default_factory=time.perf_counter)
    date: str = field(
        default_factory=lambda: datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    )
    load_start: float = field(default_factory=load_average)
    load_end: float | None = None
    seconds: float | None = None

    def finish(self) -> RunInfo:
        self.load_end = load_average()
        self.seconds = time.perf_counter() - self.started
        return self

    def header(self) -> list[str]:
        load_end = "?" if self.load_end is None else f"{self.load_end:.2f}"
        took = "" if self.seconds is None else f"; this table took {self.seconds:.0f} s"
        installed = ", ".join(f"{k} {v}" for k, v in versions().items())
        return [
            f"- Command: `{self.command}`{took}.",
            f"- Date: {self.date}, commit `{_commit()}`.",
            f"- Machine: {_cpu()}, {os.cpu_count()} CPUs, {platform.system()} "
            f"{platform.release()}; {installed}.",
            f"- Load: 1-min load average {self.load_start:.2f} at the start, {load_end} at the end"
            " (2 CPUs: above ~0.5 other work competes with the run).",
        ]


@dataclass
class Table:
    """A markdown table with its payload, its run and its checked facts."""

    key: str  # "<bench>.<table>", e.g. "wrapper.large_batch": which facts function recomputes it
    title: str
    payload: str
    columns: list[str]
    rows: list[list[str]]
    facts: Mapping[str, Any]
    notes: list[str] = field(default_factory=list)
    align: str = ""  # e.g. "l r r"; default: first column left, the others right

    def render(self, run: RunInfo) -> str:
        aligns = self.align.split() or ["l"] + ["r"] * (len(self.columns) - 1)
        rule = "|" + "|".join("---" if a == "l" else "---:" for a in aligns) + "|"
        block = json.dumps({"table": self.key, "checked": self.facts}, indent=1, sort_keys=True)
        lines = [f"### {self.title}", "", f"Payload: {self.payload}", "", *run.header(), ""]
        lines += ["| " + " | ".join(self.columns) + " |", rule]
        lines += ["| " + " | ".join(row) + " |" for row in self.rows]
        for note in self.notes:  # a paragraph each
            lines += ["", note]
        lines += [
            "",
            "<details><summary>Checked facts (payload and code path of this run; "
            "tests/benchmarks/test_documented_figures.py recomputes them)</summary>",
            "",
            f"```{FACTS_FENCE}",
            block,
            "```",
            "",
            "</details>",
        ]
        return "\n".join(lines)


@dataclass(frozen=True)
class Measured:
    """What a function given to `interleaved` returns when it measures itself (for example
    against a server's clock) rather than being timed by its wall time."""

    seconds: float


def interleaved(fns: Mapping[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median ms of each function, taken side by side: one repetition of each per round, after
    one untimed round (imports, first-call caches). `repeat=0` runs that round only (nan). A
    function that returns `Measured` is counted by what it measured."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            result = fn()
            elapsed = time.perf_counter() - start
            times[name].append(result.seconds if isinstance(result, Measured) else elapsed)
    return {name: 1000 * statistics.median(t) if t else math.nan for name, t in times.items()}


def write_section(name: str, body: str, doc: Path = DOC) -> None:
    """Replace the text between `<!-- name:start -->` and `<!-- name:end -->` in the doc (or
    append the section); the rest of the file is left alone."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{body}\n{end}"
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    if start in text and end in text:
        pattern = re.escape(start) + r".*?" + re.escape(end)
        text = re.sub(pattern, lambda _: block, text, flags=re.DOTALL)
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.parent.mkdir(parents=True, exist_ok=True)
    doc.write_text(text)


def publish(name: str, section: str, no_write: bool) -> int:
    """A bench's last step: print its section and, unless ``--no-write``, put it in the doc
    (:func:`write_section`); the exit code."""
    print(section)
    if not no_write:
        write_section(name, section)
    return 0


def documented_facts(doc: Path = DOC) -> dict[str, Any]:
    """The checked facts of every table in the doc, by table key."""
    found: dict[str, Any] = {}
    pattern = re.escape("```" + FACTS_FENCE) + r"\n(.*?)\n```"
    for match in re.finditer(pattern, doc.read_text(), flags=re.DOTALL):
        block = json.loads(match.group(1))
        found[block["table"]] = block["checked"]
    return found
