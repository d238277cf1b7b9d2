"""How long the worker holds each operation: the `--timing` choice, made at start.

- `none`: an operation completes as soon as it is computed (the default);
- `fixed MS`: no sooner than MS milliseconds after its POST arrived (`--op-latency-ms MS`);
- `realistic`: it runs, from when it starts (the operations queued before it are done), as long
  as the GPU model (`_gpu_model.operation_seconds`) says its work takes on its base model.

The work of an operation is read from its validated request: the tokens a forward-backward
reads, a sample's prompt tokens (once per sample) and `max_tokens` per sequence (the longest a
sequence may be), the number of sequences.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..checking import CustomForwardBackwardRequest, ForwardBackwardRequest, SampleRequest
from ._gpu_model import operation_seconds

__all__ = ["TIMING_MODES", "OperationWork", "Timing", "operation_work"]

TIMING_MODES = ("none", "fixed", "realistic")


@dataclass(frozen=True)
class OperationWork:
    input_tokens: int = 0
    output_tokens: int = 0
    sequences: int = 0

    def to_json(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "sequences": self.sequences,
        }


def operation_work(request: Any) -> OperationWork:
    """The work of a validated request (none for a kind without tokens)."""
    if isinstance(request, ForwardBackwardRequest | CustomForwardBackwardRequest):
        return OperationWork(input_tokens=sum(len(s.tokens) for s in request.samples))
    if isinstance(request, SampleRequest):
        sequences = len(request.prompts) * request.num_samples
        prompts = sum(len(p) for p in request.prompts) * request.num_samples
        return OperationWork(prompts, sequences * request.max_tokens, sequences)
    return OperationWork()


@dataclass(frozen=True)
class Timing:
    mode: str = "none"
    fixed_ms: int = 0

    def __post_init__(self) -> None:
        if self.mode not in TIMING_MODES:
            raise ValueError(f"timing must be one of {', '.join(TIMING_MODES)}, got {self.mode!r}")
        if self.fixed_ms < 0:
            raise ValueError(f"fixed timing must be >= 0 ms, got {self.fixed_ms}")

    @classmethod
    def parse(cls, words: list[str] | str) -> Timing:
        """`realistic`, `none` or `fixed MS` (as words or one string); a ValueError saying
        what is wrong otherwise."""
        parts = words.split() if isinstance(words, str) else list(words)
        if parts[:1] == ["fixed"]:
            if len(parts) != 2 or not parts[1].isdigit():
                raise ValueError("timing 'fixed' takes one whole number of milliseconds")
            return cls("fixed", int(parts[1]))
        if len(parts) != 1:
            raise ValueError(f"timing must be realistic, none or fixed MS, got {' '.join(parts)!r}")
        return cls(parts[0])

    def __str__(self) -> str:
        return f"fixed {self.fixed_ms}" if self.mode == "fixed" else self.mode

    def predicted_seconds(self, base_model: str, kind: str, work: OperationWork) -> float:
        """How long the operation is held: after its start (realistic), after its POST (fixed)."""
        if self.mode == "realistic":
            return operation_seconds(
                base_model,
                kind,
                input_tokens=work.input_tokens,
                output_tokens=work.output_tokens,
                sequences=work.sequences,
            )
        return self.fixed_ms / 1000.0

    def completes_at(self, submitted_at: float, started_at: float, predicted: float) -> float:
        """The earliest time (Unix seconds) the operation may complete."""
        return (started_at if self.mode == "realistic" else submitted_at) + predicted
