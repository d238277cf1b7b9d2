"""The one AdamW reference of the tests: torch.optim.AdamW after clip_grad_norm_(max_norm,
eps 1e-6), written out independently of the emulator's `_optim` (not a test module)."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

__all__ = ["reference_adamw"]

F64 = npt.NDArray[np.float64]


def reference_adamw(
    params: Mapping[str, F64], grads_per_step: list[Mapping[str, F64]], hp: Mapping[str, float]
) -> dict[str, F64]:
    """`params` after one AdamW step per entry of `grads_per_step`, from fresh moments.
    `hp` holds learning_rate, beta1, beta2, eps, weight_decay and grad_clip_norm (<= 0: none)."""
    lr, b1, b2 = hp["learning_rate"], hp["beta1"], hp["beta2"]
    eps, wd, clip = hp["eps"], hp["weight_decay"], hp["grad_clip_norm"]
    p = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v2 = {k: np.zeros_like(v) for k, v in p.items()}
    for t, grads in enumerate(grads_per_step, start=1):
        norm = math.sqrt(sum(float((np.asarray(g) ** 2).sum()) for g in grads.values()))
        coef = min(1.0, clip / (norm + 1e-6)) if clip > 0 else 1.0
        for k in p:
            g = np.asarray(grads[k], dtype=np.float64) * coef
            p[k] = p[k] * (1 - lr * wd)
            m[k] = b1 * m[k] + (1 - b1) * g
            v2[k] = b2 * v2[k] + (1 - b2) * g**2
            p[k] = p[k] - lr * (m[k] / (1 - b1**t)) / (np.sqrt(v2[k] / (1 - b2**t)) + eps)
    return p
