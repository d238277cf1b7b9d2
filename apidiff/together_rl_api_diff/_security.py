"""Security requirements as sets of callers: an alternative is the schemes (with their scopes)
a caller must all present; a caller is accepted when it meets any alternative of the list."""

from __future__ import annotations

from typing import Any

__all__ = ["Requirement", "implies", "requirement", "shown"]

#: (scheme name, scopes) pairs; the empty requirement accepts anonymous callers
Requirement = frozenset[tuple[str, frozenset[str]]]


def requirement(item: dict[str, Any]) -> Requirement:
    """One entry of a `security` list: `{scheme: [scopes]}`."""
    return frozenset(
        (str(name), frozenset(str(scope) for scope in (scopes or [])))
        for name, scopes in item.items()
    )


def implies(meets: Requirement, other: Requirement) -> bool:
    """Whether every caller that meets `meets` also meets `other` (it asks no more)."""
    have = dict(meets)
    return all(name in have and scopes <= have[name] for name, scopes in other)


def shown(alternative: Requirement) -> list[str]:
    """`['api_key', 'oauth[read,write]']`; `[]` for anonymous."""
    return sorted(
        f"{name}[{','.join(sorted(scopes))}]" if scopes else name for name, scopes in alternative
    )
