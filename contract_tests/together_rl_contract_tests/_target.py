"""What the suite runs against, and what it is allowed to do there."""

from __future__ import annotations

import dataclasses

__all__ = ["EMULATOR_BASE_MODEL", "Target", "mask_key", "redact"]

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

    @property
    def secrets(self) -> tuple[str, ...]:
        """The keys, which no report or printed line may contain (see :func:`redact`)."""
        return tuple(key for key in (self.api_key, self.second_api_key) if key)


#: Keys shorter than this are not masked inside longer text (a one-letter "key" would mask every
#: occurrence of that letter); they are never printed on their own either.
MIN_REDACTED_LENGTH = 4


def mask_key(key: str | None) -> str:
    """How a key is shown: its last four characters for a long key, nothing of a short one."""
    if not key:
        return "(none)"
    if len(key) < 16:
        return f"*** ({len(key)} characters)"
    return f"...{key[-4:]} ({len(key)} characters)"


def redact(text: str, secrets: tuple[str, ...]) -> str:
    """``text`` with every key in ``secrets`` replaced by its mask."""
    for secret in secrets:
        if len(secret) >= MIN_REDACTED_LENGTH:
            text = text.replace(secret, mask_key(secret))
    return text
