"""What the suite runs against, and what it is allowed to do there."""

from __future__ import annotations

import dataclasses
from pathlib import Path

SPEC_PATH = Path(__file__).resolve().parent.parent / "spec" / "openapi.yaml"

#: The base model used for resources the suite creates on the emulator.
EMULATOR_BASE_MODEL = "emulator/tiny-1k"


@dataclasses.dataclass(frozen=True)
class Target:
    """A server under test.

    ``base_url`` is the server root without ``/v1`` (as ``TOGETHER_BASE_URL`` is spelled).
    ``is_emulator`` is true only for an emulator this suite started itself (or an in-process one);
    any other server is treated as the real, billable API: no resource is created and nothing is
    mutated unless ``allow_mutations`` is set, and forward-backward is only sent ``forward_only``
    to ``session_id``.
    """

    base_url: str
    api_key: str | None
    second_api_key: str | None = None
    session_id: str | None = None
    allow_mutations: bool = False
    is_emulator: bool = False
    #: Minimum seconds between two requests (0 = unlimited). Retry-After is honoured regardless.
    min_interval_s: float = 0.0

    @property
    def api_url(self) -> str:
        """The spec's server URL (``.../v1``)."""
        return self.base_url.rstrip("/") + "/v1"

    @property
    def may_mutate(self) -> bool:
        """May the suite create resources, submit training passes and stop sessions?"""
        return self.is_emulator or self.allow_mutations

    @property
    def skip_reason(self) -> str | None:
        """Why tests that need the server cannot run, or ``None`` when they can."""
        if not self.api_key:
            return (
                "no API key for the target: pass --api-key or set TOGETHER_API_KEY "
                "(tests that reach a real server are skipped)"
            )
        return None
