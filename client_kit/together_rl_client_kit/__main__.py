"""`together-rl-client-kit --driver "COMMAND"` (also `python -m together_rl_client_kit`).

Exit code: 0 every MUST scenario passed (expected failures excepted) and no expected-failures
entry is stale; 1 otherwise; 2 the kit could not run (bad arguments or scenario files).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ._publish import publish
from ._report import apply_expected_failures, read_expected_failures, render
from ._runner import KitOptions, run_kit
from ._scenarios import ScenarioError, load_scenarios
from ._types import FEATURES

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="together-rl-client-kit",
        description="Judge a client of the RL training API through a driver process "
        "(see docs/ports.md for the protocol).",
    )
    parser.add_argument("--driver", help="the driver command (split like a shell would)")
    parser.add_argument("--format", choices=("markdown", "json", "junit"), default="markdown")
    parser.add_argument("--output", type=Path, help="write the report there (default: stdout)")
    parser.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        help="a scenario file (repeat); default: the built-in ones",
    )
    parser.add_argument("--only", action="append", help="run only this scenario id (repeat)")
    parser.add_argument(
        "--expected-failures", type=Path, help="scenario ids expected to fail, one a line"
    )
    parser.add_argument(
        "--call-timeout", type=float, default=30.0, help="seconds per call (default 30)"
    )
    parser.add_argument(
        "--handshake-timeout", type=float, default=30.0, help="seconds for the declaration"
    )
    parser.add_argument(
        "--publish",
        type=Path,
        help="rewrite the results table between the markers of this document",
    )
    parser.add_argument(
        "--list", action="store_true", help="list the scenarios and features, run nothing"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        scenarios = load_scenarios(args.scenarios)
        expected = read_expected_failures(args.expected_failures) if args.expected_failures else {}
    except (ScenarioError, OSError) as error:
        print(f"together-rl-client-kit: {error}", file=sys.stderr)
        return 2
    if args.list:
        for scenario in scenarios:
            features = ", ".join(sorted(scenario.features()))
            print(f"{scenario.id}\t{scenario.level}\t{features}\t{scenario.title}")
        print("\nfeatures:")
        for feature, text in FEATURES.items():
            print(f"  {feature}: {text}")
        return 0
    if not args.driver:
        print(
            "together-rl-client-kit: give the driver command: --driver 'COMMAND'", file=sys.stderr
        )
        return 2
    options = KitOptions(
        call_timeout=args.call_timeout,
        handshake_timeout=args.handshake_timeout,
        only=frozenset(args.only) if args.only else None,
    )
    report = run_kit(args.driver, scenarios, options)
    apply_expected_failures(report, expected)
    text = render(report, args.format)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.publish:
        publish(args.publish, report)
    print(report.summary(), file=sys.stderr)
    return report.exit_code()


if __name__ == "__main__":
    sys.exit(main())
