"""Write docs/provenance.md: every rule of `spec/openapi.yaml` with where it comes from.

A rule is a constraint keyword of a schema (bounds, lengths, `pattern`, `enum`, `required`,
`additionalProperties: false`, `default`, ...), `x-server-default`, an `x-` rule keyword the
spec adds (`x-input-dtypes`, `x-required-inputs`, ...), `required: true` on a query or header
parameter, a header or a request body, and every entry of an `x-rules` list (a prose rule: a
status code, a cap, an ordering, a retention). Each carries `x-source` (docs/provenance.md
explains the forms). `provenance_rules.py` is the one reader of those keys and
`provenance_sources.py` judges their sources: the table is rendered from them, and
tests/spec/test_provenance.py checks the spec with them (through this module's names).

    python scripts/provenance_table.py           # rewrite docs/provenance.md
    python scripts/provenance_table.py --check   # exit 1 when docs/provenance.md is stale
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Mapping
from typing import Any

from provenance_rules import NON_RULE_EXTENSIONS, RULE_KEYWORDS, Rule, iter_rules, value_text
from provenance_sources import ROOT, iter_source_problems, source_problem
from together_rl_api_diff import SOURCE_KINDS, SOURCE_LABELS, source_kind
from together_rl_spec import parse_document

__all__ = [
    "NON_RULE_EXTENSIONS",
    "RULE_KEYWORDS",
    "SOURCE_KINDS",
    "Rule",
    "iter_rules",
    "iter_source_problems",
    "render_table",
    "source_kind",
    "source_problem",
]

SPEC_PATH = ROOT / "spec" / "openapi.yaml"
TABLE_PATH = ROOT / "docs" / "provenance.md"
COMMAND = "make provenance"


# ----------------------------------------------------------------------------- the table


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


_INTRO = """\
# Provenance of the spec's rules

Generated from `spec/openapi.yaml` by `make provenance` (`scripts/provenance_table.py`); do not
edit: `make test` fails while this page differs from what the command writes.

Every rule of the spec carries `x-source`, saying where the API states it:

- `together==3.1.1 <path> <Symbol>`: the official SDK, a file of the installed package and the
  symbol (typed params, response models, docstrings, or the validation of the hand-written
  `together/post_training/` layer) that states the rule;
- `docs:<page>`: a page of the published API reference (docs.together.ai/reference/<page>,
  e.g. `docs:post-training/model-resources-create`);
- `docs <page>`: a guide page of the documentation (docs.together.ai/docs/...);
- `seed <file>`: the user's document this project started from (`../shared/seed/`);
- `live <cassette>#<n>`: exchange n of a cassette recorded against the live API;
- `emulator`: this project's own choice; the live API was never asked. The emulator enforces
  it, and a check of any other server reports a breach of it as a difference, not a failure.

What counts as a rule: the constraint keywords of every schema (`minimum`, `maximum`,
`exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`, `pattern`,
`minItems`, `maxItems`, `uniqueItems`, `minProperties`, `maxProperties`, `required`, `enum`,
`const`, `additionalProperties: false`), `default`, `x-server-default` and every other `x-`
keyword of a schema (`x-input-dtypes`, `x-exclusive-inputs`, `x-tensor-length`,
`x-required-inputs`, `x-requires-inputs-when-positive`, `x-at-least`), in request and response
schemas alike;
`required: true` on a query or header parameter, a response header and a request body (a path
parameter is required by OpenAPI itself); and each entry of an `x-rules` list (a rule stated in
prose: a status code, a cap, an ordering, a retention), which sits on its operation, or on the
component the operations share (the `IdempotencyKey` parameter; the `ErrorData` schema for the
rules of every error answer). `type`, `format`, `properties`, `items` and `oneOf` are the shape
of the API, not rules: the SDK-introspection test holds them to the official SDK as a whole.

A `status` given with an `x-rules` entry is part of what its source states. Where a source
states that a request is refused but not with which code, the entry has no `status`, and the
code is the `emulator` rule of `ErrorData` (400) or an entry of its own.

How the sources were chosen:

- Only what a source says counts. A bound the SDK implies but does not state ("0 disables"
  `topk_prompt_logprobs`, so it is at least 0; "0 runs the trainer only", so generator
  replicas are at least 0) is `emulator`; the bound it states ("Maximum 20", "Must be <= 1")
  is the SDK's.
- The validation of the SDK's hand-written layer counts as the SDK's statement of the wire
  contract (`INPUT_DTYPES`, `LOSS_SPECS`), except where the SDK says the server behaves
  otherwise: it refuses a params object of another loss because "the server would otherwise
  drop it silently", so the spec accepts and ignores one.
- `additionalProperties: false` is `emulator` everywhere: the SDK sends fields beyond its typed
  params (`payload_id` through `extra_body`), and it says the server drops what it does not read.
- Together's April 2026 OpenAPI document (togethercomputer/openapi) is not a source: it predates
  most of this API. What only it states (a page size of 20, a learning rate of 1e-4) is
  `emulator`.
- Response `required` lists and enums are the SDK's where its pydantic model or `Literal` says
  the same; `ErrorData` is `emulator` (the SDK does not parse error bodies).

Where a published source contradicts the SDK, the spec keeps the SDK's rule and says so in an
`x-upstream-differs` note beside it (a note, not a rule: it is not counted).

## Count by kind of source

| source | keywords | x-rules | total |
|---|---|---|---|
"""


def render_table(spec: Mapping[str, Any]) -> str:
    """The text of docs/provenance.md for `spec`."""
    rules = list(iter_rules(spec))
    keyword_rules = [rule for rule in rules if rule.keyword != "x-rules"]
    prose_rules = [rule for rule in rules if rule.keyword == "x-rules"]
    keyword_counts = Counter(source_kind(rule.source or "") or "(none)" for rule in keyword_rules)
    prose_counts = Counter(source_kind(rule.source or "") or "(none)" for rule in prose_rules)
    lines = _INTRO.splitlines()
    for kind in (*SOURCE_KINDS, "(none)"):
        keywords, prose = keyword_counts[kind], prose_counts[kind]
        if kind != "(none)" or keywords or prose:
            label = SOURCE_LABELS.get(kind, "(none)")
            lines.append(f"| {label} | {keywords} | {prose} | {keywords + prose} |")
    lines.append(f"| total | {len(keyword_rules)} | {len(prose_rules)} | {len(rules)} |")
    lines += [
        "",
        "## Keywords",
        "",
        "| location | keyword | value | source |",
        "|---|---|---|---|",
    ]
    for rule in keyword_rules:
        lines.append(
            f"| `{_cell(rule.location)}` | `{rule.keyword}` | `{_cell(value_text(rule.value))}` "
            f"| `{_cell(rule.source or '(none)')}` |"
        )
    lines += [
        "",
        "## Rules stated in prose (`x-rules`)",
        "",
        "| location | status | rule | source |",
        "|---|---|---|---|",
    ]
    for rule in prose_rules:
        lines.append(
            f"| `{_cell(rule.location)}` | {rule.status or ''} | {_cell(str(rule.value))} "
            f"| `{_cell(rule.source or '(none)')}` |"
        )
    return "\n".join(lines) + "\n"


def _load_spec() -> dict[str, Any]:
    return parse_document(SPEC_PATH.read_bytes(), str(SPEC_PATH))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is stale")
    args = parser.parse_args(argv)
    text = render_table(_load_spec())
    if args.check:
        current = TABLE_PATH.read_text(encoding="utf-8") if TABLE_PATH.exists() else ""
        if current != text:
            print(f"{TABLE_PATH.relative_to(ROOT)} is stale: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    TABLE_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {TABLE_PATH.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
