"""`together-rl-sdk-drift UPSTREAM...`: where the spec stands against what Together publishes.

UPSTREAM is an official SDK release (`together==X`), one or more OpenAPI documents of
Together's (files or http(s) URLs, merged), or a git revision of the spec (`REV`, `REV:PATH`).
One report for all of them (`_drift_report`): three groups, our rule's `x-source` on each
finding, the schemas paired by use, the operations outside the scope counted.
Exit codes: 0 done (and nothing to fail on), 1 `--fail-on` matched, 2 the upstream or the spec
cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from together_rl_spec import DEFAULT_SPEC_PATH, DocumentError, load_document

from ._drift_formats import DRIFT_FORMATS, render_drift
from ._drift_report import drift_of, only_examples
from ._sdk_surface import SdkSurfaceError
from ._upstream import read_upstream

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="together-rl-sdk-drift",
        description="Where spec/openapi.yaml stands against an official SDK release "
        "(together==X), OpenAPI documents of Together's (files or URLs, merged) or a git "
        "revision of the spec.",
    )
    parser.add_argument(
        "upstream", nargs="+", help="together==X.Y.Z | FILE-or-URL... | REV | REV:PATH"
    )
    parser.add_argument("--spec", default=DEFAULT_SPEC_PATH)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(".venv/sdk-releases"),
        help="wheels to install a release from without the registry, when they hold it",
    )
    parser.add_argument("--offline", action="store_true", help="install from --cache only")
    parser.add_argument(
        "--paths",
        default="/rl/",
        metavar="PART",
        help="compare the operations whose URL path contains PART (default /rl/); "
        "the others are counted",
    )
    parser.add_argument(
        "--only",
        choices=["all", "examples"],
        default="all",
        help="report every difference (all) or only the request examples' (examples: for an "
        "upstream that states examples and nothing else, such as the reference pages' examples)",
    )
    parser.add_argument(
        "--format", choices=sorted(DRIFT_FORMATS), default="text", dest="output_format"
    )
    parser.add_argument(
        "--fail-on",
        choices=["drift", "breaking", "never"],
        default="never",
        help="exit 1 on any unexplained difference (drift) or one that breaks clients",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    try:
        spec = load_document(arguments.spec)
        upstream = read_upstream(
            arguments.upstream, spec, cache=arguments.cache, offline=arguments.offline
        )
        report = drift_of(upstream, scope=arguments.paths)
        if arguments.only == "examples":
            report = only_examples(report)
    except (SdkSurfaceError, DocumentError) as error:
        print(f"together-rl-sdk-drift: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render_drift(report, arguments.output_format))
    if arguments.fail_on == "drift" and report.drift:
        return 1
    if arguments.fail_on == "breaking" and report.breaking:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
