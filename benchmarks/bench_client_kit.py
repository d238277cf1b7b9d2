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
            "Where the wrapper's extra time went (`.venv/bin/python -m "
            "benchmarks.bench_client_kit --per-scenario wrapper reference`: each scenario's "
            "seconds, side by side; 2026-12-03 on this 2-core machine under a load average of "
            "3-4): before "
            "this change the wrapper's scenarios took 10.5 s against the reference's 7.4 s. "
            "1.0 s went to its first retry after a dropped or truncated connection (0.25 s of "
            "backoff, in five scenarios; now `reconnect_delay`, 20 ms), 1.2 s to the two "
            "scenarios that hold an operation PENDING 800 ms (each is its session's first "
            "operation, searched with GETs 3 x apart: 15, 45, 135, 405, 1215 ms, collected at "
            "1.26 s; now 2 x apart, collected at 0.96 s), 0.5 s to the two payload scenarios "
            "(level with the reference after the two changes; not analysed further). "
            "After it: 7.09 s against 6.85 s (+0.24 s: the two PENDING scenarios, 0.2 s each, "
            "the search's lateness), and the driver's start-up (its imports: numpy, the "
            "generated models) about 0.3 s more than the reference's.",
            "On a quiet machine (load average 0.3-0.4, 2026-12-03 17:20-17:29 UTC) the whole run "
            "took the wrapper 1.08-1.10 x the reference's time. The two PENDING scenarios took "
            "1.01 s each against 0.83 s: each is its session's first operation, and the client's "
            "earlier sessions, of one operation each, had left it no duration, so it was searched"
            " with GETs 2 x apart. Now a session's first operation of a kind leaves the client "
            "the middle of its bracket, past its plan an operation is polled a bound (5 %) of its"
            " time so far apart (20 ms at least), and one PENDING hold is not passed on to later "
            "sessions: 0.83 s each, level with the reference (`--per-scenario wrapper reference`,"
            " 2026-12-03 23:16 UTC: the scenarios 6.41 s against 6.29 s, of which the HTTP-date "
            "one 1.40 against 1.24). The rest is the driver's start-up: its declaration after "
            "0.51 s against 0.28 s, its exit 0.09 s against 0.05 s (medians of 5; `together_rl` "
            "imports the generated models and numpy). The run less the scripted waits takes off "
            "the Retry-After waits each scenario's faults asked for (the HTTP date's is 1-2 s by "
            "the phase of the second, the noise of the whole run).",
            "On 2026-12-05, before each round started its drivers at one phase of the second, "
            "back-to-back runs locked to the second (every run 7.0-7.1 or 8.0-8.1 s) and the "
            "wrapper's median came out at 1.11, 0.93 and 1.12 x the reference's in three runs "
            "(`e8531c3` twice, `c0140d4`; 1.06, 0.95 and 1.04 x less the scripted waits). With "
            "the phase drawn per round, two runs at `b03eb05`: 1.04 and 1.00 x (1.02 and 1.02 x "
            "less the scripted waits), each round's pair within 0.4 s. The wrapper's scenarios "
            "are level: `--per-scenario wrapper reference` gave 4.94 s against 5.09 s for all but"
            " the HTTP-date one, whose time is mostly its 1-2 s wait. What it adds is the "
            "driver's start-up: importing it takes 0.45 s against the reference's 0.20 s (`python"
            " -X importtime`, self times summed by package: the generated client 0.13 s, numpy "
            "0.06 s, `together_rl` itself 0.05 s). Neither import can be put off: the generated "
            "endpoints import the models they read, and the first result is a numpy array.",
        ],
    )
    section = "## Client kit (`together-rl-client-kit`)\n\n" + table.render(run.finish())
    return publish("client-kit", section, args.no_write)


if __name__ == "__main__":
    sys.exit(main())
