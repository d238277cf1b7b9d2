"""How long the worker holds each operation: the `--timing` choice, made at start.

- `none`: an operation completes as soon as it is computed (the default);
- `fixed MS`: no sooner than MS milliseconds after its POST arrived (`--op-latency-ms MS`);
- `realistic`: it runs, from when it starts (the operations queued before it are done), as long
  as the GPU model (`_gpu_model.operation_seconds`) says its work takes on its base model.

The work of an operation and what it costs are its kind's (`work` and `seconds` of its entry
in `service/_kinds.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from ._gpu_model import OperationWork, WorkSeconds, operation_seconds

__all__ = ["TIMING_MODES", "Timing"]

TIMING_MODES = ("none", "fixed", "realistic")


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

    def predicted_seconds(
        self, base_model: str, seconds: WorkSeconds, work: OperationWork
    ) -> float:
        """How long the operation is held: after its start (realistic: `seconds`, its kind's
        cost of its `work`), after its POST (fixed)."""
        if self.mode == "realistic":
            return operation_seconds(base_model, seconds, work)
        return self.fixed_ms / 1000.0

    def completes_at(self, submitted_at: float, started_at: float, predicted: float) -> float:
        """The earliest time (Unix seconds) the operation may complete."""
        return (started_at if self.mode == "realistic" else submitted_at) + predicted
