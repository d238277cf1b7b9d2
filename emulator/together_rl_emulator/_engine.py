"""The computation of each operation kind, on a session's trainer state. No I/O.

`run_forward_backward` takes the trainer weights and returns the pass's gradients; the other
runners take the `TrainerState` and return an `OperationOutcome` holding, when they change it, a
`TrainerUpdate` with a fork of it (the store commits the fork; the state passed in is never
modified).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

from ._losses import compute_loss
from ._operations import (
    NonFiniteUpdate,
    TrainerState,
    custom_forward_backward,
    optim_step,
    weights_sync,
)
from ._policy import PolicyParams, backward, forward
from ._sampling import prompt_logprobs, sample_sequences, topk_prompt_logprobs
from ._store import GRADS_CHANGED, TRAINER_CHANGED, TrainerUpdate
from ._validation import ForwardBackwardRequest
from ._validation_ops import (
    SEED_MODULUS,
    CustomForwardBackwardRequest,
    OptimStepRequest,
    SampleRequest,
    WeightsSyncRequest,
)

F64 = npt.NDArray[np.float64]
SEED_STRIDE = 1_000_003


def derived_seed(base: int, n: int) -> int:
    """The seed of the n-th of a series drawn from `base`: the n-th session's policy seed from
    `--seed`, an unseeded sample's seed from its session's policy seed and submission number."""
    return base * SEED_STRIDE + n


class NonFiniteLoss(Exception):
    """The loss, a metric or a gradient is NaN or infinite: the operation fails, nothing added."""


@dataclass
class PassResult:
    output: bytes  # orjson bytes of the `ForwardBackwardResult`
    grads: dict[str, F64] | None  # None for forward_only


def run_forward_backward(params: PolicyParams, request: ForwardBackwardRequest) -> PassResult:
    """Compute the result of one request against `params` (which it does not modify)."""
    # Overflow is an expected outcome (reported as NON_FINITE_LOSS), not a warning.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _run(params, request)


def _run(params: PolicyParams, request: ForwardBackwardRequest) -> PassResult:
    fwd = forward(params, [s.tokens for s in request.samples], [s.targets for s in request.samples])
    result = compute_loss(request.loss, fwd.logprobs, [s.inputs for s in request.samples])
    if not math.isfinite(result.loss):
        raise NonFiniteLoss(f"The loss is not finite ({result.loss}); nothing was accumulated.")
    bad_metrics = sorted(k for k, v in result.metrics.items() if not math.isfinite(v))
    if bad_metrics:
        raise NonFiniteLoss(
            f"The loss metric {bad_metrics[0]} is not finite; nothing was accumulated."
        )
    grads: dict[str, F64] | None = None
    if not request.forward_only:
        grads = backward(params, fwd, result.dlogp)
        for name, g in grads.items():
            if not np.isfinite(g).all():
                raise NonFiniteLoss(
                    f"The gradient of the loss is not finite (parameter {name});"
                    " nothing was accumulated."
                )
    output: dict[str, Any] = {"loss": result.loss, "metrics": result.metrics}
    if request.return_loss_fn_outputs:
        output["loss_fn_outputs"] = [
            {
                "tensors": {
                    "logprobs": {
                        # Excluded positions exactly 0.0 (np.where, not m * l, which gives -0.0).
                        "data": np.where(mask != 0, logp, 0.0).astype(np.float32),
                        "dtype": "float32",
                    }
                }
            }
            for logp, mask in zip(fwd.logprobs, result.masks, strict=True)
        ]
    else:
        output["loss_fn_outputs"] = []
    return PassResult(output=encode_output(output), grads=grads)


# ----------------------------------------------------------------- the other operations
@dataclass
class OperationOutcome:
    """What an operation produced: its output object and, if it changed the trainer state, the
    new state (a fork) with what changed."""

    output: dict[str, Any]
    update: TrainerUpdate | None = None


def run_optim_step(state: TrainerState, request: OptimStepRequest) -> OperationOutcome:
    """AdamW on the accumulated gradients (then cleared); output `{step}` (int64 as a string)."""
    new = state.fork()
    try:
        step = optim_step(new, request.adam_params)
    except NonFiniteUpdate as exc:
        raise NonFiniteLoss(str(exc)) from exc
    return OperationOutcome({"step": str(step)}, TrainerUpdate(new, TRAINER_CHANGED))


def run_weights_sync(state: TrainerState, request: WeightsSyncRequest) -> OperationOutcome:
    new = state.fork()
    version = weights_sync(new, request.weight_sync_type)
    return OperationOutcome({"weights_version": str(version)}, TrainerUpdate(new, TRAINER_CHANGED))


def run_custom_forward_backward(
    state: TrainerState, request: CustomForwardBackwardRequest
) -> OperationOutcome:
    """Client gradients dLoss/dlogp backpropagated and accumulated as one pass; output `{}`."""
    new = state.fork()
    samples = [
        (s.tokens, s.targets, s.inputs.get("weights", s.inputs.get("mask")))
        for s in request.samples
    ]
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        try:
            custom_forward_backward(new, samples, request.gradients)
        except NonFiniteUpdate as exc:
            raise NonFiniteLoss(str(exc)) from exc
    return OperationOutcome({}, TrainerUpdate(new, GRADS_CHANGED))


def run_sample(state: TrainerState, request: SampleRequest, seed: int) -> OperationOutcome:
    """Completions from the sampler weights (as of the last weights-sync); `seed` is the request's
    or, without one, derived from the operation. Each model input gets its own seed stream."""
    params = state.sampler_params
    results: list[dict[str, Any]] = []
    for index, prompt in enumerate(request.prompts):
        sequences = sample_sequences(
            params,
            prompt,
            num_samples=request.num_samples,
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            top_k=request.top_k,
            top_p=request.top_p,
            seed=(seed + index) % SEED_MODULUS,
            stop_token_ids=request.stop_token_ids,
        )
        result: dict[str, Any] = {
            "sequences": [
                {
                    "tokens": seq.tokens,
                    "logprobs": seq.logprobs,
                    "stop_reason": seq.stop_reason,
                    "prompt_cache_hit_tokens": 0,
                }
                for seq in sequences
            ],
            "policy_segments": [{"start_token": 0, "version": state.weights_version}],
        }
        if request.prompt_logprobs:
            result["prompt_logprobs"] = prompt_logprobs(params, prompt)
        if request.topk_prompt_logprobs > 0:
            result["topk_prompt_logprobs"] = topk_prompt_logprobs(
                params, prompt, request.topk_prompt_logprobs
            )
        results.append(result)
    return OperationOutcome({"results": results})


def encode_output(output: dict[str, Any]) -> bytes:
    return orjson.dumps(output, option=orjson.OPT_SERIALIZE_NUMPY)
