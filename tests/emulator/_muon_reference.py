"""The one Muon reference of the tests, written out independently of the emulator's `_muon`
(not a test module): Keller Jordan's `SingleDeviceMuonWithAuxAdam` (github.com/KellerJordan/Muon,
muon.py) on numpy float64, after torch's `clip_grad_norm_` over every parameter (eps 1e-6).

Matrices (2-D) take `muon_update` (lerp momentum, Nesterov, quintic Newton-Schulz in its
`zeropower_via_newtonschulz5` form) times the scaling strategy's factor; the others `adam_update`.
Both then `p.mul_(1 - lr * wd); p.add_(update, alpha=-lr)`."""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

__all__ = ["reference_muon"]

F64 = npt.NDArray[np.float64]


def _lerp(start: F64, end: F64, weight: float) -> F64:
    return start + weight * (end - start)  # torch.lerp


def _zeropower_via_newtonschulz5(g: F64, steps: int) -> F64:
    a, b, c = (3.4445, -4.7750, 2.0315)
    x = g.copy()
    transposed = g.shape[-2] > g.shape[-1]
    if transposed:
        x = x.T
    x = x / (np.sqrt((x * x).sum()) + 1e-7)
    for _ in range(steps):
        gram = x @ x.T
        poly = b * gram + c * gram @ gram
        x = a * x + poly @ x
    return x.T if transposed else x


def _scale(shape: tuple[int, ...], strategy: str) -> float:
    if strategy == "original":  # muon_update: max(1, rows / cols) ** 0.5
        return float(max(1, shape[-2] / shape[-1]) ** 0.5)
    return 0.2 * math.sqrt(max(shape[-2], shape[-1]))  # Moonlight's adjust_lr_for_muon


def reference_muon(
    params: Mapping[str, F64],
    grads_per_step: list[Mapping[str, F64]],
    muon: Mapping[str, float],
    adam: Mapping[str, float],
    strategy: str,
) -> dict[str, F64]:
    """`params` after one step per entry of `grads_per_step`, from fresh optimizer state.
    `muon` holds learning_rate, momentum, newton_schulz_steps, weight_decay, grad_clip_norm;
    `adam` learning_rate, beta1, beta2, eps, weight_decay; `strategy` "original" or "match"."""
    p = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
    momentum_buffer = {k: np.zeros_like(v) for k, v in p.items() if v.ndim == 2}
    exp_avg = {k: np.zeros_like(v) for k, v in p.items() if v.ndim != 2}
    exp_avg_sq = {k: np.zeros_like(v) for k, v in exp_avg.items()}
    beta = muon["momentum"]
    for step, grads in enumerate(grads_per_step, start=1):
        total = math.sqrt(sum(float(np.sum(np.square(g))) for g in grads.values()))
        clip = muon["grad_clip_norm"]
        coef = min(1.0, clip / (total + 1e-6)) if clip > 0 else 1.0
        for k in p:
            grad = np.asarray(grads[k], dtype=np.float64) * coef
            if k in momentum_buffer:
                momentum_buffer[k] = _lerp(momentum_buffer[k], grad, 1 - beta)
                update = _lerp(grad, momentum_buffer[k], beta)
                update = _zeropower_via_newtonschulz5(update, int(muon["newton_schulz_steps"]))
                update = update * _scale(grad.shape, strategy)
                lr, wd = muon["learning_rate"], muon["weight_decay"]
            else:
                b1, b2 = adam["beta1"], adam["beta2"]
                exp_avg[k] = _lerp(exp_avg[k], grad, 1 - b1)
                exp_avg_sq[k] = _lerp(exp_avg_sq[k], grad * grad, 1 - b2)
                corrected1 = exp_avg[k] / (1 - b1**step)
                corrected2 = exp_avg_sq[k] / (1 - b2**step)
                update = corrected1 / (np.sqrt(corrected2) + adam["eps"])
                lr, wd = adam["learning_rate"], adam["weight_decay"]
            p[k] = p[k] * (1 - lr * wd)
            p[k] = p[k] - lr * update
    return p
