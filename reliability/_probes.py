"""What every shared-use probe family uses: the two keys, the routes, a probe's outcome (the
proxy's probe families report theirs as a `Probe` too), and a
session made for a key."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

__all__ = ["OPS", "OWNER", "RESOURCES", "SESSIONS", "STRANGER", "TINY", "Probe", "session_on"]

OWNER, STRANGER = "owner-key", "stranger-key"
TINY = "emulator/tiny-1k"
RESOURCES, SESSIONS = "/v1/rl/model-resources", "/v1/rl/training-sessions"
OPS = SESSIONS + "/{}/operations/{}"


@dataclass(frozen=True)
class Probe:
    family: str
    name: str
    held: bool
    detail: str = ""


def session_on(
    c: httpx.Client, headers: dict[str, str] | None = None, **fields: Any
) -> tuple[str, str]:
    """`(model resources id, session id)` made with `headers` (another key's, say)."""
    resources = c.post(RESOURCES, json={"base_model": TINY, **fields}, headers=headers).json()["id"]
    r = c.post(SESSIONS, json={"model_resources_id": resources}, headers=headers)
    return resources, r.json()["id"]
