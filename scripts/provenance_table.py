"""Write docs/provenance.md: every rule of `spec/openapi.yaml` with where it comes from.

A rule is a constraint keyword of a schema (bounds, lengths, `pattern`, `enum`, `required`,
`additionalProperties: false`, `default`, ...), `x-server-default`, an `x-` rule keyword the
spec adds (`x-input-dtypes`, `x-required-inputs`, ...), `required: true` on a query or header
parameter, a header or a request body, and every entry of an `x-rules` list (a prose rule: a
status code, a cap, an ordering, a retention). Each carries `x-source` (docs/provenance.md
explains the forms). This module is the one reader of those keys: the table is rendered from
it, and tests/spec/test_provenance.py checks the spec with it.

    python scripts/provenance_table.py           # rewrite docs/provenance.md
    python scripts/provenance_table.py --check   # exit 1 when docs/provenance.md is stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from together_rl_api_diff import SOURCE_KINDS, SOURCE_LABELS, SOURCE_PATTERNS, source_kind
from together_rl_spec import UPLOAD_THRESHOLD_KEYWORD, parse_document

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

ROOT = Path(__file__).resolve().parent.parent
SPEC_PATH = ROOT / "spec" / "openapi.yaml"
TABLE_PATH = ROOT / "docs" / "provenance.md"
COMMAND = "make provenance"

#: The JSON Schema keywords that restrict what a value may be, plus the defaults. `type`,
#: `format`, `items`, `properties` and the other structural keywords are the shape of the API,
#: held to the official SDK as a whole, not rules with a source each (docs/provenance.md).
RULE_KEYWORDS: tuple[str, ...] = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "required",
    "enum",
    "const",
    "additionalProperties",  # only `false`; a schema there is the type of a map's values
    "default",
)
#: Extensions that are not rules; every other `x-` key of a schema is a rule keyword.
NON_RULE_EXTENSIONS = frozenset({"x-source", "x-rules", "x-upstream-differs"})

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs")
_SUBSCHEMA_LISTS = ("oneOf", "anyOf", "allOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "contains")
_SUFFIXES = {"items": "[]", "additionalProperties": "{}"}
_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

_SDK_SOURCE = SOURCE_PATTERNS["sdk"]
_LIVE_SOURCE = SOURCE_PATTERNS["live"]
_STATUS = re.compile(r"^4\d\d$")


@dataclass(frozen=True)
class Rule:
    """One rule of the spec: where it is, which keyword, its value and its `x-source`
    (`None` when it has none)."""

    location: str
    keyword: str
    value: Any
    source: str | None
    status: str | None = None


# ----------------------------------------------------------------------------- walking


def _rule_keywords(node: Mapping[str, Any]) -> list[str]:
    found = []
    for key, value in node.items():
        if key == "additionalProperties":
            if value is False:
                found.append(key)
        elif key in RULE_KEYWORDS or (key.startswith("x-") and key not in NON_RULE_EXTENSIONS):
            found.append(key)
    return found


def _source_of(node: Mapping[str, Any], keyword: str) -> str | None:
    source = node.get("x-source")
    if isinstance(source, Mapping):
        value = source.get(keyword)
        return value if isinstance(value, str) else None
    return source if isinstance(source, str) else None


def _keyword_rules(location: str, node: Mapping[str, Any], keywords: list[str]) -> Iterator[Rule]:
    for keyword in keywords:
        yield Rule(location, keyword, node[keyword], _source_of(node, keyword))


def _x_rules(location: str, node: Mapping[str, Any]) -> Iterator[Rule]:
    for entry in node.get("x-rules", []) or []:
        if not isinstance(entry, Mapping):
            yield Rule(location, "x-rules", entry, None)
            continue
        source = entry.get("x-source")
        status = entry.get("status")
        yield Rule(
            location,
            "x-rules",
            entry.get("rule"),
            source if isinstance(source, str) else None,
            str(status) if status is not None else None,
        )


def _schema_rules(location: str, schema: Any) -> Iterator[Rule]:
    """The rules of one schema object and of every schema inline in it ($refs are not
    followed: a component is walked once, under its own name)."""
    if not isinstance(schema, Mapping) or ("$ref" in schema and len(schema) == 1):
        return
    yield from _keyword_rules(location, schema, _rule_keywords(schema))
    yield from _x_rules(location, schema)
    for key in _SUBSCHEMA_MAPS:
        for name, sub in (schema.get(key) or {}).items():
            yield from _schema_rules(f"{location}.{name}", sub)
    for key in _SUBSCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key) or []):
            yield from _schema_rules(f"{location}.{key}[{index}]", sub)
    for key in _SUBSCHEMA_SINGLE:
        sub = schema.get(key)
        if isinstance(sub, Mapping):
            yield from _schema_rules(f"{location}{_SUFFIXES.get(key, '.' + key)}", sub)


def _required_flag(location: str, node: Mapping[str, Any]) -> Iterator[Rule]:
    """`required: true` on a parameter (other than a path parameter, which OpenAPI requires
    to be required), a header or a request body."""
    if node.get("required") is True and node.get("in") != "path":
        yield Rule(location, "required", True, _source_of(node, "required"))


def _parameter_rules(location: str, parameter: Any) -> Iterator[Rule]:
    if not isinstance(parameter, Mapping) or "$ref" in parameter:
        return
    yield from _required_flag(location, parameter)
    yield from _x_rules(location, parameter)
    yield from _schema_rules(location, parameter.get("schema"))


def _content_rules(location: str, holder: Mapping[str, Any]) -> Iterator[Rule]:
    for media, content in (holder.get("content") or {}).items():
        yield from _schema_rules(f"{location} {media}", content.get("schema"))


def _header_rules(location: str, header: Any) -> Iterator[Rule]:
    if not isinstance(header, Mapping) or "$ref" in header:
        return
    yield from _required_flag(location, header)
    yield from _schema_rules(location, header.get("schema"))


def _response_rules(location: str, response: Any) -> Iterator[Rule]:
    if not isinstance(response, Mapping) or "$ref" in response:
        return
    yield from _x_rules(location, response)
    for name, header in (response.get("headers") or {}).items():
        yield from _header_rules(f"{location} header {name}", header)
    yield from _content_rules(location, response)


def iter_rules(spec: Mapping[str, Any]) -> Iterator[Rule]:
    """Every rule of the spec: the operations (paths in order, methods in `_HTTP_METHODS`
    order), then the components."""
    for template, item in (spec.get("paths") or {}).items():
        for parameter in item.get("parameters", []):
            yield from _parameter_rules(
                f"{template} {parameter.get('in')} {parameter.get('name')}", parameter
            )
        for method in _HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            name = operation.get("operationId", f"{method.upper()} {template}")
            yield from _x_rules(name, operation)
            for parameter in operation.get("parameters", []):
                yield from _parameter_rules(
                    f"{name} {parameter.get('in')} {parameter.get('name')}", parameter
                )
            body = operation.get("requestBody")
            if isinstance(body, Mapping) and "$ref" not in body:
                yield from _required_flag(f"{name} requestBody", body)
                yield from _content_rules(f"{name} requestBody", body)
            for status, response in (operation.get("responses") or {}).items():
                yield from _response_rules(f"{name} {status}", response)
    components = spec.get("components") or {}
    for name, parameter in (components.get("parameters") or {}).items():
        yield from _parameter_rules(f"parameters.{name}", parameter)
    for name, header in (components.get("headers") or {}).items():
        yield from _header_rules(f"headers.{name}", header)
    for name, body in (components.get("requestBodies") or {}).items():
        yield from _required_flag(f"requestBodies.{name}", body)
        yield from _content_rules(f"requestBodies.{name}", body)
    for name, response in (components.get("responses") or {}).items():
        yield from _response_rules(f"responses.{name}", response)
    for name, schema in (components.get("schemas") or {}).items():
        yield from _schema_rules(name, schema)


# ----------------------------------------------------------------------------- sources


def source_problem(source: str, sdk_root: Path | None, repo_root: Path = ROOT) -> str | None:
    """Why a source string is not acceptable, or `None` when it is.

    `sdk_root` is the folder holding the installed `together` package (its `site-packages`);
    with it, an SDK source must name a file of that package in which every dotted part of
    the symbol appears as a name. A `live` source must name a cassette of the repository.
    """
    kind = source_kind(source)
    page = re.match(r"^docs (?:https://)?(?:docs\.together\.ai/)?reference/(\S+)$", source)
    if kind is None and page:
        return f"{source!r}: a reference page is written `docs:{page.group(1)}`"
    if kind is None:
        return (
            f"{source!r} is not one of `together==3.1.1 <path> <Symbol>`, `docs:<page>`, "
            "`docs <page>`, `seed <file>`, `live <cassette>#<n>`, `emulator`"
        )
    if kind == "sdk" and sdk_root is not None:
        match = _SDK_SOURCE.match(source)
        assert match is not None
        path, symbol = match.groups()
        file = sdk_root / path
        if not file.is_file():
            return f"{source!r}: no file {path} in the installed SDK"
        text = file.read_text(encoding="utf-8")
        for part in symbol.split("."):
            if not re.search(rf"(?<![\w.]){re.escape(part)}\b", text):
                return f"{source!r}: {part!r} does not appear in {path}"
    if kind == "live":
        match = _LIVE_SOURCE.match(source)
        assert match is not None
        if not (repo_root / match.group(1)).is_file():
            return f"{source!r}: no cassette {match.group(1)} in the repository"
    return None


def _x_source_problems(location: str, node: Mapping[str, Any]) -> Iterator[str]:
    """An `x-source` mapping may only name rule keywords of its object; a string needs one."""
    source = node.get("x-source")
    if source is None:
        return
    keywords = set(_rule_keywords(node))
    if node.get("required") is True:
        keywords.add("required")
    if isinstance(source, Mapping):
        for keyword in source:
            if keyword not in keywords:
                yield f"{location}: x-source names {keyword!r}, which is not a rule of it"
    elif not isinstance(source, str):
        yield f"{location}: x-source is neither a string nor a mapping"
    elif not keywords:
        yield f"{location}: x-source {source!r} sources no rule"


def _walk_objects(node: Any, location: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    if isinstance(node, Mapping):
        yield location, node
        for key, value in node.items():
            if key not in ("examples", "example", "x-rules", "x-source"):
                yield from _walk_objects(value, f"{location}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk_objects(value, f"{location}/{index}")


def _x_rules_entry_problems(location: str, node: Mapping[str, Any]) -> Iterator[str]:
    entries = node.get("x-rules")
    if entries is None:
        return
    if not isinstance(entries, list) or not entries:
        yield f"{location}: x-rules is not a non-empty list"
        return
    for index, entry in enumerate(entries):
        where = f"{location}: x-rules[{index}]"
        if not isinstance(entry, Mapping):
            yield f"{where} is not a mapping"
            continue
        if set(entry) - {"rule", "status", "x-source", UPLOAD_THRESHOLD_KEYWORD}:
            yield (
                f"{where} has keys other than rule, status, x-source, "
                f"{UPLOAD_THRESHOLD_KEYWORD}: {sorted(entry)}"
            )
        if not isinstance(entry.get("rule"), str) or not entry["rule"].strip():
            yield f"{where} has no rule text"
        if "status" in entry and not _STATUS.match(str(entry["status"])):
            yield f"{where} status {entry['status']!r} is not a 4xx code"


def iter_source_problems(spec: Mapping[str, Any], sdk_root: Path | None) -> Iterator[str]:
    """Every rule without a well-formed `x-source`, and every malformed `x-source` or
    `x-rules` entry anywhere in the spec."""
    for rule in iter_rules(spec):
        if rule.source is None:
            yield f"{rule.location}: {rule.keyword} {_value_text(rule.value)} has no x-source"
        else:
            problem = source_problem(rule.source, sdk_root)
            if problem is not None:
                yield f"{rule.location}: {rule.keyword}: {problem}"
    for location, node in _walk_objects(spec, "#"):
        yield from _x_source_problems(location, node)
        yield from _x_rules_entry_problems(location, node)


# ----------------------------------------------------------------------------- the table


def _value_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


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
            f"| `{_cell(rule.location)}` | `{rule.keyword}` | `{_cell(_value_text(rule.value))}` "
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
