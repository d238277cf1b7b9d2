"""`together-rl-api-diff OLD NEW`: what an edit of an OpenAPI document breaks, and for whom.

Exit codes: 0 done (and nothing to fail on), 1 `--fail-on` matched, 2 a document could not be read.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from together_rl_spec import DEFAULT_SPEC_PATH, DocumentError, load_document

from ._changelog import write_entry
from ._comparing import compare_documents
from ._formats import FORMATS, render, render_changelog_entry
from ._impact import impact_of, impact_table, is_project_spec
from ._judging import rules_table
from ._keywords import PROJECT_KEYWORDS, load_keywords

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="together-rl-api-diff",
        description="Compare two OpenAPI 3.0/3.1 documents; judge every change for clients and "
        "for servers. OLD and NEW are files, REV:PATH, or a git revision REV of "
        f"{DEFAULT_SPEC_PATH}.",
    )
    parser.add_argument("old", nargs="?", help="the old document")
    parser.add_argument("new", nargs="?", default=DEFAULT_SPEC_PATH, help="the new document")
    parser.add_argument(
        "--paths",
        metavar="PREFIX",
        help="only operations whose URL path (server URL path + path) contains PREFIX",
    )
    parser.add_argument(
        "--keywords",
        metavar="FILE",
        type=Path,
        help="what the documents' x- keywords mean (YAML: rules, rule_lists, defaults, "
        "annotations); default: this project's spec's",
    )
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", dest="output_format")
    parser.add_argument(
        "--fail-on",
        choices=["breaking", "breaking-clients", "never"],
        default="never",
        help="exit 1 when a change breaks anyone (breaking) or clients (breaking-clients)",
    )
    parser.add_argument(
        "--impact",
        choices=["auto", "yes", "no"],
        default="auto",
        help="what moves in generated/, the wrapper, the emulator and the contract suite "
        "(auto: when NEW is this project's spec)",
    )
    parser.add_argument(
        "--write-changelog",
        metavar="FILE",
        type=Path,
        help="also write the entry of NEW's info.version into FILE",
    )
    parser.add_argument(
        "--impact-table",
        action="store_true",
        help="print the table of which change needs which files, and exit",
    )
    parser.add_argument(
        "--rules-table",
        action="store_true",
        help="print the table of what breaks whom, kind by kind, and exit",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    if arguments.impact_table:
        sys.stdout.write(impact_table())
        return 0
    if arguments.rules_table:
        sys.stdout.write(rules_table())
        return 0
    if arguments.old is None:
        _parser().error("OLD is required")
    try:
        keywords = (
            PROJECT_KEYWORDS if arguments.keywords is None else load_keywords(arguments.keywords)
        )
        old = load_document(arguments.old)
        new = load_document(arguments.new)
        report = compare_documents(old, new, paths=arguments.paths, keywords=keywords)
    except DocumentError as error:
        print(f"together-rl-api-diff: {error}", file=sys.stderr)
        return 2
    impacts = None
    wanted = arguments.impact == "yes" or (arguments.impact == "auto" and is_project_spec(new.root))
    if wanted and report.changes:
        impacts = impact_of(report.changes, new.root, Path.cwd())
    sys.stdout.write(render(report, arguments.output_format, impacts))
    if arguments.write_changelog is not None:
        write_entry(arguments.write_changelog, render_changelog_entry(report))
    if arguments.fail_on == "breaking" and report.breaking:
        return 1
    if arguments.fail_on == "breaking-clients" and report.breaking_clients:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
