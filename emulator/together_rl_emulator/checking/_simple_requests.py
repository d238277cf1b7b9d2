"""The requests of optim-step, weights-sync and sample: bodies the spec's JSON Schema validates,
plus what it cannot say (finite optimizer numbers, the optimizer the model resources were
created with, finite sampling numbers, stop entries as token ids, a bound on the tokens one
sample request may ask for)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import (
    ADAM_BOUNDS,
    MUON_BOUNDS,
    SAMPLING_DEFAULTS,
    WEIGHT_SYNC_TYPES,
    ApiError,
    Bounds,
    invalid,
    spec_defaults,
)
from ._body_scan import BodyScan
from ._tensor_values import fits_double, token_array
from ._validation import validate_schema

__all__ = [
    "MAX_SAMPLED_TOKENS",
    "SEED_MODULUS",
    "OptimStepRequest",
    "SampleRequest",
    "WeightsSyncRequest",
    "check_optimizer_matches",
    "default_sampler_settings",
    "uses_muon",
    "validate_optim_step",
    "validate_sample",
    "validate_weights_sync",
]

# np.random.default_rng takes non-negative seeds: an int64 seed is used modulo 2**64.
SEED_MODULUS = 2**64
# Tokens one sample request may ask for at most (about 10 s of the single worker's time).
MAX_SAMPLED_TOKENS = 1 << 20


def default_sampler_settings() -> tuple[float, int, float]:
    """(temperature, top_k, top_p) of a sample request that sets none of them (top_k 0 and
    top_p 1: no truncation)."""
    return float(SAMPLING_DEFAULTS["temperature"]), 0, 1.0


@dataclass(frozen=True)
class OptimStepRequest:
    adam_params: dict[str, Any] | None  # the wire objects (defaults applied by `optim_step`)
    muon_params: dict[str, Any] | None


@dataclass(frozen=True)
class WeightsSyncRequest:
    weight_sync_type: str


@dataclass(frozen=True)
class SampleRequest:
    prompts: list[np.ndarray]  # int64 token ids, one array per model input
    num_samples: int
    max_tokens: int
    temperature: float
    top_k: int
    top_p: float
    seed: int | None  # None: the worker derives one from the operation (reproducible per run)
    stop: tuple[str, ...]  # stop strings, matched against the completion's decoded text
    prompt_logprobs: bool
    topk_prompt_logprobs: int
    return_routed_experts: bool = False


def validate_optim_step(body: object) -> OptimStepRequest:
    """`OptimStepBody`: every number of `adam_params` and `muon_params` (with its `adam`)
    finite and inside the spec's bounds. Which of the two the session takes depends on its
    model resources (`check_optimizer_matches`)."""
    validate_schema("OptimStepBody", body)
    assert isinstance(body, dict)
    adam, muon = body.get("adam_params"), body.get("muon_params")
    if isinstance(adam, dict):
        _check_numbers("adam_params", adam, ADAM_BOUNDS)
    if isinstance(muon, dict):
        _check_numbers("muon_params", {k: v for k, v in muon.items() if k != "adam"}, MUON_BOUNDS)
        if isinstance(muon.get("adam"), dict):
            _check_numbers("muon_params.adam", muon["adam"], ADAM_BOUNDS)
    return OptimStepRequest(
        adam_params=dict(adam) if isinstance(adam, dict) else None,
        muon_params=dict(muon) if isinstance(muon, dict) else None,
    )


def _check_numbers(prefix: str, values: dict[str, Any], bounds: dict[str, Bounds]) -> None:
    for name, value in values.items():
        if value is None or isinstance(value, bool) or not isinstance(value, int | float):
            continue  # the schema has judged the type
        if not fits_double(value) or not math.isfinite(value):
            raise invalid(f"{prefix}.{name}", f"must be a finite number, got {value}")
        problem = bounds[name].violation(float(value))
        if problem is not None:
            raise invalid(f"{prefix}.{name}", f"{problem}, got {value}")


def uses_muon(resources: Mapping[str, Any]) -> bool:
    """Whether model resources were created with `optimizer_config.muon` (else: AdamW)."""
    config = resources.get("optimizer_config")
    return isinstance(config, dict) and "muon" in config


def check_optimizer_matches(request: OptimStepRequest, resources: Mapping[str, Any]) -> None:
    """400 when the step names only the other optimizer than the one the resources were
    created with: `muon_params` alone on AdamW resources, `adam_params` alone on Muon resources.
    A step carrying both (the published example) uses the resources' own and leaves the other."""
    if uses_muon(resources):
        if request.adam_params is not None and request.muon_params is None:
            raise ApiError(
                400,
                "adam_params: these model resources were created with optimizer_config.muon;"
                " send muon_params, with the AdamW settings of the non-matrix parameters in"
                " muon_params.adam",
                param="adam_params",
                code="optimizer_mismatch",
            )
    elif request.muon_params is not None and request.adam_params is None:
        raise ApiError(
            400,
            "muon_params: these model resources were created without optimizer_config.muon"
            " (their optimizer is AdamW); send adam_params, or create model resources with"
            " optimizer_config.muon",
            param="muon_params",
            code="optimizer_mismatch",
        )


def validate_weights_sync(body: object) -> WeightsSyncRequest:
    validate_schema("WeightsSyncBody", body)
    assert isinstance(body, dict)
    sync_type = body["weight_sync_type"]
    if sync_type not in WEIGHT_SYNC_TYPES:  # the schema admits the proto zero value too
        raise invalid("weight_sync_type", f"must be one of {', '.join(WEIGHT_SYNC_TYPES)}")
    return WeightsSyncRequest(weight_sync_type=sync_type)


_SAMPLE_DEFAULTS = spec_defaults("SampleBody")


def validate_sample(body: object, vocab_size: int, scan: BodyScan | None = None) -> SampleRequest:
    """`SampleBody`: token ids inside the vocabulary and finite sampling numbers; `stop` strings
    are text the completion's decoded text is searched for (`_stop_strings.py`)."""
    validate_schema("SampleBody", body)
    assert isinstance(body, dict)
    prompts = []
    for index, model_input in enumerate(body["model_inputs"]):
        chunk_tokens = [chunk["encoded_text"]["tokens"] for chunk in model_input["chunks"]]
        token_list = [t for c in chunk_tokens for t in c]
        if not token_list:
            raise invalid(f"model_inputs[{index}].chunks", "the prompt holds no tokens")
        prompts.append(token_array(f"model_inputs[{index}]", chunk_tokens, token_list, vocab_size))
    params: dict[str, Any] = body.get("sampling_params", {})
    for name in ("temperature", "top_p"):
        value = params.get(name)
        if value is not None and not math.isfinite(float(value)):
            raise invalid(f"sampling_params.{name}", "must be a finite number")
    seed_value = params.get("seed")
    seed = None if seed_value is None else int(seed_value) % SEED_MODULUS
    stops: tuple[str, ...] = tuple(params.get("stop", []))  # not empty: the schema's minLength
    num_samples = int(body.get("num_samples", _SAMPLE_DEFAULTS["num_samples"]))
    temperature, top_k, top_p = default_sampler_settings()
    max_tokens = int(params.get("max_tokens", SAMPLING_DEFAULTS["max_tokens"]))
    budget = len(prompts) * num_samples * max_tokens
    if budget > MAX_SAMPLED_TOKENS:
        raise invalid(
            "sampling_params.max_tokens",
            f"model_inputs x num_samples x max_tokens = {budget} exceeds the emulator's limit of"
            f" {MAX_SAMPLED_TOKENS} tokens per sample request (one worker runs every session):"
            " split the request",
        )
    return SampleRequest(
        prompts=prompts,
        num_samples=num_samples,
        max_tokens=max_tokens,
        temperature=float(params.get("temperature", temperature)),
        top_k=max(0, int(params.get("top_k", top_k))),  # below 1: no limit (the spec)
        top_p=float(params.get("top_p", top_p)),
        seed=seed,
        stop=stops,
        prompt_logprobs=bool(body.get("prompt_logprobs", False)),
        topk_prompt_logprobs=int(body.get("topk_prompt_logprobs", 0)),
        return_routed_experts=bool(body.get("return_routed_experts", False)),
    )
