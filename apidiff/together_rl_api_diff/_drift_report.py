"""Where the spec stands against an upstream: every difference in one of three groups, each
with our rule's `x-source`, the schemas paired by use, and what lies outside the scope.

The comparison is `compare_documents` from the spec (OLD) to the upstream (NEW), after the
upstream's components are given our names where they are used in the same places
(`_schema_pairing`). A difference the upstream kind explains (`Upstream.explained`) is listed
apart and is not drift.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from ._catalog_drift import catalog_findings
from ._changes import Change, Semver, advise_semver
from ._comparing import compare_documents
from ._messages import short_location
from ._our_sources import OurSources
from ._responses_normalising import expand_default_responses
from ._schema_pairing import SchemaPair, operation_index, pair_schemas, rename_schemas
from ._upstream import Upstream

__all__ = ["GROUPS", "DriftFinding", "DriftReport", "Group", "drift_of"]

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
    for suffix, why in explained.items():
        if change.location.endswith(suffix):
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
    sources = OurSources(upstream.spec, upstream.ours, theirs)
    findings: list[DriftFinding] = []
    for change in _server_defaults_as_defaults(compared.changes):
        group = _group(change)
        explained = _explanation(change, dict(upstream.explained))
        source = sources.source(change, upstream_only=group == "behind")
        findings.append(DriftFinding(change, group, source, explained))
    if upstream.kind == "openapi":
        findings += [
            DriftFinding(change, group, source, explained)  # type: ignore[arg-type]
            for change, group, source, explained in catalog_findings(upstream.theirs.root)
        ]
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
