"""Validation of the operations beyond forward-backward: optim-step, sample, weights-sync and
custom-forward-backward. Same conventions as `_validation`: the spec's JSON Schema
first, then the rules it cannot express, every refusal a 400 naming the field path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._errors import ApiError, invalid
from ._operations import WEIGHT_SYNC_TYPES, InvalidParam, parse_adam_params
from ._validation import ValidatedSample, _token_array, _validate_sample, validate_schema

# `GET /v1/rl/supported-models` advertises these generator defaults (sampling_defaults).
DEFAULT_MAX_TOKENS = 512
DEFAULT_TEMPERATURE = 1.0
CUSTOM_FB_LABEL = "custom-forward-backward"
# np.random.default_rng takes non-negative seeds: an int64 seed is used modulo 2**64.
SEED_MODULUS = 2**64


@dataclass(frozen=True)
class OptimStepRequest:
    adam_params: dict[str, Any] | None  # the wire object (defaults applied by `optim_step`)


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
    stop_token_ids: frozenset[int]
    prompt_logprobs: bool
    topk_prompt_logprobs: int


@dataclass(frozen=True)
class CustomForwardBackwardRequest:
    samples: list[ValidatedSample]
    gradients: list[np.ndarray]  # float64, one per sample, as long as its tokens


def validate_optim_step(body: object) -> OptimStepRequest:
    """`OptimStepBody`: `muon_params` refused (no Muon here), `adam_params` bounds re-checked."""
    validate_schema("OptimStepBody", body)
    assert isinstance(body, dict)
    if "muon_params" in body:
        raise ApiError(
            400,
            "muon_params: the emulator does not support Muon; use adam_params",
            param="muon_params",
            code="unsupported_optimizer",
        )
    adam = body.get("adam_params")
    try:
        parse_adam_params(adam)
    except InvalidParam as exc:
        raise invalid(exc.param, exc.reason) from exc
    return OptimStepRequest(adam_params=dict(adam) if isinstance(adam, dict) else None)


def validate_weights_sync(body: object) -> WeightsSyncRequest:
    validate_schema("WeightsSyncBody", body)
    assert isinstance(body, dict)
    sync_type = body["weight_sync_type"]
    if sync_type not in WEIGHT_SYNC_TYPES:  # the schema's enum says the same; kept in step
        raise invalid("weight_sync_type", f"must be one of {', '.join(WEIGHT_SYNC_TYPES)}")
    return WeightsSyncRequest(weight_sync_type=sync_type)


# Tokens one sample request may ask for at most (about 10 s of the single worker's time).
MAX_SAMPLED_TOKENS = 1 << 20


def validate_sample(body: object, vocab_size: int) -> SampleRequest:
    """`SampleBody`: token ids inside the vocabulary, finite sampling numbers, and `stop` entries
    that are decimal token ids (the emulator has no tokenizer, so a stop string names a token)."""
    validate_schema("SampleBody", body)
    assert isinstance(body, dict)
    prompts = []
    for index, model_input in enumerate(body["model_inputs"]):
        chunk_tokens = [chunk["encoded_text"]["tokens"] for chunk in model_input["chunks"]]
        token_list = [t for c in chunk_tokens for t in c]
        if not token_list:
            raise invalid(f"model_inputs[{index}].chunks", "the prompt holds no tokens")
        prompts.append(_token_array(f"model_inputs[{index}]", chunk_tokens, token_list, vocab_size))
    params: dict[str, Any] = body.get("sampling_params", {})
    for name in ("temperature", "top_p"):
        value = params.get(name)
        if value is not None and not math.isfinite(float(value)):
            raise invalid(f"sampling_params.{name}", "must be a finite number")
    seed_value = params.get("seed")
    seed = None if seed_value is None else int(seed_value) % SEED_MODULUS
    stops: set[int] = set()
    for index, stop in enumerate(params.get("stop", [])):
        text = stop.strip()
        if not text.isdecimal() or not text.isascii() or int(text) >= vocab_size:
            raise invalid(
                f"sampling_params.stop[{index}]",
                "the emulator has no tokenizer: each stop entry must be a decimal token id"
                f" inside the vocabulary [0, {vocab_size}), got {stop[:40]!r}",
            )
        stops.add(int(text))
    num_samples = int(body.get("num_samples", 1))
    max_tokens = int(params.get("max_tokens", DEFAULT_MAX_TOKENS))
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
        temperature=float(params.get("temperature", DEFAULT_TEMPERATURE)),
        top_k=max(0, int(params.get("top_k", 0))),  # below 1: no limit (the spec)
        top_p=float(params.get("top_p", 1.0)),
        seed=seed,
        stop_token_ids=frozenset(stops),
        prompt_logprobs=bool(body.get("prompt_logprobs", False)),
        topk_prompt_logprobs=int(body.get("topk_prompt_logprobs", 0)),
    )


def validate_custom_forward_backward(body: object, vocab_size: int) -> CustomForwardBackwardRequest:
    """`CustomForwardBackwardBody`: samples need `target_tokens` (+ `weights` xor `mask`), checked
    like forward-backward samples; one gradient per sample, as long as its tokens, finite."""
    validate_schema("CustomForwardBackwardBody", body)
    assert isinstance(body, dict)
    raw_samples: list[dict[str, Any]] = body["samples"]
    raw_gradients: list[dict[str, Any]] = body["gradients"]
    if len(raw_gradients) != len(raw_samples):
        raise invalid(
            "gradients",
            f"has {len(raw_gradients)} entries but there are {len(raw_samples)} samples"
            " (one gradient per sample)",
        )
    try:
        samples = [
            _validate_sample(index, sample, CUSTOM_FB_LABEL, ("target_tokens",), vocab_size)
            for index, sample in enumerate(raw_samples)
        ]
        gradients = [
            _gradient(index, gradient, sample.tokens.size)
            for index, (gradient, sample) in enumerate(zip(raw_gradients, samples, strict=True))
        ]
    except (OverflowError, ValueError, TypeError, RecursionError) as exc:
        raise invalid(None, "the request holds a value that cannot be used as a number") from exc
    return CustomForwardBackwardRequest(samples=samples, gradients=gradients)


def _gradient(index: int, gradient: dict[str, Any], n_tokens: int) -> np.ndarray:
    path = f"gradients[{index}].data"
    data: list[Any] = gradient["data"]
    if len(data) != n_tokens:
        raise invalid(path, f"has {len(data)} values but samples[{index}] has {n_tokens} tokens")
    try:
        values = np.fromiter(data, dtype=np.float64, count=len(data))
    except (OverflowError, ValueError, TypeError):
        raise invalid(path, "holds a number too large for a double") from None
    finite = np.isfinite(values)
    if not bool(finite.all()):
        raise invalid(path, f"NaN and Infinity are not valid numbers at data[{np.argmin(finite)}]")
    return values
