"""Where the spec stands against an upstream: every difference in one of three groups, each
with our rule's `x-source`, the schemas paired by use, and what lies outside the scope.

The comparison is `compare_documents` from the spec (OLD) to the upstream (NEW), after the
upstream's components are given our names where they are used in the same places
(`_schema_pairing`). A difference the upstream kind explains (`Upstream.explained`) is listed
apart and is not drift.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ._changes import Change, Semver, advise_semver
from ._comparing import compare_documents
from ._loading import Document
from ._messages import short_location
from ._refs import escape_pointer
from ._responses_normalising import expand_default_responses
from ._schema_pairing import SchemaPair, operation_index, pair_schemas, rename_schemas
from ._sources import source_kind
from ._upstream import Upstream

__all__ = ["DRIFT_FORMATS", "GROUPS", "DriftFinding", "DriftReport", "drift_of", "render_drift"]

Group = Literal["behind", "ahead", "differ"]
GROUPS: dict[Group, str] = {
    "behind": "upstream has, we lack (the spec is behind)",
    "ahead": "we have, upstream lacks",
    "differ": "both have, they differ",
}
#: Changes whose two sides are values, yet one side is a rule the other lacks.
_GROUP_OF_KIND: dict[str, Group] = {
    "property-became-required": "behind",
    "property-became-optional": "ahead",
    "parameter-became-required": "behind",
    "parameter-became-optional": "ahead",
    "request-body-became-required": "behind",
    "request-body-became-optional": "ahead",
}
#: Changes the comparison locates at the old document's (our) operation, not the new one's.
_OUR_POINTER_KINDS = frozenset(
    {"operation-removed", "parameter-removed", "response-status-removed"}
)
#: The keyword of our rule a change is about, where its detail does not say it.
_KEYWORD_OF_KIND = {
    "enum": "enum",
    "pattern": "pattern",
    "additional-properties": "additionalProperties",
    "property-became": "required",
    "parameter-became": "required",
    "request-body-became": "required",
}


@dataclass(frozen=True)
class DriftFinding:
    """One difference: its group, our rule's `x-source` (None where we have no rule there) and,
    when the upstream kind explains it, why."""

    change: Change
    group: Group
    source: str | None
    explained: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            **self.change.as_json(),
            "group": self.group,
            "x-source": self.source,
            "explained": self.explained,
        }


@dataclass
class DriftReport:
    upstream: str
    kind: str
    spec: str
    spec_version: str
    scope: str
    outside: tuple[int, int]  # operations outside the scope: upstream's, ours
    pairs: list[SchemaPair]
    findings: list[DriftFinding]
    notes: tuple[str, ...] = ()
    semver: Semver | None = field(default=None)

    @property
    def drift(self) -> list[DriftFinding]:
        return [finding for finding in self.findings if finding.explained is None]

    @property
    def explained(self) -> list[DriftFinding]:
        return [finding for finding in self.findings if finding.explained is not None]

    def group(self, name: Group) -> list[DriftFinding]:
        return [finding for finding in self.drift if finding.group == name]

    @property
    def breaking(self) -> list[DriftFinding]:
        return [finding for finding in self.drift if finding.change.breaking]

    def as_json(self) -> dict[str, Any]:
        return {
            "upstream": self.upstream,
            "kind": self.kind,
            "spec": self.spec,
            "scope": self.scope,
            "outside_scope": {"upstream": self.outside[0], "ours": self.outside[1]},
            "paired_schemas": [
                {"ours": p.ours, "upstream": p.theirs, "uses": p.votes} for p in self.pairs
            ],
            "counts": {name: len(self.group(name)) for name in GROUPS},
            "groups": {name: [f.as_json() for f in self.group(name)] for name in GROUPS},
            "explained": [finding.as_json() for finding in self.explained],
            "notes": list(self.notes),
            "semver": self.semver.as_json() if self.semver is not None else None,
        }


def _group(change: Change) -> Group:
    if change.kind in _GROUP_OF_KIND:
        return _GROUP_OF_KIND[change.kind]
    old, new = change.old, change.new
    if change.kind.startswith("additional-properties-"):  # open is no rule
        old, new = (None if old is True else old), (None if new is True else new)
    if old is None:
        return "behind"
    if new is None:
        return "ahead"
    return "differ"


class _OurSources:
    """Reads, for a change, the `x-source` of our rule at its place in the spec as written."""

    def __init__(self, upstream: Upstream, theirs: Document) -> None:
        self.spec = upstream.spec.root
        self.theirs = theirs.root
        ours = operation_index(upstream.ours)
        # (their path, method) -> our path
        self.paths = {
            (their_path, method): ours[(method, url)][0]
            for (method, url), (their_path, _) in operation_index(theirs).items()
            if (method, url) in ours
        }

    def _tokens(self, change: Change) -> list[str]:
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in change.location.split("/")[1:]]
        if len(tokens) < 2 or tokens[0] != "paths" or change.kind in _OUR_POINTER_KINDS:
            return tokens
        their_path = tokens[1]
        method = tokens[2] if len(tokens) > 2 else ""
        our_path = self.paths.get((their_path, method))
        if our_path is None:
            return tokens
        if "parameters" in tokens[2:4]:
            index = tokens.index("parameters", 2)
            item = self.theirs["paths"][their_path]
            base = item[method] if index == 3 else item
            tokens[index + 1] = self._our_parameter(base, tokens[index + 1], our_path, method)
        tokens[1] = our_path
        return tokens

    def _our_parameter(self, base: dict[str, Any], index: str, our_path: str, method: str) -> str:
        """Our operation's index of the parameter at `index` of theirs (same `in` and name)."""
        try:
            theirs = _follow(self.theirs, base["parameters"][int(index)])
        except (KeyError, IndexError, ValueError):
            return index
        listed = (self.spec["paths"][our_path].get(method) or {}).get("parameters") or []
        for position, raw in enumerate(listed):
            ours = _follow(self.spec, raw)
            if (ours.get("in"), str(ours.get("name")).lower()) == (
                theirs.get("in"),
                str(theirs.get("name")).lower(),
            ):
                return str(position)
        return index

    def _walk(self, tokens: list[str]) -> list[dict[str, Any]]:
        """The node of each token on the way to the place, each `$ref` followed (deepest last;
        `{}` for a list)."""
        nodes: list[dict[str, Any]] = []
        node: Any = self.spec
        for token in tokens:
            node = _follow(self.spec, node)
            if isinstance(node, dict) and token not in node:
                node = next(
                    (
                        member
                        for member in map(lambda m: _follow(self.spec, m), node.get("allOf") or [])
                        if isinstance(member, dict) and token in member
                    ),
                    node,
                )
            if not isinstance(node, dict | list):
                return nodes
            try:
                node = node[int(token)] if isinstance(node, list) else node[token]
            except (KeyError, IndexError, ValueError):
                return nodes
            node = _follow(self.spec, node)
            nodes.append(node if isinstance(node, dict) else {})
        return nodes

    def source(self, change: Change, group: Group) -> str | None:
        keyword = next(
            (kw for prefix, kw in _KEYWORD_OF_KIND.items() if change.kind.startswith(prefix)),
            change.detail if change.kind.startswith(("bound-", "rule-", "default-")) else None,
        )
        if group == "behind" and keyword is None:
            return None  # something only upstream has: no rule of ours
        tokens = self._tokens(change)
        if change.kind == "property-renamed":
            tokens[-1] = str(change.old)  # the location names the upstream's property
        nodes = self._walk(tokens)
        if len(nodes) < len(tokens):  # the place is not ours
            return None
        place = nodes[-1]
        # the object holding the place: past `properties` for a property
        above = 3 if len(tokens) > 1 and tokens[-2] == "properties" else 2
        parent = nodes[-above] if len(nodes) >= above else {}
        if keyword is None and change.kind.startswith("property-"):
            # a property's own rules, else the `required` that lists it
            found = _source_in(place, None)
            if found is None and tokens[-1] in (parent.get("required") or []):
                found = _source_in(parent, "required")
            return found
        if keyword == "required":
            return _source_in(place, keyword) or _source_in(parent, keyword)
        if keyword is not None and keyword not in place and tokens[-2:-1] in (["oneOf"], ["anyOf"]):
            # the variant's index is the upstream's: ours is the member that has the rule
            holder = nodes[-3] if len(nodes) >= 3 else {}
            members = [_follow(self.spec, m) for m in holder.get(tokens[-2]) or []]
            having = [m for m in members if isinstance(m, dict) and keyword in m]
            place = having[0] if len(having) == 1 else place
        return _source_in(place, keyword)


def _follow(root: dict[str, Any], node: Any) -> Any:
    for _ in range(32):
        if not (isinstance(node, dict) and isinstance(node.get("$ref"), str)):
            return node
        target: Any = root
        for token in node["$ref"].removeprefix("#/").split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            target = target.get(token) if isinstance(target, dict) else None
        node = target
    return node


def _source_in(node: dict[str, Any], keyword: str | None) -> str | None:
    if keyword == "x-rules" and isinstance(node.get("x-rules"), list):
        found = sorted({str(e.get("x-source")) for e in node["x-rules"] if isinstance(e, dict)})
        return "; ".join(found) or None
    source = node.get("x-source")
    if keyword is not None and keyword not in node:
        return None  # we have no such rule here
    if isinstance(source, str):
        return source
    if isinstance(source, dict):
        if keyword is not None:
            value = source.get(keyword)
            return value if isinstance(value, str) else None
        return "; ".join(sorted({str(value) for value in source.values()})) or None
    return None


def _same(first: Any, second: Any) -> bool:
    numbers = (int, float)
    if isinstance(first, numbers) and isinstance(second, numbers):
        return not isinstance(first, bool) and not isinstance(second, bool) and first == second
    return bool(first == second)


def _server_defaults_as_defaults(changes: list[Change]) -> list[Change]:
    """Our `x-server-default` (the value the server applies, which generators must not send)
    and the upstream's `default` state the same fact: the same value is no difference, another
    value is one `default-changed`."""
    stated = {c.location: c for c in changes if c.kind == "default-added" and c.detail == "default"}
    merged: dict[str, Change | None] = {}
    for change in changes:
        twin = stated.get(change.location)
        if change.kind != "default-removed" or change.detail != "x-server-default" or not twin:
            continue
        merged[change.id] = None
        merged[twin.id] = None
        if not _same(change.old, twin.new):
            merged[change.id] = replace(
                change,
                kind="default-changed",
                new=twin.new,
                message=f"{short_location(change.location)}: our x-server-default "
                f"{json.dumps(change.old)}, upstream's default {json.dumps(twin.new)}",
            )
    kept = [merged.get(change.id, change) for change in changes]
    return [change for change in kept if change is not None]


def _explanation(change: Change, explained: dict[str, str]) -> str | None:
    for name, why in explained.items():
        if change.location.endswith(f"/properties/{escape_pointer(name)}"):
            return why
    return None


def drift_of(upstream: Upstream, *, scope: str = "/rl/") -> DriftReport:
    """Every difference between the spec and `upstream` within `scope` (a URL path part)."""
    pairs = pair_schemas(upstream.ours, upstream.theirs, scope=scope)
    theirs = rename_schemas(upstream.theirs, pairs, upstream.ours)
    theirs, expanded = expand_default_responses(upstream.ours, theirs)
    notes = upstream.notes
    if expanded:
        notes += (
            f"upstream's `default` response read as each error status of ours it covers "
            f"({expanded} operations)",
        )
    compared = compare_documents(upstream.ours, theirs, paths=scope)
    sources = _OurSources(upstream, theirs)
    findings = []
    for change in _server_defaults_as_defaults(compared.changes):
        group = _group(change)
        explained = _explanation(change, dict(upstream.explained))
        findings.append(DriftFinding(change, group, sources.source(change, group), explained))
    outside = (
        sum(scope not in url for _, url in operation_index(upstream.theirs)),
        sum(scope not in url for _, url in operation_index(upstream.ours)),
    )
    report = DriftReport(
        upstream=upstream.label,
        kind=upstream.kind,
        spec=upstream.spec.source,
        spec_version=upstream.spec.version,
        scope=scope,
        outside=outside,
        pairs=pairs,
        findings=findings,
        notes=notes,
    )
    if report.drift:
        version = upstream.spec.version
        report.semver = advise_semver([f.change for f in report.drift], version, version)
    return report


# ----------------------------------------------------------------------------- rendering

_KIND_NAMES = {
    "sdk": "an official SDK release",
    "openapi": "an OpenAPI document",
    "revision": "the spec at another revision",
}


def _source_label(finding: DriftFinding) -> str:
    if finding.source is None:
        return "no rule of ours" if finding.group == "behind" else "shape (no x-source)"
    kinds = {source_kind(part) or "other" for part in finding.source.split("; ")}
    return "+".join(sorted(kinds))


def _source_counts(findings: list[DriftFinding]) -> str:
    counts = Counter(_source_label(finding) for finding in findings)
    return ", ".join(f"{kind} {count}" for kind, count in counts.most_common())


def _line(finding: DriftFinding) -> str:
    change = finding.change
    shown = ", ".join(change.operations[:3])
    more = len(change.operations) - 3
    where = shown + (f" and {more} more" if more > 0 else "")
    source = f"  [x-source: {finding.source}]" if finding.source else ""
    breaking = "  (breaks clients)" if change.clients == "breaking" else ""
    return f"{change.message}{breaking}  <{where}>{source}"


def _header(report: DriftReport) -> list[str]:
    renamed = [pair for pair in report.pairs if pair.renamed]
    lines = [
        f"drift of {report.spec} (info.version {report.spec_version}) against {report.upstream} "
        f"({_KIND_NAMES.get(report.kind, report.kind)})",
        f"scope: URL paths containing {report.scope}; outside it (not compared): "
        f"{report.outside[0]} operations upstream, {report.outside[1]} of ours",
        f"schemas paired by use: {len(report.pairs)}, {len(renamed)} of them named otherwise"
        + (": " + ", ".join(f"{p.ours} = {p.theirs}" for p in renamed) if renamed else ""),
    ]
    lines += [f"note: {note}" for note in report.notes]
    return lines


def _verdict(report: DriftReport) -> str:
    if not report.drift:
        return (
            f"clean: the spec agrees with {report.upstream}"
            + (" beyond the explained differences" if report.explained else "")
            + "; nothing breaking, no version advice"
        )
    semver = report.semver
    assert semver is not None
    return (
        f"drift: {len(report.drift)} differences, {len(report.breaking)} of them breaking; "
        f"following the upstream would be a {semver.required} change of the spec "
        f"({semver.old_version} -> {semver.suggested or '?'})"
    )


def _text(report: DriftReport) -> str:
    lines = _header(report)
    for name, title in GROUPS.items():
        found = report.group(name)
        counts = f" ({_source_counts(found)})" if found else ""
        lines.append(f"{title}: {len(found)}{counts}")
        lines += [f"  - {_line(finding)}" for finding in found]
    lines.append(f"explained (known, not drift): {len(report.explained)}")
    lines += [f"  - {_line(f)}: {f.explained}" for f in report.explained]
    lines.append(_verdict(report))
    return "\n".join(lines) + "\n"


def _markdown(report: DriftReport) -> str:
    head = _header(report)
    lines = [f"# {head[0][0].upper()}{head[0][1:]}", "", *(f"- {line}" for line in head[1:])]
    lines += ["", "| group | findings | by our rule's source |", "|---|---|---|"]
    for name, title in GROUPS.items():
        found = report.group(name)
        lines.append(f"| {title} | {len(found)} | {_source_counts(found) or '-'} |")
    lines.append(f"| explained | {len(report.explained)} | - |")
    for name, title in GROUPS.items():
        found = report.group(name)
        if found:
            lines += ["", f"## {title[0].upper()}{title[1:]}", ""]
            lines += [
                f"- {_line(finding)}".replace("<", "`").replace(">", "`") for finding in found
            ]
    if report.explained:
        lines += ["", "## Explained", ""]
        lines += [f"- {f.change.message}: {f.explained}" for f in report.explained]
    lines += ["", _verdict(report) + "."]
    return "\n".join(lines) + "\n"


def _json(report: DriftReport) -> str:
    return json.dumps(report.as_json(), indent=2) + "\n"


DRIFT_FORMATS = {"text": _text, "markdown": _markdown, "json": _json}


def render_drift(report: DriftReport, output_format: str = "text") -> str:
    return DRIFT_FORMATS[output_format](report)
