"""What an operation saves besides its output, handed to the store to commit with it: the
`OperationRecord` an outcome carries (`_engine.OperationOutcome.record`) and the checkpoint
it may hold. The store (`state/`) writes them; the checkpoint runners and the sampler make them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ._routed_experts import RoutedExperts

__all__ = ["NewCheckpoint", "OperationRecord"]


class OperationRecord(Protocol):
    """What an operation saves besides its output (a checkpoint), committed with it."""

    def add_to(self, session_body: dict[str, Any]) -> dict[str, Any]:
        """The session resource with the record listed in it."""
        ...

    def checkpoint(self) -> NewCheckpoint | None:
        """The checkpoint to store with the operation, if any."""
        ...

    def routed_experts(self) -> Sequence[RoutedExperts]:
        """The expert selections a sample recorded (`_routed_experts.py`), if any."""
        ...


@dataclass(frozen=True)
class NewCheckpoint:
    """A checkpoint an operation saved, as the store writes it (with a fresh download token)."""

    id: str
    session_id: str
    type: str
    base_model: str
    lora: bool
    vocab_size: int
    policy_seed: int
    resource: dict[str, Any]  # the `Checkpoint` of GET /rl/checkpoints/{id}
    state: bytes  # safetensors
