"""Router replay: the expert selections a sample recorded, kept server-side under opaque keys.

A sample with `return_routed_experts: true` on a mixture-of-experts model records, per
sequence, the experts the sampler's router chose for every token it fed the model (the prompt
and every generated token but the last), stores them with the sample's result and returns the
key as `routed_experts_key`. A forward-backward or custom forward-backward sample carrying the
key is computed with those selections (`_policy_model.forward(..., routes)`), so the training
pass sees the routing the sampler used.

A key is usable by the API key that sampled it, on any of its sessions of the same base model,
for ROUTED_EXPERTS_TTL_S seconds. The operation FAILS with INVALID_INPUT, naming the sample, when
a key is unknown or another API key's (reported alike), expired, of another base model, or does
not cover the training sample: the SDK says "The selections must cover the entire training
sample or all but its final token. Training fails if the key is no longer available."
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import I64

__all__ = [
    "ROUTED_EXPERTS_TTL_S",
    "RoutedExperts",
    "RoutedExpertsRecord",
    "RoutingUnavailable",
    "decode_selections",
    "encode_selections",
    "replay_routes",
]

ROUTED_EXPERTS_TTL_S = 3600


class RoutingUnavailable(Exception):
    """A sample's `routed_experts_key` cannot be replayed: the operation fails (INVALID_INPUT)."""


@dataclass(frozen=True)
class RoutedExperts:
    """One sampled sequence's selections: (tokens fed to the model, experts per token)."""

    key: str
    base_model: str
    selections: I64
    expired: bool = False  # set by the store when read


def encode_selections(selections: I64) -> bytes:
    return np.ascontiguousarray(selections, dtype="<i2").tobytes()


def decode_selections(data: bytes, per_token: int) -> I64:
    return np.frombuffer(data, dtype="<i2").astype(np.int64).reshape(-1, per_token)


@dataclass(frozen=True)
class RoutedExpertsRecord:
    """What a sample with `return_routed_experts` saves besides its output (`OperationRecord`)."""

    entries: tuple[RoutedExperts, ...]

    def add_to(self, session_body: dict[str, Any]) -> dict[str, Any]:
        return session_body

    def checkpoint(self) -> None:
        return None

    def routed_experts(self) -> tuple[RoutedExperts, ...]:
        return self.entries


def replay_routes(
    keys: Sequence[str | None],
    lengths: Sequence[int],
    base_model: str,
    lookup: Callable[[str], RoutedExperts | None],
) -> list[I64 | None] | None:
    """Per sample, the selections its key replays (None without a key); None when no sample
    has a key. Raises RoutingUnavailable naming the first sample whose key cannot be used."""
    if all(key is None for key in keys):
        return None
    routes: list[I64 | None] = []
    for index, (key, n_tokens) in enumerate(zip(keys, lengths, strict=True)):
        if key is None:
            routes.append(None)
            continue
        field = f"samples[{index}].routed_experts_key"
        found = lookup(key)
        if found is None:
            raise RoutingUnavailable(f"{field}: no routed experts are stored under this key")
        if found.expired:
            raise RoutingUnavailable(
                f"{field}: the key has expired ({ROUTED_EXPERTS_TTL_S} s after its sample);"
                " sample again with return_routed_experts"
            )
        if found.base_model != base_model:
            raise RoutingUnavailable(
                f"{field}: the key holds routing of {found.base_model}, not of {base_model}"
            )
        covered = found.selections.shape[0]
        if covered < n_tokens - 1:
            raise RoutingUnavailable(
                f"{field}: the key's selections cover {covered} tokens but the sample has"
                f" {n_tokens}; they must cover the entire sample or all but its final token"
            )
        routes.append(found.selections[:n_tokens])
    return routes
