"""The real math: the policy model, losses, optimizers, sampling and the engine that
runs each operation on a trainer state."""

from __future__ import annotations

from ._engine import (
    NonFiniteLoss,
    OperationOutcome,
    RunContext,
    derived_seed,
    encode_output,
    run_custom_forward_backward,
    run_forward_backward,
    run_forward_backward_pass,
    run_optim_step,
    run_sample,
    run_weights_sync,
    session_fields,
)
from ._optim import global_norm
from ._policy_model import (
    PolicyParams,
    init_policy,
)
from ._policy_model import _padded as padded
from ._records import NewCheckpoint, OperationRecord
from ._routed_experts import (
    ROUTED_EXPERTS_TTL_S,
    RoutedExperts,
    RoutingUnavailable,
    decode_selections,
    encode_selections,
)
from ._sampler import Sampler
from ._sampler import _Context as SamplerContext
from ._sampler import _pick as pick
from ._sampling import _draw_one as draw_one
from ._sampling import (
    sample_prompts,
    sample_sequences,
)
from ._trainer import (
    GRADS_CHANGED,
    TRAINER_CHANGED,
    TrainerState,
    TrainerUpdate,
    pass_update,
)

# `padded`, `SamplerContext`, `pick`, `draw_one`: sampling internals, public here for
# `benchmarks/bench_sampling.py` (it measures the sampler against its previous truncation).
__all__ = [
    "GRADS_CHANGED",
    "ROUTED_EXPERTS_TTL_S",
    "TRAINER_CHANGED",
    "NewCheckpoint",
    "NonFiniteLoss",
    "OperationOutcome",
    "OperationRecord",
    "PolicyParams",
    "RoutedExperts",
    "RoutingUnavailable",
    "RunContext",
    "Sampler",
    "SamplerContext",
    "TrainerState",
    "TrainerUpdate",
    "decode_selections",
    "derived_seed",
    "draw_one",
    "encode_output",
    "encode_selections",
    "global_norm",
    "init_policy",
    "padded",
    "pass_update",
    "pick",
    "run_custom_forward_backward",
    "run_forward_backward",
    "run_forward_backward_pass",
    "run_optim_step",
    "run_sample",
    "run_weights_sync",
    "sample_prompts",
    "sample_sequences",
    "session_fields",
]
