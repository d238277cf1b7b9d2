"""``python -m together_rl_contract_tests``: run the contract suite and write the reports.

With no ``--base-url`` the embedded emulator is started on a free loopback port with two
generated keys. With ``--base-url`` the server is treated as the real, billable API (see
:class:`together_rl_contract_tests.Target`). A preflight checks first that the target can be reached
as this API with this key. Exit code: 0 passed, 1 a conformance failure, 2 the target could not be
checked (not run, or interrupted). ``--dry-run`` lists what would run and sends nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from together_rl_contract_tests._emulator_process import emulator_subprocess
from together_rl_contract_tests._plan import format_plan, schemathesis_plan
from together_rl_contract_tests._results import SuiteResult, summary_table
from together_rl_contract_tests._runner import SuiteOptions, describe, plan_scenarios, run_suite
from together_rl_contract_tests._schemathesis_config import ALL_PHASES
from together_rl_contract_tests._spec import spec_version
from together_rl_contract_tests._target import Target, redact

__all__ = ["main", "parse_args"]

EXTERNAL_MIN_INTERVAL_S = 0.5


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m together_rl_contract_tests",
        description="Check a server against spec/openapi.yaml (default: the embedded emulator).",
    )
    parser.add_argument("--base-url", help="server root without /v1; default: start the emulator")
    parser.add_argument("--api-key", help="API key (default: TOGETHER_API_KEY)")
    parser.add_argument("--second-api-key", help="a second key, to check tenant isolation")
    parser.add_argument(
        "--session-id", help="an existing session; the only one forward-only passes go to"
    )
    parser.add_argument(
        "--allow-mutations",
        action="store_true",
        help="against a non-emulator target: allow creating resources and training (costs money)",
    )
    parser.add_argument("--seed", type=int, default=0, help="schemathesis and emulator seed")
    parser.add_argument(
        "--max-examples", type=int, default=None,
        help="schemathesis examples per operation and phase (default 10; 3 for external targets)",
    )  # fmt: skip
    parser.add_argument(
        "--phases", default=",".join(ALL_PHASES), help="schemathesis phases, comma-separated"
    )
    parser.add_argument("--no-schemathesis", action="store_true", help="skip part 1")
    parser.add_argument("--no-scenarios", action="store_true", help="skip parts 2 and 3")
    parser.add_argument("-k", dest="keyword", help="pytest -k expression for parts 2 and 3")
    parser.add_argument("--report-dir", default="reports", type=Path)
    parser.add_argument("--quiet", action="store_true", help="no progress bar or lines")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="list every check that would run and every skipped one, with why; send nothing",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    external = args.base_url is not None
    options = SuiteOptions(
        seed=args.seed,
        max_examples=args.max_examples or (3 if external else 10),
        phases=tuple(p.strip() for p in args.phases.split(",") if p.strip()),
        schemathesis=not args.no_schemathesis,
        scenario_modules=() if args.no_scenarios else SuiteOptions().scenario_modules,
        pytest_args=("-k", args.keyword) if args.keyword else (),
        report_dir=args.report_dir,
        progress=not args.quiet,
    )
    if external:
        target = Target(
            base_url=args.base_url,
            api_key=args.api_key or os.environ.get("TOGETHER_API_KEY"),
            second_api_key=args.second_api_key,
            session_id=args.session_id,
            allow_mutations=args.allow_mutations,
            min_interval_s=EXTERNAL_MIN_INTERVAL_S,
        )
        if args.dry_run:
            return _dry_run(target, options)
        suite = run_suite(target, options)
    elif args.dry_run:
        embedded = Target(base_url="(embedded emulator)", api_key=None, is_emulator=True)
        return _dry_run(embedded, options)
    else:
        print("[contract] starting the embedded emulator ...", file=sys.stderr, flush=True)
        with emulator_subprocess(seed=args.seed) as target:
            print(f"[contract] emulator at {target.base_url}", file=sys.stderr, flush=True)
            suite = run_suite(target, options)
    if suite.not_run is not None:
        print(f"conformance NOT RUN: {suite.not_run}", file=sys.stderr, flush=True)
    else:
        _print_summary(suite, args.report_dir, target.secrets)
    return suite.exit_code


def _dry_run(target: Target, options: SuiteOptions) -> int:
    """Print the plan; nothing is sent to the target."""
    planned = []
    if options.schemathesis:
        planned += schemathesis_plan(target, options.phases, options.operation_ids)
    if options.scenario_modules:
        planned += plan_scenarios(target, options)
    header = [
        f"Dry run: nothing was sent to {describe(target)}.",
        f"spec version {spec_version()}; schemathesis phases {', '.join(options.phases)}; "
        f"{options.max_examples} examples per operation and phase",
    ]
    print(redact(format_plan(planned, header), target.secrets))
    return 0


def _print_summary(suite: SuiteResult, report_dir: Path, secrets: tuple[str, ...]) -> None:
    lines = ["", summary_table(suite)]
    lines += [f"note: {note}" for note in suite.notes]
    reports = f"{report_dir / 'conformance.junit.xml'}, {report_dir / 'conformance.md'}"
    lines.append(f"reports: {reports}")
    lines.append(suite.headline())
    print(redact("\n".join(lines), secrets))
