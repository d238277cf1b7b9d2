"""Result types returned by the wrapper."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ForwardBackwardResult:
    """The output of a completed forward-backward (or forward) operation.

    ``loss_fn_outputs`` has one mapping per sample, in request order, from output name
    (``"logprobs"`` for the built-in losses) to a numpy array (float32 or int64) when numpy is
    installed, else a list. It is empty unless ``return_loss_fn_outputs`` was set.
    """

    operation_id: str
    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    loss_fn_outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def logprobs(self) -> list[Any]:
        """Per-sample ``logprobs`` output (masked slots are 0.0)."""
        return [output["logprobs"] for output in self.loss_fn_outputs if "logprobs" in output]
