"""The mixture-of-experts policy: routing changes log-probs, replayed routing is honoured,
gradients match finite differences, and sampling agrees with the forward pass."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from together_rl_emulator.compute._moe_policy import ROUTED_PER_TOKEN
from together_rl_emulator.compute._policy_model import (
    PolicyParams,
    backward,
    forward,
    init_policy,
    next_token_logprobs,
    routed_selections,
)
from together_rl_emulator.compute._sampling import sample_sequences

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
VOCAB = 300
INPUTS = [np.array([5, 17, 200, 42, 7], dtype=np.int64), np.array([9, 9, 1], dtype=np.int64)]
TARGETS = [np.array([17, 200, 42, 7, 3], dtype=np.int64), np.array([9, 1, 250], dtype=np.int64)]


def _moe(seed: int = 0) -> PolicyParams:
    return init_policy(VOCAB, seed, num_experts=128)


def test_an_moe_policy_has_experts_a_dense_one_has_none() -> None:
    moe, dense = _moe(), init_policy(VOCAB, 0)
    assert set(moe.to_arrays()) == {"b", "W", "E", "R", "U"}
    assert set(dense.to_arrays()) == {"b", "W", "E"}
    np.testing.assert_array_equal(moe.W, dense.W)  # the dense arrays drawn first, the same
    assert PolicyParams.from_arrays(moe.to_arrays()).moe is not None


def test_the_experts_a_token_goes_to_change_its_logprobs() -> None:
    params = _moe()
    own = forward(params, INPUTS, TARGETS)
    routes = [routed_selections(params, x) for x in INPUTS]
    for sel in routes:
        assert sel.shape[1] == ROUTED_PER_TOKEN
    same = forward(params, INPUTS, TARGETS, routes)
    for a, b in zip(own.logprobs, same.logprobs, strict=True):
        np.testing.assert_array_equal(a, b)
    other = [np.where(r == 0, 1, 0)[:, :1] + np.array([[2, 3]]) for r in routes]  # experts 2-4
    moved = forward(params, INPUTS, TARGETS, other)
    assert not np.allclose(moved.logprobs[0], own.logprobs[0])
    # A route covering only the first tokens leaves the router's choice for the rest.
    partial = forward(params, INPUTS, TARGETS, [other[0][:2], None])
    np.testing.assert_array_equal(partial.logprobs[0][2:], own.logprobs[0][2:])
    np.testing.assert_array_equal(partial.logprobs[1], own.logprobs[1])
    assert not np.allclose(partial.logprobs[0][:2], own.logprobs[0][:2])


def test_moe_logprobs_are_normalised() -> None:
    params = _moe()
    for prev in (0, 17, 299):
        assert abs(float(np.exp(next_token_logprobs(params, prev)).sum()) - 1.0) < 1e-12


def test_moe_gradients_match_finite_differences() -> None:
    params = _moe(3)
    routes = [None, np.array([[0, 5], [1, 7]], dtype=np.int64)]
    rng = np.random.default_rng(1)
    g = [rng.normal(size=len(t)) for t in TARGETS]

    def loss(p: PolicyParams) -> float:
        fwd = forward(p, INPUTS, TARGETS, routes)
        return float(sum(float(np.dot(gi, lp)) for gi, lp in zip(g, fwd.logprobs, strict=True)))

    grads = backward(params, forward(params, INPUTS, TARGETS, routes), g)
    assert set(grads) == {"b", "W", "E", "R", "U"}
    for key, a in params.to_arrays().items():
        for index in list(zip(*np.nonzero(np.abs(grads[key]) > 1e-6), strict=True))[:6]:
            arrays = {k: v.copy() for k, v in params.to_arrays().items()}
            arrays[key][index] += 1e-6
            up = loss(PolicyParams.from_arrays(arrays))
            arrays[key][index] -= 2e-6
            down = loss(PolicyParams.from_arrays(arrays))
            numeric = (up - down) / 2e-6
            assert abs(numeric - grads[key][index]) < 1e-6 + 1e-5 * abs(numeric), (key, index)
        assert grads[key].shape == a.shape


def test_sampled_logprobs_equal_the_forward_pass_with_the_router() -> None:
    params = _moe()
    prompt = np.array([17, 4, 90], dtype=np.int64)
    for temperature in (1.0, 0.7, 0.0):
        for s in sample_sequences(params, prompt, num_samples=4, max_tokens=12, seed=2,
                                  temperature=temperature):  # fmt: skip
            full = np.concatenate([prompt, s.tokens])
            lp = forward(params, [full[:-1]], [full[1:]]).logprobs[0][len(prompt) - 1 :]
            np.testing.assert_allclose(s.logprobs, lp, rtol=0, atol=1e-9)
