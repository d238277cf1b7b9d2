"""Muon on the 2-D parameters and AdamW on the others, against the independent reference of the
tests (Keller Jordan's `SingleDeviceMuonWithAuxAdam`, `_muon_reference.py`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from _muon_reference import reference_muon
from together_rl_emulator.base._spec import ADAM_DEFAULTS, MUON_DEFAULTS
from together_rl_emulator.compute._muon import (
    SCALING_MATCH_ADAM,
    SCALING_ORIGINAL,
    MuonParams,
    muon_step,
    newton_schulz,
)
from together_rl_emulator.compute._optim import AdamParams, AdamState

F64 = npt.NDArray[np.float64]
GRAD_SCALES = [0.02, 3.0, 0.02, 30.0, 1.0, 0.5]  # norms ~0.1 (never clipped) to ~100 (clipped)


def _problem(seed: int) -> tuple[dict[str, F64], list[dict[str, F64]]]:
    rng = np.random.default_rng(seed)
    # A tall and a wide matrix (the iteration transposes the tall one), and a vector.
    params = {"W": rng.normal(size=(6, 4)), "E": rng.normal(size=(3, 5)), "b": rng.normal(size=7)}
    grads = [{k: rng.normal(size=v.shape) * s for k, v in params.items()} for s in GRAD_SCALES]
    return params, grads


def _settings(strategy: str, **changes: float) -> MuonParams:
    muon = {**MUON_DEFAULTS, **{k: v for k, v in changes.items() if not k.startswith("adam_")}}
    adam = {**ADAM_DEFAULTS, **{k[5:]: v for k, v in changes.items() if k.startswith("adam_")}}
    return MuonParams(
        learning_rate=float(muon["learning_rate"]),
        momentum=float(muon["momentum"]),
        newton_schulz_steps=int(muon["newton_schulz_steps"]),
        weight_decay=float(muon["weight_decay"]),
        grad_clip_norm=float(muon["grad_clip_norm"]),
        adam=AdamParams(**adam),
        scaling_strategy=strategy,
    )


@pytest.mark.parametrize(
    "hp",
    [
        _settings(SCALING_MATCH_ADAM),
        _settings(SCALING_ORIGINAL),
        _settings(SCALING_ORIGINAL, learning_rate=0.05, momentum=0.9, weight_decay=0.1,
                  grad_clip_norm=0.0, adam_learning_rate=1e-2, adam_weight_decay=0.01),
        _settings(SCALING_MATCH_ADAM, newton_schulz_steps=2, grad_clip_norm=2.0,
                  adam_beta1=0.8, adam_beta2=0.99, adam_eps=1e-6),
    ],
)  # fmt: skip
def test_matches_keller_jordans_muon_with_aux_adam(hp: MuonParams) -> None:
    params, grads = _problem(seed=0)
    got = {k: v.copy() for k, v in params.items()}
    momentum: dict[str, F64] = {}
    adam = AdamState()
    for g in grads:
        muon_step(got, g, momentum, adam, hp)
    assert set(momentum) == {"W", "E"} and set(adam.m) == {"b"} and adam.step == len(grads)
    ref = reference_muon(
        params,
        grads,
        {k: getattr(hp, k) for k in MUON_DEFAULTS},
        hp.adam.__dict__,
        "original" if hp.scaling_strategy == SCALING_ORIGINAL else "match",
    )
    for k in params:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-6, atol=1e-12)
        assert not np.allclose(got[k], params[k])  # every parameter moved


def test_newton_schulz_brings_singular_values_near_one() -> None:
    """Five quintic iterations map every singular value into about [0.5, 1.5] (not exactly 1:
    the coefficients trade accuracy for speed, as Keller Jordan's docstring says)."""
    rng = np.random.default_rng(1)
    for shape in ((8, 3), (3, 8), (5, 5)):
        g = rng.normal(size=shape) * np.array([2.0**-i for i in range(shape[1])])
        singular = np.linalg.svd(newton_schulz(g, 5), compute_uv=False)
        assert singular.min() > 0.5 and singular.max() < 1.5, (shape, singular)
        # The same directions as the exact orthogonal factor U V^T.
        u, _, vt = np.linalg.svd(g, full_matrices=False)
        assert np.sum(newton_schulz(g, 5) * (u @ vt)) > 0.5 * min(shape)


def test_a_step_with_zero_gradients_still_decays_and_moves_by_momentum() -> None:
    params, grads = _problem(seed=2)
    hp = _settings(SCALING_MATCH_ADAM, weight_decay=0.1)
    p = {k: v.copy() for k, v in params.items()}
    momentum: dict[str, F64] = {}
    adam = AdamState()
    muon_step(p, grads[1], momentum, adam, hp)
    before = {k: v.copy() for k, v in p.items()}
    muon_step(p, {k: np.zeros_like(v) for k, v in p.items()}, momentum, adam, hp)
    assert all(not np.allclose(p[k], before[k]) for k in p)
