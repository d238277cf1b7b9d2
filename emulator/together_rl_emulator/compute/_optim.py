"""AdamW (decoupled weight decay, bias correction) over a dict of arrays, with global-norm clipping.

One step with gradients g (after clipping), step count t (starting at 1), learning rate lr:
  clipping:  n = sqrt(sum of g**2 over all arrays); if grad_clip_norm > 0 and n > grad_clip_norm,
             g <- g * grad_clip_norm / (n + 1e-6)   (torch.nn.utils.clip_grad_norm_)
  p <- p * (1 - lr * weight_decay)
  m <- beta1 * m + (1 - beta1) * g;   v <- beta2 * v + (1 - beta2) * g**2
  p <- p - lr * (m / (1 - beta1**t)) / (sqrt(v / (1 - beta2**t)) + eps)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..base import F64, float_arrays_under

__all__ = ["CLIP_EPS", "AdamParams", "AdamState", "adamw_step", "clip_scale", "global_norm"]

CLIP_EPS = 1e-6


@dataclass
class AdamParams:
    """AdamW hyper-parameters (the defaults of a request are the spec's: `_facts.ADAM_DEFAULTS`)."""

    learning_rate: float
    beta1: float
    beta2: float
    eps: float
    weight_decay: float
    grad_clip_norm: float  # <= 0 disables clipping


@dataclass
class AdamState:
    """Step count and first/second moments per parameter key (missing moments start at zero)."""

    step: int = 0
    m: dict[str, F64] = field(default_factory=dict)
    v: dict[str, F64] = field(default_factory=dict)

    def to_arrays(self) -> dict[str, F64]:
        """Flat dict for np.savez: {"step": 0-d array, "m/<key>": ..., "v/<key>": ...}."""
        out: dict[str, F64] = {"step": np.array(self.step, dtype=np.float64)}
        out.update({f"m/{k}": a for k, a in self.m.items()})
        out.update({f"v/{k}": a for k, a in self.v.items()})
        return out

    @classmethod
    def from_arrays(cls, d: Mapping[str, npt.ArrayLike]) -> AdamState:
        m, v = float_arrays_under(d, "m/"), float_arrays_under(d, "v/")
        return cls(step=int(np.asarray(d["step"])), m=m, v=v)


def global_norm(grads: Mapping[str, F64]) -> float:
    """sqrt of the sum of squares of every entry of every gradient array."""
    return float(np.sqrt(sum(float(np.vdot(g, g)) for g in grads.values())))


def clip_scale(params: Mapping[str, F64], grads: Mapping[str, F64], max_norm: float) -> float:
    """The factor that clips `grads` to the global norm `max_norm` (1: within it, or 0: no
    clipping); a ValueError unless `grads` and `params` have the same keys."""
    if set(grads) != set(params):
        raise ValueError("grads and params must have the same keys")
    if max_norm > 0:
        norm = global_norm(grads)
        if norm > max_norm:
            return max_norm / (norm + CLIP_EPS)
    return 1.0


def adamw_step(
    params: dict[str, F64], grads: Mapping[str, F64], state: AdamState, hp: AdamParams
) -> None:
    """Update `params` (and `state`) in place by one AdamW step; see the module docstring."""
    scale = clip_scale(params, grads, hp.grad_clip_norm)
    state.step += 1
    bc1 = 1.0 - hp.beta1**state.step
    bc2 = 1.0 - hp.beta2**state.step
    for key, p in params.items():
        g = grads[key] * scale
        if key not in state.m:
            state.m[key], state.v[key] = np.zeros_like(p), np.zeros_like(p)
        m, v = state.m[key], state.v[key]
        m *= hp.beta1
        m += (1.0 - hp.beta1) * g
        v *= hp.beta2
        v += (1.0 - hp.beta2) * g * g
        if hp.weight_decay:
            p *= 1.0 - hp.learning_rate * hp.weight_decay
        p -= hp.learning_rate * (m / bc1) / (np.sqrt(v / bc2) + hp.eps)
