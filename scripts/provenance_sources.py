"""Which `x-source` strings are acceptable: the forms docs/provenance.md explains, an SDK source
naming a file and symbol of the installed official SDK, a `live` source naming a cassette."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from provenance_rules import iter_rules, rule_keywords, value_text
from together_rl_api_diff import SOURCE_PATTERNS, source_kind
from together_rl_spec import UPLOAD_THRESHOLD_KEYWORD

__all__ = ["ROOT", "iter_source_problems", "source_problem"]

ROOT = Path(__file__).resolve().parent.parent

_SDK_SOURCE = SOURCE_PATTERNS["sdk"]
_LIVE_SOURCE = SOURCE_PATTERNS["live"]
_STATUS = re.compile(r"^4\d\d$")


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
    keywords = set(rule_keywords(node))
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
            yield f"{rule.location}: {rule.keyword} {value_text(rule.value)} has no x-source"
        else:
            problem = source_problem(rule.source, sdk_root)
            if problem is not None:
                yield f"{rule.location}: {rule.keyword}: {problem}"
    for location, node in _walk_objects(spec, "#"):
        yield from _x_source_problems(location, node)
        yield from _x_rules_entry_problems(location, node)
