"""The computation of each operation kind, on a session's trainer state. No I/O, no store
(the routed experts a training sample's key names are read through the context's lookup).

Every runner has the shape `(state, request, context) -> OperationOutcome`: it takes the
session's `TrainerState` (never modified), the validated request of its kind (`_requests.py`)
and a `RunContext` (the seed an unseeded operation uses, the operation and its session), and
returns the encoded output plus, when it changes the state, a `TrainerUpdate` holding a fork of
it, and, when it saves something besides (a checkpoint, a sample's routed experts), that
`record`; the worker hands both to the store to commit with the result.
`run_forward_backward` is the pass itself, on the weights alone (benchmarks measure it).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from ..base import CATALOG, DTYPES, F64, token_texts
from ..checking import (
    SEED_MODULUS,
    CustomForwardBackwardRequest,
    ForwardBackwardRequest,
    OptimStepRequest,
    SampleRequest,
    WeightsSyncRequest,
    uses_muon,
)
from ._losses import compute_loss
from ._policy_model import PolicyParams, backward, forward, routed_selections
from ._prompt_logprobs import prompt_logprobs, topk_prompt_logprobs
from ._records import OperationRecord
from ._routed_experts import RoutedExperts, RoutedExpertsRecord, replay_routes
from ._sampler import Sampler
from ._sampling import sample_prompts
from ._stop_strings import StopStrings
from ._trainer import (
    GRADS_CHANGED,
    TRAINER_CHANGED,
    NonFiniteUpdate,
    TrainerState,
    TrainerUpdate,
    custom_forward_backward,
    optim_step,
    parse_muon_params,
    pass_update,
    weights_sync,
)

__all__ = [
    "NonFiniteLoss",
    "OperationOutcome",
    "PassResult",
    "RunContext",
    "derived_seed",
    "encode_output",
    "run_custom_forward_backward",
    "run_forward_backward",
    "run_forward_backward_pass",
    "run_optim_step",
    "run_sample",
    "run_weights_sync",
    "session_fields",
]

SEED_STRIDE = 1_000_003
_FLOAT32 = DTYPES[DTYPES.index("float32")]  # the dtype of the returned log-probs


def derived_seed(base: int, n: int) -> int:
    """The seed of the n-th of a series drawn from `base`: the policy seed of a key's n-th
    session from `--seed`, an unseeded sample's seed from its session's policy seed and its place
    among the session's operations (another key's or session's traffic moves neither)."""
    return base * SEED_STRIDE + n


class NonFiniteLoss(Exception):
    """The loss, a metric or a gradient is NaN or infinite: the operation fails, nothing added."""


@dataclass
class PassResult:
    output: bytes  # orjson bytes of the `ForwardBackwardResult`
    grads: dict[str, F64] | None  # None for forward_only


def run_forward_backward(
    params: PolicyParams,
    request: ForwardBackwardRequest,
    routes: list[np.ndarray | None] | None = None,
) -> PassResult:
    """Compute the result of one request against `params` (which it does not modify);
    `routes`: the replayed expert selections of its samples (`_routed_experts.replay_routes`)."""
    # Overflow is an expected outcome (reported as NON_FINITE_LOSS), not a warning.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _run(params, request, routes)


def _run(
    params: PolicyParams, request: ForwardBackwardRequest, routes: list[np.ndarray | None] | None
) -> PassResult:
    samples = request.samples
    fwd = forward(params, [s.tokens for s in samples], [s.targets for s in samples], routes)
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
                        "dtype": _FLOAT32,
                    }
                }
            }
            for logp, mask in zip(fwd.logprobs, result.masks, strict=True)
        ]
    else:
        output["loss_fn_outputs"] = []
    return PassResult(output=encode_output(output), grads=grads)


# ----------------------------------------------------------------- the runners
@dataclass(frozen=True)
class RunContext:
    """What a runner knows besides the state and the request."""

    seed: int  # the seed an unseeded operation uses (reproducible per --seed and its session)
    operation_id: str
    session_id: str
    session: Mapping[str, Any]  # the session resource
    vocab_size: int
    policy_seed: int  # the seed of the session's initial (base) weights
    resources: Mapping[str, Any]  # the model resources the session runs on
    # The routed experts stored under a key, if they are the session owner's.
    routed_experts: Callable[[str], RoutedExperts | None] = field(default=lambda key: None)

    def replayed_routes(self, samples: list[Any]) -> list[np.ndarray | None] | None:
        """The selections the samples' `routed_experts_key`s replay (RoutingUnavailable if one
        cannot be used), None when no sample carries one."""
        return replay_routes(
            [s.routed_experts_key for s in samples],
            [s.tokens.size for s in samples],
            str(self.session.get("base_model", "")),
            self.routed_experts,
        )


@dataclass
class OperationOutcome:
    """What an operation produced: its encoded output object and, if it changed the trainer
    state, the new state (a fork) with what changed, and what it saved besides (`record`)."""

    output: bytes
    update: TrainerUpdate | None = None
    record: OperationRecord | None = None


def run_forward_backward_pass(
    state: TrainerState, request: ForwardBackwardRequest, context: RunContext
) -> OperationOutcome:
    """The pass on the trainer weights; its gradients (unless forward_only) accumulated."""
    routes = context.replayed_routes(request.samples)
    if routes is None:
        result = run_forward_backward(state.params, request)
    else:
        result = run_forward_backward(state.params, request, routes)
    update = None if result.grads is None else pass_update(state, result.grads)
    return OperationOutcome(result.output, update)


def run_optim_step(
    state: TrainerState, request: OptimStepRequest, context: RunContext
) -> OperationOutcome:
    """AdamW, or Muon on resources created with `optimizer_config.muon`, on the accumulated
    gradients (then cleared); output `{step}` (int64 as a string)."""
    new = state.fork()
    muon = None
    if uses_muon(context.resources):
        config = context.resources["optimizer_config"]["muon"] or {}
        muon = parse_muon_params(request.muon_params, config.get("scaling_strategy"))
    try:
        step = optim_step(new, request.adam_params, muon)
    except NonFiniteUpdate as exc:
        raise NonFiniteLoss(str(exc)) from exc
    return OperationOutcome(encode_output({"step": str(step)}), TrainerUpdate(new, TRAINER_CHANGED))


def run_weights_sync(
    state: TrainerState, request: WeightsSyncRequest, context: RunContext
) -> OperationOutcome:
    """The trainer weights published to the sampler; output `{weights_version}`."""
    new = state.fork()
    version = weights_sync(new, request.weight_sync_type)
    output = encode_output({"weights_version": str(version)})
    return OperationOutcome(output, TrainerUpdate(new, TRAINER_CHANGED))


def run_custom_forward_backward(
    state: TrainerState, request: CustomForwardBackwardRequest, context: RunContext
) -> OperationOutcome:
    """Client gradients dLoss/dlogp backpropagated and accumulated as one pass; output `{}`."""
    new = state.fork()
    samples = [
        (s.tokens, s.targets, s.inputs.get("weights", s.inputs.get("mask")))
        for s in request.samples
    ]
    routes = context.replayed_routes(request.samples)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        try:
            custom_forward_backward(new, samples, request.gradients, routes)
        except NonFiniteUpdate as exc:
            raise NonFiniteLoss(str(exc)) from exc
    return OperationOutcome(encode_output({}), TrainerUpdate(new, GRADS_CHANGED))


def _stop_strings(stops: tuple[str, ...], base_model: str, vocab_size: int) -> StopStrings | None:
    """The request's stop strings over the tokenizer of the session's base model."""
    if not stops:
        return None
    family = CATALOG[base_model].tokenizer_family if base_model in CATALOG else "bytes"
    return StopStrings(stops, token_texts(family, vocab_size))


def run_sample(
    state: TrainerState, request: SampleRequest, context: RunContext
) -> OperationOutcome:
    """Completions from the sampler weights (as of the last weights-sync), seeded by the
    request's seed or else the context's. Each model input gets its own seed stream."""
    seed = context.seed if request.seed is None else request.seed
    params = state.sampler_params
    sampler = Sampler.shared(params, request.temperature, request.top_k, request.top_p)
    batches = sample_prompts(
        params,
        request.prompts,
        seeds=[(seed + index) % SEED_MODULUS for index in range(len(request.prompts))],
        num_samples=request.num_samples,
        max_tokens=request.max_tokens,
        temperature=request.temperature,
        top_k=request.top_k,
        top_p=request.top_p,
        stop_strings=_stop_strings(request.stop, context.session["base_model"], params.vocab_size),
        sampler=sampler,
    )
    results: list[dict[str, Any]] = []
    recorded: list[RoutedExperts] = []
    record_routes = request.return_routed_experts and params.moe is not None
    for prompt, sequences in zip(request.prompts, batches, strict=True):
        encoded = []
        for seq in sequences:
            item = {
                "tokens": seq.tokens,
                "logprobs": seq.logprobs,
                "stop_reason": seq.stop_reason,
                "prompt_cache_hit_tokens": 0,
            }
            if record_routes:  # the experts of every token fed to the model
                fed = np.concatenate([prompt, seq.tokens[:-1]])
                key = f"rex-{context.operation_id}-{len(recorded)}"
                base_model = str(context.session.get("base_model", ""))
                recorded.append(RoutedExperts(key, base_model, routed_selections(params, fed)))
                item["routed_experts_key"] = key
            encoded.append(item)
        result: dict[str, Any] = {
            "sequences": encoded,
            "policy_segments": [{"start_token": 0, "version": state.weights_version}],
        }
        if request.prompt_logprobs:
            result["prompt_logprobs"] = prompt_logprobs(params, prompt)
        if request.topk_prompt_logprobs > 0:
            result["topk_prompt_logprobs"] = topk_prompt_logprobs(
                params, prompt, request.topk_prompt_logprobs
            )
        results.append(result)
    record = RoutedExpertsRecord(tuple(recorded)) if recorded else None
    return OperationOutcome(encode_output({"results": results}), None, record)


def encode_output(output: dict[str, Any]) -> bytes:
    return orjson.dumps(output, option=orjson.OPT_SERIALIZE_NUMPY)


def session_fields(state: TrainerState) -> dict[str, Any]:
    """The fields of the session resource that follow its trainer state (int64 as strings)."""
    version = str(state.weights_version)
    return {
        "step": str(state.step),
        "policy_state": {
            "applied_weights_version": version,
            "pending_publish": False,
            "target_weights_version": version,
            "trainer_step": str(state.step),
        },
    }
