"""AdamW with global-norm clipping, against the independent reference of the tests."""

from __future__ import annotations

import dataclasses
import io
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from _adamw_reference import reference_adamw
from together_rl_emulator.base._spec import ADAM_DEFAULTS
from together_rl_emulator.compute._optim import AdamParams, AdamState, adamw_step

F64 = npt.NDArray[np.float64]


def _problem(
    seed: int, steps: int, grad_scale: list[float]
) -> tuple[dict[str, F64], list[dict[str, F64]]]:
    rng = np.random.default_rng(seed)
    params = {"a": rng.normal(size=(3, 4)), "b": rng.normal(size=7)}
    grads = [
        {k: rng.normal(size=v.shape) * grad_scale[t] for k, v in params.items()}
        for t in range(steps)
    ]
    return params, grads


def _run(params: dict[str, F64], grads: list[dict[str, F64]], hp: AdamParams) -> dict[str, F64]:
    params = {k: v.copy() for k, v in params.items()}
    state = AdamState()
    for g in grads:
        adamw_step(params, g, state, hp)
    assert state.step == len(grads)
    return params


def _adam(**changes: float) -> AdamParams:
    """The spec's default hyper-parameters with `changes`."""
    return AdamParams(**{**ADAM_DEFAULTS, **changes})


@pytest.mark.parametrize(
    "hp",
    [
        _adam(),
        _adam(learning_rate=1e-2, weight_decay=0.1, grad_clip_norm=2.0),
        _adam(learning_rate=3e-3, beta1=0.8, beta2=0.99, eps=1e-6, grad_clip_norm=0.0),
        _adam(learning_rate=3e-3, grad_clip_norm=-1.0, weight_decay=0.01),
    ],
)
def test_matches_naive_reference(hp: AdamParams) -> None:
    # Gradient norms around 0.1 (never clipped) and around 10 to 100 (clipped when enabled).
    params, grads = _problem(seed=0, steps=6, grad_scale=[0.02, 3.0, 0.02, 30.0, 1.0, 0.5])
    got = _run(params, grads, hp)
    ref = reference_adamw(params, list(grads), dataclasses.asdict(hp))
    for k in params:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-12, atol=1e-14)


def test_clipping_changes_the_update_only_above_the_threshold() -> None:
    params, grads = _problem(seed=1, steps=3, grad_scale=[10.0, 10.0, 10.0])
    # With clipping, the first step moves each entry by at most lr (Adam normalises), and the state
    # holds the clipped gradients: m after one step = (1 - beta1) * g * clip / |g|.
    hp = _adam(learning_rate=0.1, grad_clip_norm=1.0)
    p = {k: v.copy() for k, v in params.items()}
    state = AdamState()
    adamw_step(p, grads[0], state, hp)
    norm = np.sqrt(sum(float((g**2).sum()) for g in grads[0].values()))
    assert norm > 1.0
    for k in params:
        np.testing.assert_allclose(state.m[k], 0.1 * grads[0][k] / (norm + 1e-6), rtol=1e-12)
    unclipped = _run(params, grads, _adam(learning_rate=0.1, grad_clip_norm=1e9))
    clipped = _run(params, grads, hp)
    assert any(not np.allclose(unclipped[k], clipped[k]) for k in params)


def test_state_round_trips_through_npz() -> None:
    params, grads = _problem(seed=2, steps=4, grad_scale=[1.0] * 4)
    hp = _adam(learning_rate=1e-2, weight_decay=0.05)
    straight = _run(params, grads, hp)

    p = {k: v.copy() for k, v in params.items()}
    state = AdamState()
    for g in grads[:2]:
        adamw_step(p, g, state, hp)
    buf = io.BytesIO()
    arrays: dict[str, Any] = state.to_arrays()
    np.savez(buf, **arrays)
    buf.seek(0)
    with np.load(buf) as z:
        restored = AdamState.from_arrays(dict(z))
    assert restored.step == 2 and set(restored.m) == set(restored.v) == {"a", "b"}
    for g in grads[2:]:
        adamw_step(p, g, restored, hp)
    for k in params:
        np.testing.assert_array_equal(p[k], straight[k])


def test_key_mismatch_is_rejected() -> None:
    with pytest.raises(ValueError):
        adamw_step({"a": np.zeros(2)}, {"b": np.zeros(2)}, AdamState(), _adam())
