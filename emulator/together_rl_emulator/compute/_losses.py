"""The seven built-in `forward_backward` losses, as defined in docs/losses.md.

Notation per token: l = current log-prob, q = sampler log-prob (`logprobs`), A = `advantages`,
ref = `reference_logprobs`, r = exp(l - q), m = 1[w != 0] from `weights` or `mask` (1 if absent).

- CROSS_ENTROPY: L = -sum w·l (fractional w = `weights`, else `mask`, else 1); no metrics.
- Policy losses: per-token value and gradient over the masked-in tokens only, then
  L = sum over tokens of value / divisor (divisor 1 except for GRPO, see `_grpo_divisor`):
  - IMPORTANCE_SAMPLING: -r·A;                            grad -r·A
  - PPO:   -min(r·A, clip(r, lo, hi)·A);                 grad -A·r·1[(A>0 ∧ r<=hi) ∨ (A<0 ∧ r>=lo)]
  - CISPO: -sg(clip(r, lo, hi))·A·l;                     grad -clip(r, lo, hi)·A
  - DRO:   -(l·A - ½β(l - q)²);                          grad -A + β(l - q)
  - DPPO:  -r·A·valid, Δp = e^l - e^q, valid = 1[Δp <= δ_high] if A>0, 1[Δp >= -δ_low] if A<0,
           else 1;                                        grad -r·A·valid
  - GRPO:  PPO form on r~ (r, or the GSPO sequence ratio s_i = exp(mean of m(l-q)) with
           d r~/dl = s_i), plus β·KL with the k3 estimator KL = e^u - u - 1, u = clip(ref - l, ±10).
Metrics are token means over all masked-in tokens of the request (0.0 if there are none).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..base import (
    F64,
    I64,
    LOSS_PARAM_DEFAULTS,
    LOSS_PARAMS_REQUIRED,
    LOSS_TYPES,
    PARAMS_KEYS,
    enum_value,
)

__all__ = ["DEFAULTS", "LOSS_TYPES", "PARAMS_KEYS", "LossResult", "compute_loss"]

# The loss types this module gives a formula to, named by their value in the spec's `LossType`.
CE = enum_value("LossType", "CROSS_ENTROPY")
GRPO = enum_value("LossType", "GRPO")
IS = enum_value("LossType", "IMPORTANCE_SAMPLING")
PPO = enum_value("LossType", "PPO")
CISPO = enum_value("LossType", "CISPO")
DRO = enum_value("LossType", "DRO")
DPPO = enum_value("LossType", "DPPO")

AGG_FIXED_HORIZON = enum_value("GRPOLossAggregationType", "FIXED_HORIZON")
AGG_TOKEN_MEAN = enum_value("GRPOLossAggregationType", "TOKEN_MEAN")
AGG_SEQUENCE_MEAN = enum_value("GRPOLossAggregationType", "SEQUENCE_MEAN")
AGG_UNSPECIFIED = enum_value("GRPOLossAggregationType", "UNSPECIFIED")
RATIO_SEQUENCE = enum_value("GRPOLossRatioType", "SEQUENCE")

# Defaults per params key (the spec's, `_facts.py`). dro_params.beta is required, so it has none.
DEFAULTS = LOSS_PARAM_DEFAULTS

KL_CLAMP = 10.0


@dataclass
class LossResult:
    loss: float
    metrics: dict[str, float]
    dlogp: list[F64]  # dL/dlogp per sample, exactly 0.0 where masked
    masks: list[F64]  # m per sample, 0.0 / 1.0


@dataclass
class _Tokens:
    """The masked-in tokens of the whole request, concatenated (one array entry per token)."""

    lp: F64
    q: F64
    A: F64
    ref: F64 | None
    sample: I64  # index of the token's sample
    n: F64  # (B,) masked-in token count per sample
    t_max: int  # longest sample of the request, masked tokens included


# A per-token loss: (value, dvalue/dl, metrics) over the masked-in tokens.
_PerToken = Callable[[_Tokens, dict[str, float | str]], tuple[F64, F64, dict[str, float]]]


def _mean(x: F64) -> float:
    return float(x.mean()) if x.size else 0.0


def _ratio_metrics(tok: _Tokens) -> dict[str, float]:
    return {
        "loss/ratio/mean": _mean(np.exp(tok.lp - tok.q)),
        "loss/kl_policy/mean": _mean(tok.q - tok.lp),
    }


def _clipped_pg(ratio: F64, A: F64, lo: float, hi: float) -> tuple[F64, F64, dict[str, float]]:
    """-min(ratio·A, clip(ratio)·A), its gradient given d ratio/dl = ratio, and clip metrics."""
    value = -np.minimum(ratio * A, np.clip(ratio, lo, hi) * A)
    grad = np.where(((A > 0) & (ratio <= hi)) | ((A < 0) & (ratio >= lo)), -A * ratio, 0.0)
    metrics = {
        "loss/clip/high_fraction": _mean(((ratio > hi) & (A > 0)).astype(np.float64)),
        "loss/clip/low_fraction": _mean(((ratio < lo) & (A < 0)).astype(np.float64)),
    }
    return value, grad, metrics


def _importance_sampling(
    tok: _Tokens, p: dict[str, float | str]
) -> tuple[F64, F64, dict[str, float]]:
    v = -np.exp(tok.lp - tok.q) * tok.A
    return v, v.copy(), _ratio_metrics(tok)


def _ppo(tok: _Tokens, p: dict[str, float | str]) -> tuple[F64, F64, dict[str, float]]:
    value, grad, clip = _clipped_pg(
        np.exp(tok.lp - tok.q),
        tok.A,
        float(p["clip_low_threshold"]),
        float(p["clip_high_threshold"]),
    )
    return value, grad, _ratio_metrics(tok) | clip


def _cispo(tok: _Tokens, p: dict[str, float | str]) -> tuple[F64, F64, dict[str, float]]:
    lo, hi = float(p["clip_low_threshold"]), float(p["clip_high_threshold"])
    r = np.exp(tok.lp - tok.q)
    coef = -np.clip(r, lo, hi) * tok.A  # detached: clipping caps the coefficient, never zeroes it
    metrics = {
        "loss/clip/high_fraction": _mean((r > hi).astype(np.float64)),
        "loss/clip/low_fraction": _mean((r < lo).astype(np.float64)),
    }
    return coef * tok.lp, coef, _ratio_metrics(tok) | metrics


def _dro(tok: _Tokens, p: dict[str, float | str]) -> tuple[F64, F64, dict[str, float]]:
    beta, d = float(p["beta"]), tok.lp - tok.q
    return -(tok.lp * tok.A - 0.5 * beta * d * d), -tok.A + beta * d, _ratio_metrics(tok)


def _dppo(tok: _Tokens, p: dict[str, float | str]) -> tuple[F64, F64, dict[str, float]]:
    dlo, dhi, A = float(p["delta_low"]), float(p["delta_high"]), tok.A
    dp = np.exp(tok.lp) - np.exp(tok.q)
    valid = np.where(A > 0, dp <= dhi, np.where(A < 0, dp >= -dlo, True))
    v = np.where(valid, -np.exp(tok.lp - tok.q) * A, 0.0)
    metrics = {
        "loss/clip/high_fraction": _mean(((A > 0) & (dp > dhi)).astype(np.float64)),
        "loss/clip/low_fraction": _mean(((A < 0) & (dp < -dlo)).astype(np.float64)),
    }
    return v, v.copy(), _ratio_metrics(tok) | metrics


def _grpo(tok: _Tokens, p: dict[str, float | str]) -> tuple[F64, F64, dict[str, float]]:
    lo, hi, beta = float(p["clip_low_threshold"]), float(p["clip_high_threshold"]), float(p["beta"])
    if p["ratio_type"] == RATIO_SEQUENCE:
        # GSPO, reparameterised: each token's ratio is s_i, d ratio_t / d l_t = s_i, no cross terms.
        seq = np.bincount(tok.sample, weights=tok.lp - tok.q, minlength=tok.n.size) / np.maximum(
            1.0, tok.n
        )
        log_ratio = seq[tok.sample]
    else:
        log_ratio = tok.lp - tok.q
    ratio = np.exp(log_ratio)
    value, grad, clip = _clipped_pg(ratio, tok.A, lo, hi)
    metrics = {
        "loss/ratio/mean": _mean(ratio),
        "loss/kl_policy/mean": _mean(-log_ratio),
        "loss/clip/clipped_ratio/mean": _mean(np.clip(ratio, lo, hi)),
    } | clip
    if beta > 0:
        if tok.ref is None:
            raise ValueError("grpo_params.beta > 0 requires reference_logprobs")
        diff = tok.ref - tok.lp
        u = np.clip(diff, -KL_CLAMP, KL_CLAMP)
        kl = np.exp(u) - u - 1.0
        value = value + beta * kl
        grad = grad + beta * np.where(np.abs(diff) <= KL_CLAMP, 1.0 - np.exp(u), 0.0)
        metrics["loss/kl_ref/mean"] = _mean(kl)
    return value, grad, metrics


_PER_TOKEN: dict[str, _PerToken] = {
    GRPO: _grpo,
    IS: _importance_sampling,
    PPO: _ppo,
    CISPO: _cispo,
    DRO: _dro,
    DPPO: _dppo,
}


def _grpo_divisor(tok: _Tokens, agg: str) -> F64 | float:
    """Per-token divisor of the GRPO aggregation (docs/losses.md), B = the request's samples."""
    B = tok.n.size
    if agg == AGG_TOKEN_MEAN:
        return max(1.0, float(tok.n.sum()))
    if agg == AGG_SEQUENCE_MEAN:
        per_sample: F64 = B * np.maximum(1.0, tok.n)
        return per_sample[tok.sample]
    return float(max(1, B * tok.t_max))  # FIXED_HORIZON


def _params(loss: Mapping[str, Any], kind: str) -> dict[str, float | str]:
    """The loss's params with defaults filled in (a null or absent field takes its default)."""
    key = PARAMS_KEYS[kind]
    if key is None:
        return {}
    given = loss.get(key) or {}
    if not isinstance(given, Mapping):
        raise ValueError(f"{key} must be an object")
    p: dict[str, float | str] = dict(DEFAULTS[key])
    p.update({k: v for k, v in given.items() if v is not None})
    missing = [name for name in LOSS_PARAMS_REQUIRED[key] if name not in p]
    if missing:
        raise ValueError(f"{key}.{missing[0]} is required")
    if kind == GRPO and p["agg_type"] == AGG_UNSPECIFIED:
        p["agg_type"] = AGG_FIXED_HORIZON
    return p


def _weights(x: Mapping[str, F64], n: int) -> F64:
    for key in ("weights", "mask"):
        if key in x:
            return np.asarray(x[key], dtype=np.float64)
    return np.ones(n)


def _split(flat: F64, lengths: list[int]) -> list[F64]:
    return np.split(flat, np.cumsum(lengths)[:-1]) if lengths else []


def compute_loss(
    loss: Mapping[str, Any], logprobs: Sequence[F64], inputs: Sequence[Mapping[str, F64]]
) -> LossResult:
    """Loss value, metrics and dL/dlogp for one `forward_backward` request (all samples at once)."""
    kind = loss.get("type")
    if not isinstance(kind, str) or kind not in LOSS_TYPES:
        raise ValueError(f"unsupported loss type {kind!r}")
    p = _params(loss, kind)
    lengths = [len(lp) for lp in logprobs]
    if len(inputs) != len(logprobs):
        raise ValueError("logprobs and inputs must have one entry per sample")
    weights = [_weights(x, n) for x, n in zip(inputs, lengths, strict=True)]
    masks = [(w != 0).astype(np.float64) for w in weights]

    if kind == CE:
        # Fractional weights are honoured; masked slots get exactly 0.0 (never -0.0).
        dlogp = [np.where(w != 0, -w, 0.0) for w in weights]
        total = sum(
            float(np.dot(g[g != 0], lp[g != 0])) for g, lp in zip(dlogp, logprobs, strict=True)
        )
        return LossResult(loss=total, metrics={}, dlogp=dlogp, masks=masks)

    def cat(key: str) -> F64:
        return (
            np.concatenate([np.asarray(x[key], dtype=np.float64) for x in inputs])
            if inputs
            else np.zeros(0)
        )

    sel = np.concatenate(masks).astype(bool) if masks else np.zeros(0, dtype=bool)
    has_ref = all("reference_logprobs" in x for x in inputs)
    tok = _Tokens(
        lp=(np.concatenate(logprobs) if logprobs else np.zeros(0))[sel],
        q=cat("logprobs")[sel],
        A=cat("advantages")[sel],
        ref=cat("reference_logprobs")[sel] if has_ref else None,
        sample=np.repeat(np.arange(len(lengths)), lengths)[sel],
        n=np.array([m.sum() for m in masks], dtype=np.float64),
        t_max=max(lengths, default=0),
    )
    value, grad, metrics = _PER_TOKEN[kind](tok, p)
    divisor = _grpo_divisor(tok, str(p["agg_type"])) if kind == GRPO else 1.0
    flat = np.zeros(sel.size)
    flat[sel] = grad / divisor
    return LossResult(
        loss=float(np.sum(value / divisor)),
        metrics=metrics,
        dlogp=_split(flat, lengths),
        masks=masks,
    )
