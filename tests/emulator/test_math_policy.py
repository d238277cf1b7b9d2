"""Checks of the policy model: exact normalisation, gradients, determinism."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from together_rl_emulator.compute._policy_model import (
    PolicyParams,
    backward,
    forward,
    init_policy,
    next_token_logprobs,
)

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]


def _random_params(vocab: int, seed: int, scale: float) -> PolicyParams:
    """Init shapes, but with larger values so the distribution is far from uniform."""
    p = init_policy(vocab, seed)
    rng = np.random.default_rng(seed + 1)
    return PolicyParams(
        b=rng.normal(0, scale, p.b.shape),
        W=rng.normal(0, scale, p.W.shape),
        E=rng.normal(0, scale, p.E.shape),
    )


def _batch(vocab: int, lengths: list[int], seed: int) -> tuple[list[I64], list[I64], list[F64]]:
    rng = np.random.default_rng(seed)
    xs = [rng.integers(0, vocab, n) for n in lengths]
    ys = [rng.integers(0, vocab, n) for n in lengths]
    gs = [rng.normal(size=n) for n in lengths]
    return xs, ys, gs


def _objective(p: PolicyParams, xs: list[I64], ys: list[I64], gs: list[F64]) -> float:
    return float(sum(np.dot(g, lp) for g, lp in zip(gs, forward(p, xs, ys).logprobs, strict=True)))


def _dense_logprobs(p: PolicyParams, x: I64, y: I64) -> tuple[F64, F64]:
    """Naive T x V softmax reference: (log p(y_t | x_t), full softmax rows)."""
    V, K, H = p.b.shape[0], p.E.shape[0], p.W.shape[0]
    logits = p.b[None, :] + (p.W[x % H] @ p.E.T)[:, np.arange(V) % K]
    mx = logits.max(axis=1, keepdims=True)
    logz = mx[:, 0] + np.log(np.exp(logits - mx).sum(axis=1))
    return logits[np.arange(len(y)), y] - logz, np.exp(logits - logz[:, None])


@pytest.mark.parametrize("vocab", [50, 3000])
def test_backward_matches_finite_differences(vocab: int) -> None:
    p = _random_params(vocab, seed=3, scale=0.5)
    xs, ys, gs = _batch(vocab, [7, 1, 19, 12], seed=4)
    grads = backward(p, forward(p, xs, ys), gs)
    rng = np.random.default_rng(5)
    eps = 1e-5
    for key, arr in p.to_arrays().items():
        flat = arr.reshape(-1)
        # Every entry for V=50; a random subset (plus the entries the batch touches) for V=3000.
        idx = (
            np.arange(flat.size) if flat.size <= 2000 else rng.choice(flat.size, 300, replace=False)
        )
        if key == "b" and vocab > 50:
            idx = np.concatenate([idx, np.concatenate(ys)])
        for i in idx:
            old = flat[i]
            flat[i] = old + eps
            up = _objective(p, xs, ys, gs)
            flat[i] = old - eps
            down = _objective(p, xs, ys, gs)
            flat[i] = old
            fd = (up - down) / (2 * eps)
            assert abs(grads[key].reshape(-1)[i] - fd) <= 1e-7 * max(1.0, abs(fd)), (key, i)


@pytest.mark.parametrize("vocab", [50, 3000])
def test_matches_dense_softmax_reference(vocab: int) -> None:
    p = _random_params(vocab, seed=8, scale=0.7)
    xs, ys, gs = _batch(vocab, [5, 33, 2], seed=9)
    fwd = forward(p, xs, ys)
    grads = backward(p, fwd, gs)
    db = np.zeros(vocab)
    for x, y, g, lp in zip(xs, ys, gs, fwd.logprobs, strict=True):
        ref, probs = _dense_logprobs(p, x, y)
        np.testing.assert_allclose(lp, ref, rtol=0, atol=1e-11)
        np.add.at(db, y, g)
        db -= g @ probs
    np.testing.assert_allclose(grads["b"], db, rtol=0, atol=1e-11)


@pytest.mark.parametrize("vocab", [1, 2, 7, 50, 1024, 3000, 151_936])
def test_next_token_distribution_is_normalised(vocab: int) -> None:
    for p in (init_policy(vocab, 0), _random_params(vocab, seed=1, scale=3.0)):
        for prev in {0, vocab // 2, vocab - 1}:
            lp = next_token_logprobs(p, prev)
            assert lp.shape == (vocab,) and lp.dtype == np.float64
            assert abs(float(np.exp(lp).sum()) - 1.0) <= 1e-9


@pytest.mark.parametrize("vocab", [50, 3000, 151_936])
def test_forward_agrees_with_next_token_logprobs(vocab: int) -> None:
    p = _random_params(vocab, seed=2, scale=0.3)
    xs, ys, _ = _batch(vocab, [6, 9], seed=3)
    fwd = forward(p, xs, ys)
    for x, y, lp in zip(xs, ys, fwd.logprobs, strict=True):
        expected = np.array([next_token_logprobs(p, int(a))[b] for a, b in zip(x, y, strict=True)])
        np.testing.assert_allclose(lp, expected, rtol=0, atol=1e-11)


def test_init_is_deterministic_and_near_uniform() -> None:
    a, b, c = init_policy(3000, 7), init_policy(3000, 7), init_policy(3000, 8)
    for k in ("b", "W", "E"):
        np.testing.assert_array_equal(a.to_arrays()[k], b.to_arrays()[k])
        assert not np.array_equal(a.to_arrays()[k], c.to_arrays()[k])
    assert a.b.shape == (3000,) and a.W.shape[0] == 1024 and a.E.shape[0] == 1024
    lp = next_token_logprobs(a, 5)
    assert np.all(np.abs(lp + np.log(3000)) < 0.5)
    assert np.ptp(lp) > 1e-3  # not exactly uniform


def test_params_round_trip_and_copy() -> None:
    p = init_policy(100, 1)
    q = PolicyParams.from_arrays({k: v.astype(np.float32) for k, v in p.to_arrays().items()})
    assert q.b.dtype == np.float64 and q.W.shape == p.W.shape
    c = p.copy()
    c.b[0] += 1.0
    assert p.b[0] != c.b[0]
    p.to_arrays()["b"][1] = 42.0  # to_arrays shares memory with the params
    assert p.b[1] == 42.0
    with pytest.raises(ValueError):
        PolicyParams.from_arrays({"b": p.b, "W": p.W, "E": np.zeros((3, 5))})


def test_empty_batch_and_bad_tokens() -> None:
    p = init_policy(20, 0)
    fwd = forward(p, [np.zeros(0, np.int64)], [np.zeros(0, np.int64)])
    assert fwd.logprobs[0].shape == (0,)
    grads = backward(p, fwd, [np.zeros(0)])
    assert all(not g.any() for g in grads.values())
    assert forward(p, [], []).logprobs == []
    with pytest.raises(ValueError):
        forward(p, [np.array([0, 20])], [np.array([1, 2])])
    with pytest.raises(ValueError):
        forward(p, [np.array([0, 1])], [np.array([1, -1])])
    with pytest.raises(ValueError):
        forward(p, [np.array([0, 1])], [np.array([1])])
