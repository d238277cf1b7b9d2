"""Client-kit benchmark: the whole kit (every built-in scenario) against one driver, end to end.

    .venv/bin/python -m benchmarks.bench_client_kit [--no-write]

One run of `together_rl_client_kit.run_kit` per driver (this project's wrapper, the official SDK,
the TypeScript port when `npm run build` has been run in client_kit/ports/typescript, and the
tests' reference client), one after the other, timed by wall clock from the emulator's start to
its stop (driver start-up included). The goal is under 60 s per driver on the 2-core machine.
Writes its section of docs/benchmarks.md between the client-kit markers, with the checked facts
(the scenarios and the drivers' commands) that tests/benchmarks/test_documented_figures.py
recomputes.
"""

from __future__ import annotations

import json
import shlex
import sys
import time
from typing import Any

from together_rl_client_kit import KitOptions, load_scenarios, run_kit

from benchmarks._report import ROOT, RunInfo, Table, bench_arguments, digest, publish

TS_DRIVER = ROOT / "client_kit" / "ports" / "typescript" / "dist" / "driver.js"
DRIVERS = {
    "wrapper (`together_rl`)": "python -m together_rl_client_kit.drivers.wrapper",
    "official SDK `together==3.1.1`": "python -m together_rl_client_kit.drivers.official_sdk",
    "TypeScript port (openapi-fetch)": f"node {TS_DRIVER.relative_to(ROOT)}",
    "reference client (tests)": "python tests/client_kit/reference_driver.py",
}


def _command(documented: str) -> str:
    words = shlex.split(documented)
    if words[0] == "python":
        words[0] = sys.executable
    return shlex.join(words)


def checked_facts(key: str) -> dict[str, Any]:
    assert key == "client_kit.whole_run", key
    ids = [s.id for s in load_scenarios()]
    return {
        "scenarios": len(ids),
        "scenario_ids": digest("\n".join(ids).encode()),
        "must": sum(1 for s in load_scenarios() if s.level == "MUST"),
        "drivers": DRIVERS,
    }


def measure() -> list[list[str]]:
    rows = []
    for name, documented in DRIVERS.items():
        if documented.startswith("node") and not TS_DRIVER.exists():
            rows.append([name, "not built", "", "", ""])
            continue
        started = time.perf_counter()
        report = run_kit(_command(documented), load_scenarios(), KitOptions(cwd=str(ROOT)))
        seconds = time.perf_counter() - started
        counts = ", ".join(f"{n} {v}" for v, n in report.counts().items() if n)
        rows.append([name, f"`{documented}`", counts, f"{seconds:.1f}", str(report.exit_code())])
    return rows


def main(argv: list[str] | None = None) -> int:
    args = bench_arguments(__doc__, quick="accepted for symmetry; no effect").parse_args(argv)
    if args.facts:
        print(json.dumps(checked_facts(args.facts)))
        return 0
    run = RunInfo(".venv/bin/python -m benchmarks.bench_client_kit")
    rows = measure()
    table = Table(
        key="client_kit.whole_run",
        title="The whole client kit against one driver",
        payload=f"the {checked_facts('client_kit.whole_run')['scenarios']} built-in scenarios, "
        "one run per driver, emulator start to stop (driver start-up included)",
        columns=["driver", "command", "verdicts", "seconds", "exit code"],
        rows=rows,
        facts=checked_facts("client_kit.whole_run"),
        align="l l l r r",
        notes=[
            "Most of a run is scripted waiting: Retry-After 1 s and an HTTP date 1-2 s ahead, "
            "retry-after-ms 400, an 800 ms slow answer, 800 ms of PENDING (twice), plus each "
            "client's own backoff after a 503 with Retry-After 0 and its polling schedule. The "
            "official SDK's exit code is 1 because its Trainer takes no caller key (a MUST "
            "scenario NOT_SUPPORTED)."
        ],
    )
    section = "## Client kit (`together-rl-client-kit`)\n\n" + table.render(run.finish())
    return publish("client-kit", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
