"""A change, as the JSON interface states it, and the report holding all of them."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from ._judging import Position, Verdict, judge
from ._rules import RULES

__all__ = ["Change", "DiffReport", "Finding", "Semver", "advise_semver"]

Bump = Literal["major", "minor", "patch", "none"]


@dataclass
class Finding:
    """One difference seen at one place, before it is merged across operations."""

    kind: str
    location: str
    detail: str
    old: Any
    new: Any
    position: Position

    def __post_init__(self) -> None:
        if self.kind not in RULES:  # every kind is one entry of the registry
            raise KeyError(f"kind of change {self.kind!r} is not in _rules.RULES")


@dataclass
class Change:
    """One change, reported once with every operation it affects."""

    id: str
    kind: str
    location: str
    operations: list[str]
    old: Any
    new: Any
    clients: Verdict
    servers: Verdict
    message: str
    positions: list[str] = field(default_factory=list)
    detail: str = ""  # the finding's detail: the keyword of a bound, rule or default

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "location": self.location,
            "operations": self.operations,
            "old": self.old,
            "new": self.new,
            "clients": self.clients,
            "servers": self.servers,
            "message": self.message,
        }

    @property
    def breaking(self) -> bool:
        return "breaking" in (self.clients, self.servers)

    @property
    def undecided(self) -> bool:
        """Not breaking for anyone as far as the tool can tell, but not judged for someone."""
        return not self.breaking and "undecided" in (self.clients, self.servers)


def change_id(kind: str, location: str, detail: str) -> str:
    """Stable across runs and machines: a digest of what changed and where."""
    return hashlib.sha1(f"{kind}|{location}|{detail}".encode()).hexdigest()[:12]


def worst(verdicts: list[Verdict]) -> Verdict:
    for verdict in ("breaking", "undecided"):
        if verdict in verdicts:
            return verdict
    return "compatible"


def judged(kind: str, positions: list[Position]) -> tuple[Verdict, Verdict]:
    verdicts = [judge(kind, position) for position in positions]
    return worst([v[0] for v in verdicts]), worst([v[1] for v in verdicts])


@dataclass(frozen=True)
class Semver:
    """The version bump the changes require, and whether `info.version` made it."""

    old_version: str
    new_version: str
    required: Bump
    suggested: str
    ok: bool | None  # None when a version is not MAJOR.MINOR.PATCH

    def as_json(self) -> dict[str, Any]:
        return {
            "old_version": self.old_version,
            "new_version": self.new_version,
            "required_bump": self.required,
            "suggested_version": self.suggested,
            "ok": self.ok,
        }


_VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)")


def _parse(version: str) -> tuple[int, int, int] | None:
    found = _VERSION.match(version.strip().lstrip("v"))
    return (int(found[1]), int(found[2]), int(found[3])) if found else None


def _bumped(version: tuple[int, int, int], bump: Bump) -> tuple[int, int, int]:
    major, minor, patch = version
    if major == 0:  # 0.y.z: a breaking change bumps y, anything else z
        bump = {"major": "minor", "minor": "patch"}.get(bump, bump)  # type: ignore[assignment]
    if bump == "major":
        return major + 1, 0, 0
    if bump == "minor":
        return major, minor + 1, 0
    if bump == "patch":
        return major, minor, patch + 1
    return version


def advise_semver(changes: list[Change], old_version: str, new_version: str) -> Semver:
    """major when a change breaks clients or cannot be judged for them, minor for any other
    change (0.x: one level lower)."""
    required: Bump = "none"
    if any(change.clients in ("breaking", "undecided") for change in changes):
        required = "major"
    elif changes:
        required = "minor"
    old, new = _parse(old_version), _parse(new_version)
    if old is None or new is None:
        return Semver(old_version, new_version, required, "", None)
    target = _bumped(old, required)
    return Semver(old_version, new_version, required, ".".join(map(str, target)), new >= target)


@dataclass
class DiffReport:
    """Every change between two documents, and the semver advice that follows."""

    old_source: str
    new_source: str
    changes: list[Change]
    semver: Semver

    def as_json(self) -> dict[str, Any]:
        return {
            "old": self.old_source,
            "new": self.new_source,
            "changes": [change.as_json() for change in self.changes],
            "semver": self.semver.as_json(),
        }

    @property
    def breaking_clients(self) -> list[Change]:
        return [change for change in self.changes if change.clients == "breaking"]

    @property
    def breaking(self) -> list[Change]:
        return [change for change in self.changes if change.breaking]
