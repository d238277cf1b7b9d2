"""What work costs: the GPU model (operation times, the rollout estimate, prices), the worker's
timing and the rollout estimator's endpoint."""

from __future__ import annotations

from ._gpu_model import (
    BANDWIDTH_UTILISATION,
    COMPUTE_UTILISATION,
    FORWARD_BACKWARD_SECONDS,
    FORWARD_ONLY_SECONDS,
    GENERATOR_GPUS_PER_REPLICA,
    GPU,
    OPERATION_OVERHEAD_S,
    PRICE_CURRENCY,
    TRAINER_GPUS_FULL_WEIGHT,
    TRAINER_GPUS_LORA,
    Gpu,
    OperationWork,
    RolloutEstimate,
    RolloutWorkload,
    WorkSeconds,
    estimate_rollout,
    inference_checkpoint_seconds,
    operation_seconds,
    optimizer_step_seconds,
    sample_seconds,
    trainer_gpus,
    trainer_pass_seconds,
    training_checkpoint_seconds,
    weights_sync_seconds,
)
from ._rollouts import estimate_rollouts
from ._timing import TIMING_MODES, Timing

__all__ = [
    "BANDWIDTH_UTILISATION",
    "COMPUTE_UTILISATION",
    "FORWARD_BACKWARD_SECONDS",
    "FORWARD_ONLY_SECONDS",
    "GENERATOR_GPUS_PER_REPLICA",
    "GPU",
    "OPERATION_OVERHEAD_S",
    "PRICE_CURRENCY",
    "TIMING_MODES",
    "TRAINER_GPUS_FULL_WEIGHT",
    "TRAINER_GPUS_LORA",
    "Gpu",
    "OperationWork",
    "RolloutEstimate",
    "RolloutWorkload",
    "Timing",
    "WorkSeconds",
    "estimate_rollout",
    "estimate_rollouts",
    "inference_checkpoint_seconds",
    "operation_seconds",
    "optimizer_step_seconds",
    "sample_seconds",
    "trainer_gpus",
    "trainer_pass_seconds",
    "training_checkpoint_seconds",
    "weights_sync_seconds",
]
