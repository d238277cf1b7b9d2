"""One sentence per change: what moved, where, and in which direction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._changes import Finding
from ._rules import RULES

__all__ = ["describe", "short_location"]


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def short_location(location: str) -> str:
    """`#/components/schemas/X/properties/y` -> `X.y`; operation pointers stay readable."""
    text = location.removeprefix("#/")
    if text.startswith("paths/"):
        tokens = text.split("/")
        path = tokens[1].replace("~1", "/").replace("~0", "~")
        method = tokens[2].upper() if len(tokens) > 2 else ""
        rest = "/".join(tokens[3:]).replace("~1", "/").replace("~0", "~")
        return f"{method} {path}" + (f" {rest}" if rest else "")
    text = text.replace("~1", "/").replace("~0", "~")
    for prefix in ("components/schemas/", "components/parameters/", "components/responses/"):
        if text.startswith(prefix):
            text = text.removeprefix(prefix)
            break
    return text.replace("/properties/", ".")


def describe(finding: Finding, positions: Sequence[str]) -> str:
    """`X.y: enum value 'Z' added (in a response)`."""
    text = RULES[finding.kind].message.format(
        old=_show(finding.old), new=_show(finding.new), detail=finding.detail
    )
    where = [p for p in positions if p != "operation"]
    suffix = f" (in a {' and a '.join(where)})" if where else ""
    return f"{short_location(finding.location)}: {text}{suffix}"
