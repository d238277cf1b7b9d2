"""Muon (momentum orthogonalised by Newton-Schulz) for the 2-D parameters, AdamW for the others.

The reference followed is Keller Jordan's `muon.py` (github.com/KellerJordan/Muon,
`SingleDeviceMuonWithAuxAdam`), the implementation the Muon write-up
(kellerjordan.github.io/posts/muon) points to, computed in float64 instead of bfloat16. One step
with gradients g (after clipping), for each 2-D parameter p of shape (rows, cols):

  clipping:  as AdamW's (`_optim`): one global norm over every parameter, both groups
  B <- mu * B + (1 - mu) * g                      (momentum.lerp_(grad, 1 - mu))
  U <- (1 - mu) * g + mu * B                      (Nesterov: grad.lerp_(momentum, mu))
  X <- U (transposed if rows > cols);  X <- X / (||X||_F + 1e-7)
  newton_schulz_steps times:  A = X X^T;  X <- a X + (b A + c A A) X,
                              (a, b, c) = (3.4445, -4.7750, 2.0315)
  O <- X (transposed back) * scale
  p <- p * (1 - lr * weight_decay);  p <- p - lr * O

`scale` follows the resources' `optimizer_config.muon.scaling_strategy`:
  ORIGINAL: sqrt(max(1, rows / cols))                     (Keller Jordan's `muon_update`)
  MATCH_ADAM (and UNSPECIFIED): 0.2 * sqrt(max(rows, cols))  (Moonshot's Moonlight, "Muon is
      Scalable for LLM Training"; torch.optim.Muon's `match_rms_adamw`): the update's RMS
      matches AdamW's, so AdamW learning rates carry over. Together's OpenAPI document gives
      MATCH_ADAMW as the default of `scaling_strategy`.
Every other parameter takes the AdamW step of `_optim` with the `adam` sub-parameters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..base import F64
from ._optim import AdamParams, AdamState, adamw_step, clip_scale

__all__ = [
    "NS_COEFFICIENTS",
    "NS_EPS",
    "SCALING_MATCH_ADAM",
    "SCALING_ORIGINAL",
    "MuonParams",
    "muon_scale",
    "muon_step",
    "newton_schulz",
]

NS_COEFFICIENTS = (3.4445, -4.7750, 2.0315)
NS_EPS = 1e-7
MATCH_ADAM_RMS = 0.2
SCALING_ORIGINAL = "MUON_SCALING_STRATEGY_ORIGINAL"
SCALING_MATCH_ADAM = "MUON_SCALING_STRATEGY_MATCH_ADAM"


@dataclass
class MuonParams:
    """Muon hyper-parameters of one step (the defaults are the spec's `MuonParams`)."""

    learning_rate: float
    momentum: float
    newton_schulz_steps: int
    weight_decay: float
    grad_clip_norm: float  # <= 0 disables clipping; clips every parameter, both groups
    adam: AdamParams  # the step of the parameters that are not 2-D
    scaling_strategy: str  # SCALING_ORIGINAL or SCALING_MATCH_ADAM


def newton_schulz(update: F64, steps: int) -> F64:
    """The quintic Newton-Schulz approximation of the orthogonal factor of a 2-D `update`."""
    a, b, c = NS_COEFFICIENTS
    tall = update.shape[0] > update.shape[1]
    x = update.T if tall else update
    x = x / (float(np.linalg.norm(x)) + NS_EPS)
    for _ in range(steps):
        gram = x @ x.T
        x = a * x + (b * gram + c * (gram @ gram)) @ x
    out: F64 = x.T if tall else x
    return out


def muon_scale(shape: tuple[int, ...], strategy: str) -> float:
    rows, cols = shape
    if strategy == SCALING_ORIGINAL:
        return math.sqrt(max(1.0, rows / cols))
    return MATCH_ADAM_RMS * math.sqrt(max(rows, cols))


def muon_step(
    params: dict[str, F64],
    grads: Mapping[str, F64],
    momentum: dict[str, F64],
    adam: AdamState,
    hp: MuonParams,
) -> None:
    """Update `params`, `momentum` (2-D keys) and `adam` (the others) in place by one step."""
    scale = clip_scale(params, grads, hp.grad_clip_norm)
    matrices = sorted(k for k, p in params.items() if p.ndim == 2)
    others = {k: p for k, p in params.items() if k not in matrices}
    for key in matrices:
        p, g = params[key], grads[key] * scale
        buf = momentum.get(key)
        buf = np.zeros_like(p) if buf is None else buf
        buf = hp.momentum * buf + (1.0 - hp.momentum) * g
        momentum[key] = buf
        update = (1.0 - hp.momentum) * g + hp.momentum * buf
        ortho = newton_schulz(update, hp.newton_schulz_steps) * muon_scale(
            p.shape, hp.scaling_strategy
        )
        if hp.weight_decay:
            p *= 1.0 - hp.learning_rate * hp.weight_decay
        p -= hp.learning_rate * ortho
    # The AdamW step of the other parameters, clipped by the same global norm (not again).
    unclipped = AdamParams(**{**hp.adam.__dict__, "grad_clip_norm": 0.0})
    adamw_step(others, {k: grads[k] * scale for k in others}, adam, unclipped)
