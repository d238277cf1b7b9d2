"""What work costs: the GPU model, the worker's timing and the rollout estimator."""

from __future__ import annotations

from ._gpu_model import (
    GENERATOR_GPUS_PER_REPLICA,
    GPU,
    PRICE_CURRENCY,
    operation_seconds,
    trainer_gpus,
)
from ._rollouts import estimate_rollouts
from ._timing import (
    Timing,
    operation_work,
)

__all__ = [
    "GENERATOR_GPUS_PER_REPLICA",
    "GPU",
    "PRICE_CURRENCY",
    "Timing",
    "estimate_rollouts",
    "operation_seconds",
    "operation_work",
    "trainer_gpus",
]
