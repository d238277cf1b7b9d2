"""Reference loss values, written from losses.md ([R] definitions), independent of the emulator.

Inputs are per-sample numpy arrays: ``logprobs`` ℓ (current policy, as returned by the server),
``sampler`` q (``loss_fn_inputs.logprobs``), ``advantages`` A, ``reference`` ρ, ``mask`` m (1 where
the weight/mask is non-zero) and, for cross-entropy, ``weights`` w. Values are float64.

Besides the project's definition, :func:`candidate_losses` gives the alternatives the live API
might use (losses.md §14), so a run against another server can report which one it matches.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "DEFAULTS",
    "PARAMS_KEY",
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

#: Defaults of this project (losses.md §11).
DEFAULTS: dict[str, dict[str, float]] = {
    "LOSS_TYPE_PPO": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
    "LOSS_TYPE_CISPO": {"clip_low_threshold": 0.0, "clip_high_threshold": 4.0},
    "LOSS_TYPE_GRPO": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28, "beta": 0.0},
    "LOSS_TYPE_DPPO": {"delta_low": 0.15, "delta_high": 0.15},
}
PARAMS_KEY = {
    "LOSS_TYPE_CROSS_ENTROPY": "cross_entropy_params",
    "LOSS_TYPE_GRPO": "grpo_params",
    "LOSS_TYPE_PPO": "ppo_params",
    "LOSS_TYPE_CISPO": "cispo_params",
    "LOSS_TYPE_DRO": "dro_params",
    "LOSS_TYPE_DPPO": "dppo_params",
}
FIXED_HORIZON = "GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON"
TOKEN_MEAN = "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN"
SEQUENCE_MEAN = "GRPO_LOSS_AGGREGATION_TYPE_SEQUENCE_MEAN"
SEQUENCE_RATIO = "GRPO_LOSS_RATIO_TYPE_SEQUENCE"
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
    if loss_type == "LOSS_TYPE_CROSS_ENTROPY":
        assert s.weights is not None
        return -s.weights * ell
    assert s.sampler is not None and s.advantages is not None
    q, a = s.sampler, s.advantages
    r = np.exp(ell - q)
    if loss_type == "LOSS_TYPE_IMPORTANCE_SAMPLING":
        return -r * a
    if loss_type == "LOSS_TYPE_CISPO":
        c = np.clip(r, params["clip_low_threshold"], params["clip_high_threshold"])
        return -c * a * ell
    if loss_type == "LOSS_TYPE_DRO":
        return -(ell * a - 0.5 * params["beta"] * (ell - q) ** 2)
    if loss_type == "LOSS_TYPE_DPPO":
        dp = np.exp(ell) - np.exp(q)
        valid = np.where(
            a > 0, dp <= params["delta_high"], np.where(a < 0, dp >= -params["delta_low"], True)
        )
        return -r * a * valid
    if loss_type in ("LOSS_TYPE_PPO", "LOSS_TYPE_GRPO"):
        rt = np.full_like(ell, seq_ratio) if seq_ratio is not None else r
        lo, hi = params["clip_low_threshold"], params["clip_high_threshold"]
        value = -np.minimum(rt * a, np.clip(rt, lo, hi) * a)
        beta = params.get("beta", 0.0)
        if loss_type == "LOSS_TYPE_GRPO" and beta > 0:
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
        if loss_type == "LOSS_TYPE_GRPO" and ratio_type == SEQUENCE_RATIO:
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


#: The project's definition, per loss type and GRPO aggregation (losses.md §2).
def project_aggregation(loss_type: str, agg_type: str | None) -> str:
    if loss_type != "LOSS_TYPE_GRPO":
        return "sum"
    return {TOKEN_MEAN: "token-mean", SEQUENCE_MEAN: "sample-mean"}.get(
        agg_type or FIXED_HORIZON, "fixed-horizon B*T_max"
    )


def reference_loss(
    loss_type: str, samples: Sequence[SampleInputs], loss_config: dict[str, object]
) -> float:
    """The loss this project defines for a request."""
    given = loss_config.get(PARAMS_KEY.get(loss_type, ""))
    given_params = given if isinstance(given, dict) else {}
    params = resolved_params(loss_type, given_params)
    agg = given_params.get("agg_type") if loss_type == "LOSS_TYPE_GRPO" else None
    ratio = given_params.get("ratio_type") if loss_type == "LOSS_TYPE_GRPO" else None
    values = aggregations(loss_type, samples, params, ratio if isinstance(ratio, str) else None)
    return values[project_aggregation(loss_type, agg if isinstance(agg, str) else None)]


def candidate_losses(
    loss_type: str, samples: Sequence[SampleInputs], loss_config: dict[str, object]
) -> dict[str, float]:
    """Alternatives to the project's definition: aggregations x (for GRPO without clips) clip defaults."""  # noqa: E501
    given = loss_config.get(PARAMS_KEY.get(loss_type, ""))
    given_params = dict(given) if isinstance(given, dict) else {}
    ratio = given_params.get("ratio_type")
    variants: dict[str, dict[str, object]] = {"": given_params}
    if loss_type == "LOSS_TYPE_GRPO" and "clip_high_threshold" not in given_params:
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
