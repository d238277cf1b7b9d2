"""Client-kit benchmark: the whole kit (every built-in scenario) against one driver, end to end.

    .venv/bin/python -m benchmarks.bench_client_kit [--quick] [--no-write]

Runs of `together_rl_client_kit.run_kit` per driver (this project's wrapper, the official SDK,
the TypeScript port when `npm run build` has been run in client_kit/ports/typescript, and the
tests' reference client), interleaved (one run of each in turn, `ROUNDS` rounds; `--quick`: 1), each
timed by wall clock from the emulator's start to its stop (driver start-up included), after one
untimed run without scenarios (the emulator's and the referee's imports, which would otherwise
fall on the first driver); each round starts every driver at one random phase of the second
(`start_at_phase`). The median per driver, and its ratio to the reference client's. The
goal is under 60 s per driver on the 2-core machine, and the wrapper within 5 % of the
reference client.
Writes its section of docs/benchmarks.md between the client-kit markers, with the checked facts
(the scenarios and the drivers' commands) that tests/benchmarks/test_documented_figures.py
recomputes.
"""

from __future__ import annotations

import json
import random
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from together_rl_client_kit import KitOptions, load_scenarios, run_kit

from benchmarks._report import ROOT, RunInfo, Table, bench_arguments, digest, publish

__all__ = [
    "DRIVERS",
    "ROUNDS",
    "checked_facts",
    "main",
    "measure",
    "per_scenario",
    "start_at_phase",
]

TS_DRIVER = ROOT / "client_kit" / "ports" / "typescript" / "dist" / "driver.js"
DRIVERS = {
    "wrapper (`together_rl`)": "python -m together_rl_client_kit.drivers.wrapper",
    "official SDK `together==3.1.1`": "python -m together_rl_client_kit.drivers.official_sdk",
    "TypeScript port (openapi-fetch)": f"node {TS_DRIVER.relative_to(ROOT)}",
    "reference client (tests)": "python tests/client_kit/reference_driver.py",
}


# Rounds of each driver: the HTTP-date Retry-After's wait alone varies by 1 s with the phase of
# the second, so a median of few runs moves by that much.
ROUNDS = 5


def start_at_phase(
    phase: float,
    clock: Callable[[], float] = time.time,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Wait until the wall clock's fraction of a second is ``phase``. A run ends when an HTTP
    date's whole second has passed plus the scenarios after it, so back-to-back runs start at
    nearly the same phase: the HTTP-date scenario's 1-2 s wait locks to a run's neighbours and a
    driver's median takes whichever whole second that lands on. Each round starts every driver
    at one phase drawn at random: the drivers compared within a round face the same second."""
    sleep((phase - clock()) % 1.0)


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


def measure(rounds: int) -> list[list[str]]:
    options = KitOptions(cwd=str(ROOT))
    run_kit(_command(DRIVERS["reference client (tests)"]), [], options)  # untimed: the imports
    drivers = {
        name: documented
        for name, documented in DRIVERS.items()
        if not (documented.startswith("node") and not TS_DRIVER.exists())
    }
    seconds: dict[str, list[float]] = {name: [] for name in drivers}
    own: dict[str, list[float]] = {name: [] for name in drivers}  # less the scripted waits
    reports = {}
    phases = random.Random(0)
    for _ in range(rounds):
        phase = phases.random()
        for name, documented in drivers.items():
            start_at_phase(phase)
            started = time.perf_counter()
            reports[name] = run_kit(_command(documented), load_scenarios(), options)
            seconds[name].append(time.perf_counter() - started)
            waited = sum(s.scripted_wait for s in reports[name].scenarios)
            own[name].append(seconds[name][-1] - waited)
    median = {name: statistics.median(times) for name, times in seconds.items()}
    own_median = {name: statistics.median(times) for name, times in own.items()}
    reference = median["reference client (tests)"]
    own_reference = own_median["reference client (tests)"]
    rows = []
    for name, documented in DRIVERS.items():
        if name not in drivers:
            rows.append([name, "not built", "", "", "", "", "", "", ""])
            continue
        report = reports[name]
        counts = ", ".join(f"{n} {v}" for v, n in report.counts().items() if n)
        runs = " ".join(f"{t:.1f}" for t in seconds[name])
        rows.append([
            name, f"`{documented}`", counts, f"{median[name]:.1f}", runs,
            f"{median[name] / reference:.2f}", f"{own_median[name]:.1f}",
            f"{own_median[name] / own_reference:.2f}", str(report.exit_code()),
        ])  # fmt: skip
    return rows


def per_scenario(names: list[str]) -> None:
    """Print each scenario's seconds for the drivers named (substrings), side by side: where
    one driver's extra time goes."""
    options = KitOptions(cwd=str(ROOT))
    run_kit(_command(DRIVERS["reference client (tests)"]), [], options)  # untimed: the imports
    chosen = {n: d for n, d in DRIVERS.items() if any(part in n for part in names)}
    seconds = {
        name: {s.id: s.seconds for s in run_kit(_command(d), load_scenarios(), options).scenarios}
        for name, d in chosen.items()
    }
    print("scenario", *chosen, sep=" | ")
    for scenario in load_scenarios():
        print(scenario.id, *(f"{seconds[n][scenario.id]:.2f}" for n in chosen), sep=" | ")
    print("sum", *(f"{sum(seconds[n].values()):.2f}" for n in chosen), sep=" | ")


def main(argv: list[str] | None = None) -> int:
    parser = bench_arguments(__doc__, quick=f"1 round instead of {ROUNDS}")
    parser.add_argument(
        "--per-scenario",
        nargs="+",
        metavar="DRIVER",
        help="print each scenario's seconds for these drivers (name substrings); no doc write",
    )
    args = parser.parse_args(argv)
    if args.per_scenario:
        per_scenario(args.per_scenario)
        return 0
    if args.facts:
        print(json.dumps(checked_facts(args.facts)))
        return 0
    run = RunInfo(
        ".venv/bin/python -m benchmarks.bench_client_kit" + (" --quick" if args.quick else "")
    )
    rows = measure(1 if args.quick else ROUNDS)
    table = Table(
        key="client_kit.whole_run",
        title="The whole client kit against one driver",
        payload=f"the {checked_facts('client_kit.whole_run')['scenarios']} built-in scenarios, "
        f"runs of each driver interleaved ({ROUNDS} rounds: the HTTP date's wait alone varies "
        "by 1 s; each round starts every driver at one phase of the second, drawn at random), "
        "emulator start to stop (driver start-up included)",
        columns=[
            "driver",
            "command",
            "verdicts",
            "median s",
            "runs (s)",
            "x reference",
            "less scripted waits, median s",
            "x reference",
            "exit code",
        ],
        rows=rows,
        facts=checked_facts("client_kit.whole_run"),
        align="l l l r r r r r r",
        notes=[
            "Most of a run is scripted waiting: Retry-After 1 s and an HTTP date 1-2 s ahead, "
            "retry-after-ms 400, an 800 ms slow answer, 800 ms of PENDING (twice), plus each "
            "client's own backoff after a 503 with Retry-After 0 and its polling schedule. The "
            "official SDK's exit code is 1 because its Trainer takes no caller key (a MUST "
            "scenario NOT_SUPPORTED).",
            "Where a client's time goes, scenario by scenario: `.venv/bin/python -m "
            "benchmarks.bench_client_kit --per-scenario wrapper reference` prints each "
            "scenario's seconds side by side. The wrapper's scenarios are level with the "
            "reference client's; what it adds is its driver's start-up (`together_rl` imports "
            "the generated client and numpy, which its first result needs; `python -X "
            "importtime` shows the split). The run less the scripted waits takes off the "
            "Retry-After waits each scenario's faults asked for (the HTTP date's is 1-2 s by "
            "the phase of the second, the noise of the whole run).",
        ],
    )
    section = "## Client kit (`together-rl-client-kit`)\n\n" + table.render(run.finish())
    return publish("client-kit", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
