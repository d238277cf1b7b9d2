"""Reference loss values, from the [R] definitions of docs/losses.md, independent of the emulator.

Inputs are per-sample numpy arrays: ``logprobs`` ℓ (current policy, as returned by the server),
``sampler`` q (``loss_fn_inputs.logprobs``), ``advantages`` A, ``reference`` ρ, ``mask`` m (1 where
the weight/mask is non-zero) and, for cross-entropy, ``weights`` w. Values are float64.

Besides the project's definition, :func:`candidate_losses` gives the alternatives the live API
might use (docs/losses.md §14), so a run against another server can report which one it matches.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from together_rl_contract_tests._spec import PARAMS_KEYS, enum_value, params_defaults

__all__ = [
    "CISPO",
    "CROSS_ENTROPY",
    "DEFAULTS",
    "DPPO",
    "DRO",
    "FIXED_HORIZON",
    "GRPO",
    "IMPORTANCE_SAMPLING",
    "KL_CLAMP",
    "PPO",
    "SEQUENCE_MEAN",
    "SEQUENCE_RATIO",
    "TOKEN_MEAN",
    "Array",
    "SampleInputs",
    "aggregations",
    "candidate_losses",
    "matches",
    "per_token_loss",
    "project_aggregation",
    "reference_loss",
    "resolved_params",
    "sample_inputs",
]

Array = NDArray[np.float64]

CROSS_ENTROPY = enum_value("LossType", "CROSS_ENTROPY")
IMPORTANCE_SAMPLING = enum_value("LossType", "IMPORTANCE_SAMPLING")
PPO = enum_value("LossType", "PPO")
CISPO = enum_value("LossType", "CISPO")
DRO = enum_value("LossType", "DRO")
DPPO = enum_value("LossType", "DPPO")
GRPO = enum_value("LossType", "GRPO")
FIXED_HORIZON = enum_value("GRPOLossAggregationType", "FIXED_HORIZON")
TOKEN_MEAN = enum_value("GRPOLossAggregationType", "TOKEN_MEAN")
SEQUENCE_MEAN = enum_value("GRPOLossAggregationType", "SEQUENCE_MEAN")
SEQUENCE_RATIO = enum_value("GRPOLossRatioType", "SEQUENCE")


def _defaults() -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for loss_type, key in PARAMS_KEYS.items():
        numbers = {
            name: float(value)
            for name, value in params_defaults(key).items()
            if isinstance(value, int | float) and not isinstance(value, bool)
        }
        if numbers:
            out[loss_type] = numbers
    return out


#: Per loss type, the numeric params that have a default, with it (docs/losses.md §11).
DEFAULTS: dict[str, dict[str, float]] = _defaults()
KL_CLAMP = 10.0


@dataclasses.dataclass(frozen=True)
class SampleInputs:
    logprobs: Array
    mask: Array
    sampler: Array | None = None
    advantages: Array | None = None
    reference: Array | None = None
    weights: Array | None = None


def per_token_loss(
    loss_type: str, s: SampleInputs, params: dict[str, float], seq_ratio: float | None = None
) -> Array:
    """Per-token loss values of one sample, before masking and aggregation."""
    ell = s.logprobs
    if loss_type == CROSS_ENTROPY:
        assert s.weights is not None
        return -s.weights * ell
    assert s.sampler is not None and s.advantages is not None
    q, a = s.sampler, s.advantages
    r = np.exp(ell - q)
    if loss_type == IMPORTANCE_SAMPLING:
        return -r * a
    if loss_type == CISPO:
        c = np.clip(r, params["clip_low_threshold"], params["clip_high_threshold"])
        return -c * a * ell
    if loss_type == DRO:
        return -(ell * a - 0.5 * params["beta"] * (ell - q) ** 2)
    if loss_type == DPPO:
        dp = np.exp(ell) - np.exp(q)
        valid = np.where(
            a > 0, dp <= params["delta_high"], np.where(a < 0, dp >= -params["delta_low"], True)
        )
        return -r * a * valid
    if loss_type in (PPO, GRPO):
        rt = np.full_like(ell, seq_ratio) if seq_ratio is not None else r
        lo, hi = params["clip_low_threshold"], params["clip_high_threshold"]
        value = -np.minimum(rt * a, np.clip(rt, lo, hi) * a)
        beta = params.get("beta", 0.0)
        if loss_type == GRPO and beta > 0:
            assert s.reference is not None
            u = np.clip(s.reference - ell, -KL_CLAMP, KL_CLAMP)
            value = value + beta * (np.exp(u) - u - 1.0)
        return value
    raise ValueError(f"unknown loss type {loss_type}")


def resolved_params(loss_type: str, given: dict[str, object] | None) -> dict[str, float]:
    params: dict[str, float] = dict(DEFAULTS.get(loss_type, {}))
    for key, value in (given or {}).items():
        if isinstance(value, int | float) and not isinstance(value, bool):
            params[key] = float(value)
    return params


def _masked_sums(
    loss_type: str,
    samples: Sequence[SampleInputs],
    params: dict[str, float],
    ratio_type: str | None,
) -> list[float]:
    sums = []
    for s in samples:
        seq_ratio = None
        if loss_type == GRPO and ratio_type == SEQUENCE_RATIO:
            assert s.sampler is not None
            n = max(1.0, float(s.mask.sum()))
            seq_ratio = math.exp(float((s.mask * (s.logprobs - s.sampler)).sum()) / n)
        sums.append(float((s.mask * per_token_loss(loss_type, s, params, seq_ratio)).sum()))
    return sums


def aggregations(
    loss_type: str,
    samples: Sequence[SampleInputs],
    params: dict[str, float],
    ratio_type: str | None = None,
) -> dict[str, float]:
    """Every plausible aggregation of the masked per-token losses of one request, by name."""
    sums = _masked_sums(loss_type, samples, params, ratio_type)
    counts = [float(s.mask.sum()) for s in samples]
    lengths = [len(s.logprobs) for s in samples]
    batch = len(samples)
    total = sum(sums)
    return {
        "sum": total,
        "token-mean": total / max(1.0, sum(counts)),
        "sample-mean": sum(x / max(1.0, n) for x, n in zip(sums, counts, strict=True)) / batch,
        "fixed-horizon B*T_max": total / (batch * max(lengths)),
        "fixed-horizon sum(T_i)": total / sum(lengths),
        "mean of sample sums": total / batch,
    }


#: The project's definition, per loss type and GRPO aggregation (docs/losses.md §2).
def project_aggregation(loss_type: str, agg_type: str | None) -> str:
    if loss_type != GRPO:
        return "sum"
    # A KeyError here: the spec gained an aggregation type, which needs its definition here.
    return _PROJECT_AGGREGATIONS[agg_type or FIXED_HORIZON]


_PROJECT_AGGREGATIONS = {
    FIXED_HORIZON: "fixed-horizon B*T_max",
    enum_value("GRPOLossAggregationType", "UNSPECIFIED"): "fixed-horizon B*T_max",
    TOKEN_MEAN: "token-mean",
    SEQUENCE_MEAN: "sample-mean",
}


def reference_loss(
    loss_type: str, samples: Sequence[SampleInputs], loss_config: dict[str, object]
) -> float:
    """The loss this project defines for a request."""
    given = loss_config.get(PARAMS_KEYS.get(loss_type, ""))
    given_params = given if isinstance(given, dict) else {}
    params = resolved_params(loss_type, given_params)
    agg = given_params.get("agg_type") if loss_type == GRPO else None
    ratio = given_params.get("ratio_type") if loss_type == GRPO else None
    values = aggregations(loss_type, samples, params, ratio if isinstance(ratio, str) else None)
    return values[project_aggregation(loss_type, agg if isinstance(agg, str) else None)]


def candidate_losses(
    loss_type: str, samples: Sequence[SampleInputs], loss_config: dict[str, object]
) -> dict[str, float]:
    """Alternatives to the project's definition: aggregations x (for GRPO without clips) clip defaults."""  # noqa: E501
    given = loss_config.get(PARAMS_KEYS.get(loss_type, ""))
    given_params = dict(given) if isinstance(given, dict) else {}
    ratio = given_params.get("ratio_type")
    variants: dict[str, dict[str, object]] = {"": given_params}
    if loss_type == GRPO and "clip_high_threshold" not in given_params:
        variants = {
            "clips 0.8/1.28": {
                **given_params,
                "clip_low_threshold": 0.8,
                "clip_high_threshold": 1.28,
            },
            "clips 0.8/1.2": {
                **given_params,
                "clip_low_threshold": 0.8,
                "clip_high_threshold": 1.2,
            },
        }
    out: dict[str, float] = {}
    for label, variant in variants.items():
        params = resolved_params(loss_type, variant)
        for agg, value in aggregations(
            loss_type, samples, params, ratio if isinstance(ratio, str) else None
        ).items():
            out[f"{agg}, {label}" if label else agg] = value
    return out


def matches(observed: float, expected: float, *, rtol: float = 2e-4, atol: float = 2e-5) -> bool:
    return math.isfinite(observed) and abs(observed - expected) <= atol + rtol * abs(expected)


def sample_inputs(
    body: dict[str, object], returned: Sequence[Sequence[float]]
) -> list[SampleInputs]:
    """A forward-backward request body and the log-probs its result returned, as inputs to the
    definitions above (the mask is where ``weights``, or else ``mask``, is non-zero)."""
    samples = body["samples"]
    assert isinstance(samples, list)
    out = []
    for sample, ell in zip(samples, returned, strict=True):
        inputs = sample["loss_fn_inputs"]

        def arr(name: str, inputs: dict[str, dict[str, object]] = inputs) -> Array | None:
            if name not in inputs:
                return None
            return np.asarray(inputs[name]["data"], dtype=np.float64)

        weights = arr("weights")
        mask_source = weights if weights is not None else arr("mask")
        mask = (
            (mask_source != 0).astype(np.float64) if mask_source is not None else np.ones(len(ell))
        )
        out.append(
            SampleInputs(
                logprobs=np.asarray(ell, dtype=np.float64),
                mask=mask,
                sampler=arr("logprobs"),
                advantages=arr("advantages"),
                reference=arr("reference_logprobs"),
                weights=weights,
            )
        )
    return out
