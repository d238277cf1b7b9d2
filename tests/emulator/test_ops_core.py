"""The computational core of optim-step, sample, weights-sync and custom-forward-backward."""

from __future__ import annotations

import io
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from _adamw_reference import reference_adamw
from together_rl_emulator.base._spec import WEIGHT_SYNC_TYPES
from together_rl_emulator.compute._losses import CE, GRPO, compute_loss
from together_rl_emulator.compute._policy_model import (
    PolicyParams,
    backward,
    forward,
    init_policy,
    next_token_logprobs,
)
from together_rl_emulator.compute._prompt_logprobs import prompt_logprobs, topk_prompt_logprobs
from together_rl_emulator.compute._sampler import SHARED_SAMPLERS, Sampler
from together_rl_emulator.compute._sampling import (
    STOP_REASON_LENGTH,
    STOP_REASON_STOP,
    _draw_one,
    sample_prompts,
    sample_sequences,
)
from together_rl_emulator.compute._trainer import (
    InvalidParam,
    TrainerState,
    accumulate,
    custom_forward_backward,
    optim_step,
    parse_adam_params,
    weights_sync,
)

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
VOCAB = 1024


def _random_grads(state: TrainerState, rng: np.random.Generator, scale: float) -> dict[str, F64]:
    return {k: rng.normal(0.0, scale, a.shape) for k, a in state.params.to_arrays().items()}


def _peaked(vocab: int, seed: int, scale: float = 1.5) -> PolicyParams:
    """Init shapes with larger values: a distribution far from uniform, so sampling bugs show."""
    p = init_policy(vocab, seed)
    rng = np.random.default_rng(seed + 7)
    return PolicyParams(*(rng.normal(0, scale, a.shape) for a in (p.b, p.W, p.E)))


# ------------------------------------------------------------------ optim-step


@pytest.mark.parametrize(
    "hp",
    [
        {"learning_rate": 0.01, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8, "weight_decay": 0.0,
         "grad_clip_norm": 1.0},
        {"learning_rate": 0.003, "beta1": 0.8, "beta2": 0.999, "eps": 1e-6, "weight_decay": 0.1,
         "grad_clip_norm": 0.0},
        {"learning_rate": 0.05, "beta1": 0.0, "beta2": 0.5, "eps": 1e-3, "weight_decay": 0.01,
         "grad_clip_norm": 3.0},
    ],
)  # fmt: skip
def test_optim_step_matches_reference_adamw(hp: dict[str, float]) -> None:
    state = TrainerState.initial(VOCAB, seed=3)
    start = {k: a.copy() for k, a in state.params.to_arrays().items()}
    rng = np.random.default_rng(0)
    per_step: list[dict[str, F64]] = []
    for step, (passes, scale) in enumerate([(1, 0.1), (3, 5.0), (2, 0.01), (1, 1.0)], start=1):
        total = {k: np.zeros_like(a) for k, a in start.items()}
        for _ in range(passes):
            g = _random_grads(state, rng, scale)
            accumulate(state, g)
            for k in total:
                total[k] += g[k]
        per_step.append(total)
        assert state.accumulated_passes == passes
        assert optim_step(state, hp) == step
    expected = reference_adamw(start, per_step, hp)
    for k, a in state.params.to_arrays().items():
        np.testing.assert_allclose(a, expected[k], rtol=1e-10, atol=1e-12)
    assert state.step == state.adam.step == 4


def test_unset_fields_take_the_defaults_and_clip_defaults_to_one() -> None:
    defaults = {"learning_rate": 1e-4, "beta1": 0.9, "beta2": 0.95, "eps": 1e-8,
                "weight_decay": 0.0, "grad_clip_norm": 1.0}  # fmt: skip
    for given in (None, {}, {"grad_clip_norm": None}):
        state = TrainerState.initial(VOCAB, seed=1)
        start = {k: a.copy() for k, a in state.params.to_arrays().items()}
        grads = _random_grads(state, np.random.default_rng(2), 10.0)  # norm >> 1: clipped
        accumulate(state, grads)
        optim_step(state, given)
        expected = reference_adamw(start, [grads], defaults)
        for k, a in state.params.to_arrays().items():
            np.testing.assert_allclose(a, expected[k], rtol=1e-10, atol=1e-12)


def _clipped_norm(clip: float | None, scale: float) -> float:
    """Global norm of the gradient the optimizer used, read back from its first moment."""
    state = TrainerState.initial(VOCAB, seed=4)
    accumulate(state, _random_grads(state, np.random.default_rng(5), scale))
    optim_step(state, {"beta1": 0.5} if clip is None else {"beta1": 0.5, "grad_clip_norm": clip})
    return math.sqrt(sum(float((m**2).sum()) for m in state.adam.m.values())) / 0.5


def test_clipping_by_global_norm() -> None:
    raw = _clipped_norm(0.0, 1.0)  # 0 disables clipping
    assert raw > 10
    assert _clipped_norm(2.5, 1.0) == pytest.approx(2.5, rel=1e-6)
    assert _clipped_norm(None, 1.0) == pytest.approx(1.0, rel=1e-6)  # session default
    assert _clipped_norm(10 * raw, 1.0) == pytest.approx(raw, rel=1e-12)  # under the bound
    assert _clipped_norm(0.0, 3.0) == pytest.approx(3 * raw, rel=1e-12)


def test_optim_step_clears_the_accumulated_gradients() -> None:
    state = TrainerState.initial(VOCAB, seed=2)
    accumulate(state, _random_grads(state, np.random.default_rng(1), 1.0))
    accumulate(state, _random_grads(state, np.random.default_rng(2), 1.0))
    assert state.accumulated_passes == 2
    optim_step(state, {"learning_rate": 0.01})
    assert state.accumulated_passes == 0
    assert all(not g.any() for g in state.grads.values())
    # The next step sees only what was accumulated after the first one: here, nothing, so the
    # update comes from the moments alone (and equals the reference with a zero gradient).
    before = {k: a.copy() for k, a in state.params.to_arrays().items()}
    m_before = {k: a.copy() for k, a in state.adam.m.items()}
    optim_step(state, {"learning_rate": 0.01})
    for k, a in state.adam.m.items():
        np.testing.assert_array_equal(a, 0.9 * m_before[k])
    assert any(not np.array_equal(a, before[k]) for k, a in state.params.to_arrays().items())


@pytest.mark.parametrize(
    ("adam_params", "param", "reason"),
    [
        ({"learning_rate": -0.1}, "adam_params.learning_rate", ">= 0"),
        ({"beta1": 1.0}, "adam_params.beta1", "< 1"),
        ({"beta2": -0.5}, "adam_params.beta2", ">= 0"),
        ({"eps": 0}, "adam_params.eps", "> 0"),
        ({"weight_decay": -1}, "adam_params.weight_decay", ">= 0"),
        ({"grad_clip_norm": -1.0}, "adam_params.grad_clip_norm", ">= 0"),
        ({"learning_rate": float("nan")}, "adam_params.learning_rate", "finite"),
        ({"learning_rate": "0.1"}, "adam_params.learning_rate", "number"),
        ({"beta1": True}, "adam_params.beta1", "number"),
        ({"momentum": 0.9}, "adam_params.momentum", "unknown field"),
        ([0.1], "adam_params", "object"),
    ],
)
def test_invalid_adam_params_name_the_field_and_change_nothing(
    adam_params: Any, param: str, reason: str
) -> None:
    state = TrainerState.initial(VOCAB, seed=0)
    accumulate(state, _random_grads(state, np.random.default_rng(0), 1.0))
    snapshot = {k: a.copy() for k, a in state.to_arrays().items()}
    with pytest.raises(InvalidParam) as raised:
        optim_step(state, adam_params)
    assert raised.value.param == param
    assert reason in raised.value.reason
    assert str(raised.value).startswith(param + ": ")
    for k, a in state.to_arrays().items():
        np.testing.assert_array_equal(a, snapshot[k])


def test_parse_adam_params_accepts_integers_and_bounds() -> None:
    hp = parse_adam_params({"learning_rate": 1, "beta1": 0, "grad_clip_norm": 0})
    assert (hp.learning_rate, hp.beta1, hp.grad_clip_norm, hp.beta2) == (1.0, 0.0, 0.0, 0.95)


# ------------------------------------------------------------------ weights-sync and sampling


def test_weights_sync_publishes_a_copy_and_bumps_the_version() -> None:
    state = TrainerState.initial(VOCAB, seed=0)
    for expected, kind in enumerate(WEIGHT_SYNC_TYPES, start=1):
        accumulate(state, _random_grads(state, np.random.default_rng(expected), 1.0))
        optim_step(state, {"learning_rate": 0.1})
        assert not np.array_equal(state.sampler_params.b, state.params.b)
        assert weights_sync(state, kind) == expected
        for k, a in state.sampler_params.to_arrays().items():
            np.testing.assert_array_equal(a, state.params.to_arrays()[k])
            assert a is not state.params.to_arrays()[k]
    with pytest.raises(InvalidParam) as raised:
        weights_sync(state, "WEIGHT_SYNC_TYPE_UNSPECIFIED")
    assert raised.value.param == "weight_sync_type"
    assert state.weights_version == len(WEIGHT_SYNC_TYPES)


def _sample(params: PolicyParams, seed: int | None, **kw: Any) -> list[tuple[list[int], str]]:
    kw = {"num_samples": 6, "max_tokens": 12, **kw}
    return [
        (s.tokens.tolist(), s.stop_reason)
        for s in sample_sequences(params, np.array([5, 9, 11]), seed=seed, **kw)
    ]


@pytest.mark.parametrize(
    "kw",
    [{}, {"temperature": 0.7}, {"top_k": 5}, {"top_p": 0.6}, {"temperature": 1.3, "top_k": 50}],
)
def test_sampling_is_reproducible_for_a_seed(kw: dict[str, Any]) -> None:
    params = _peaked(VOCAB, 1, scale=0.5)
    first = _sample(params, 123, **kw)
    assert _sample(params, 123, **kw) == first
    assert _sample(params, 124, **kw) != first
    assert len({tuple(t) for t, _ in first}) > 1  # the samples of one call differ
    # seed None: fresh randomness (two draws of 6 x 12 tokens coincide with negligible chance)
    assert _sample(params, None, **kw) != _sample(params, None, **kw)


@pytest.mark.parametrize("vocab", [VOCAB, 3000])
@pytest.mark.parametrize("kw", [{}, {"temperature": 0.0}, {"temperature": 0.7}, {"top_k": 5}])
def test_a_shared_prepared_sampler_draws_what_one_per_prompt_draws(
    vocab: int, kw: dict[str, Any]
) -> None:
    """A request's prompts share one `Sampler`, its contexts computed all at once when the
    request draws enough tokens (`prepare`): the same tokens as a sampler per prompt, and the
    log-probs within rounding (one matrix product in place of a product per context)."""
    params = _peaked(vocab, 3, scale=0.5)
    settings = {"temperature": 1.0, "top_k": 0, "top_p": 1.0, **kw}
    prompts = [np.array([5, 9, 11 + n]) for n in range(4)]
    shared = Sampler(params, settings["temperature"], settings["top_k"], settings["top_p"])
    shared.prepare(4 * 6 * 64)
    if not shared.truncated:
        assert len(shared.contexts) == params.W.shape[0]  # every bucket, computed at once
    for n, prompt in enumerate(prompts):
        alone = sample_sequences(params, prompt, num_samples=6, max_tokens=64, seed=n, **kw)
        together = sample_sequences(
            params, prompt, num_samples=6, max_tokens=64, seed=n, sampler=shared, **kw
        )
        for a, b in zip(alone, together, strict=True):
            assert a.tokens.tolist() == b.tokens.tolist() and a.stop_reason == b.stop_reason
            np.testing.assert_allclose(a.logprobs, b.logprobs, rtol=0, atol=1e-9)


@pytest.mark.parametrize("vocab", [VOCAB, 3000])
@pytest.mark.parametrize("temperature", [1.0, 0.7])
def test_drawing_every_sequence_at_once_draws_what_token_by_token_draws(
    vocab: int, temperature: float
) -> None:
    """`sample_prompts` with every context bucket computed draws all sequences a step at a
    time: the same tokens, stop reasons and log-probs, bit for bit, as one sequence token after
    token from the same uniforms (each prompt's seed, `num_samples` blocks of `max_tokens` x 2),
    stop tokens included."""
    params = _peaked(vocab, 3, scale=0.5)
    sampler = Sampler(params, temperature, 0, 1.0)
    sampler.prepare_all()
    assert sampler.draws_together()
    prompts, seeds = [[5, 9, 11 + n] for n in range(5)], [40 + n for n in range(5)]
    free = sample_prompts(params, prompts, seeds=seeds, num_samples=4, max_tokens=30,
                          temperature=temperature, sampler=sampler)  # fmt: skip
    stops = {int(free[0][0].tokens[10]), int(free[1][2].tokens[3])}  # some sequences stop
    together = sample_prompts(
        params, prompts, seeds=seeds, num_samples=4, max_tokens=30, temperature=temperature,
        stop_token_ids=stops, sampler=sampler,
    )  # fmt: skip
    reasons = set()
    for prompt, seed, sequences in zip(prompts, seeds, together, strict=True):
        rng = np.random.default_rng(seed)
        for seq in sequences:
            alone = _draw_one(sampler, prompt[-1], rng.random((30, 2)), frozenset(stops))
            assert seq.tokens.tolist() == alone.tokens.tolist()
            assert seq.stop_reason == alone.stop_reason
            assert np.array_equal(seq.logprobs, alone.logprobs)
            reasons.add(seq.stop_reason)
    assert reasons == {STOP_REASON_STOP, STOP_REASON_LENGTH}
    assert not Sampler(params, 0.0, 0, 1.0).draws_together()  # greedy: token by token


def test_samples_between_weights_syncs_share_one_sampler() -> None:
    """`Sampler.shared`: the last sampler is reused for the same parameters object and
    settings (its set-up and contexts paid once), never for other parameters or settings, and
    a reused one draws what a fresh one draws, whichever call filled its contexts first."""
    params = _peaked(VOCAB, 3, scale=0.5)
    first = Sampler.shared(params, 1.0, 0, 1.0)
    sample_sequences(params, np.array([7]), num_samples=1, max_tokens=3, seed=0, sampler=first)
    assert 0 < len(first.contexts) < params.W.shape[0]  # a few buckets, one by one
    assert Sampler.shared(params, 1.0, 0, 1.0) is first
    first.prepare(4 * 6 * 64)  # then the rest, all at once
    assert len(first.contexts) == params.W.shape[0]
    for prompt in ([5, 9, 11], [7]):
        fresh = sample_sequences(params, np.array(prompt), num_samples=6, max_tokens=64, seed=3)
        reused = sample_sequences(
            params, np.array(prompt), num_samples=6, max_tokens=64, seed=3, sampler=first
        )
        assert [s.tokens.tolist() for s in fresh] == [s.tokens.tolist() for s in reused]
    assert Sampler.shared(params, 0.7, 0, 1.0) is not first
    assert Sampler.shared(params.copy(), 0.7, 0, 1.0).params is not params


def test_sessions_sampling_in_turn_keep_their_shared_samplers() -> None:
    """`Sampler.shared` keeps `SHARED_SAMPLERS` samplers, the least recently used dropped
    first: sessions that sample in turn do not evict each other's."""
    sessions = [_peaked(VOCAB, n) for n in range(SHARED_SAMPLERS + 1)]
    kept = [Sampler.shared(params, 1.0, 0, 1.0) for params in sessions[:SHARED_SAMPLERS]]
    for _ in range(2):
        for params, sampler in zip(sessions, kept, strict=False):
            assert Sampler.shared(params, 1.0, 0, 1.0) is sampler
    Sampler.shared(sessions[-1], 1.0, 0, 1.0)  # one more: the least recently used goes
    assert Sampler.shared(sessions[0], 1.0, 0, 1.0) is not kept[0]


def test_a_sampler_holds_its_buckets_once() -> None:
    """Every bucket computed, the contexts are views of the stacked (H, K) rows that drawing
    all sequences at once reads, whether `prepare` computed them or they came one by one."""
    params = _peaked(VOCAB, 3, scale=0.5)
    prepared, one_by_one = Sampler(params, 1.0, 0, 1.0), Sampler(params, 1.0, 0, 1.0)
    prepared.prepare_all()
    for j in range(params.W.shape[0]):
        one_by_one.context(j)
    for sampler in (prepared, one_by_one):
        cdf, a, _ = sampler.stacked()
        assert np.shares_memory(sampler.contexts[1].a, a)
        assert np.shares_memory(sampler.contexts[1].cluster_cdf, cdf)


def test_a_sampler_of_other_parameters_is_refused() -> None:
    params, other = _peaked(VOCAB, 1), _peaked(VOCAB, 2)
    with pytest.raises(ValueError, match="other parameters"):
        sample_sequences(
            params, np.array([1]), num_samples=1, max_tokens=1, seed=0,
            sampler=Sampler(other, 1.0, 0, 1.0),
        )  # fmt: skip


def _forward_logprobs(params: PolicyParams, prompt: I64, completion: I64) -> F64:
    full = np.concatenate([prompt, completion])
    lp: F64 = forward(params, [full[:-1]], [full[1:]]).logprobs[0][len(prompt) - 1 :]
    return lp


@pytest.mark.parametrize("vocab", [VOCAB, 3000])  # 3000: clusters of 2-3 tokens, padded grid
@pytest.mark.parametrize(
    "kw", [{}, {"temperature": 0.0}, {"temperature": 2.0, "top_p": 0.9}, {"top_k": 3}]
)
def test_sample_logprobs_equal_forward_logprobs(vocab: int, kw: dict[str, Any]) -> None:
    params = _peaked(vocab, 2)
    prompt = np.array([17, 4, 900], dtype=np.int64)
    for s in sample_sequences(params, prompt, num_samples=5, max_tokens=20, seed=9, **kw):
        assert s.logprobs.dtype == np.float64 and s.logprobs.shape == s.tokens.shape
        np.testing.assert_allclose(
            s.logprobs, _forward_logprobs(params, prompt, s.tokens), rtol=0, atol=1e-9
        )


def _empirical(params: PolicyParams, prev: int, n: int, **kw: Any) -> F64:
    seqs = sample_sequences(params, np.array([prev]), num_samples=n, max_tokens=1, seed=0, **kw)
    counts = np.bincount([int(s.tokens[0]) for s in seqs], minlength=params.vocab_size)
    freq: F64 = counts / n
    return freq


def _assert_matches(freq: F64, expected: F64, n: int) -> None:
    sigma = np.sqrt(expected * (1 - expected) / n) + 1e-12
    assert np.all(np.abs(freq - expected) <= 5 * sigma + 1e-9), np.abs(freq - expected).max()
    assert not freq[expected == 0].any()


def _small_policy() -> PolicyParams:
    """V = 10 tokens in K = 4 clusters (grid padded), H = 3 buckets: exercises the two stages."""
    rng = np.random.default_rng(11)
    return PolicyParams.from_arrays(
        {"b": rng.normal(0, 1, 10), "W": rng.normal(0, 1, (3, 4)), "E": rng.normal(0, 1, (4, 4))}
    )


def _reference_kept(params: PolicyParams, prev: int, temperature: float, top_k: int,
                    top_p: float) -> F64:  # fmt: skip
    """The truncated sampling distribution, by brute force: a full stable argsort of the logits
    (ties by token id), top-k, then the shortest prefix reaching top_p of the kept mass."""
    logp = next_token_logprobs(params, prev)
    order = np.argsort(-logp, kind="stable")
    if top_k:
        order = order[:top_k]
    weights = np.exp((logp[order] - logp[order[0]]) / temperature)
    keep = weights.size
    if top_p < 1:
        keep = int(np.searchsorted(np.cumsum(weights), top_p * weights.sum())) + 1
    expected = np.zeros(params.vocab_size)
    expected[order[:keep]] = weights[:keep] / weights[:keep].sum()
    return expected


def test_sampling_distribution_temperature_top_k_top_p() -> None:
    params, n, prev = _small_policy(), 40_000, 7
    logp = next_token_logprobs(params, prev)
    p = np.exp(logp)
    _assert_matches(_empirical(params, prev, n), p, n)

    pt = np.exp(logp / 0.5)
    _assert_matches(_empirical(params, prev, n, temperature=0.5), pt / pt.sum(), n)

    order = np.argsort(-logp, kind="stable")
    topk = np.zeros_like(p)
    topk[order[:3]] = p[order[:3]]
    _assert_matches(_empirical(params, prev, n, top_k=3), topk / topk.sum(), n)

    keep = int(np.searchsorted(np.cumsum(p[order]), 0.7)) + 1  # smallest prefix reaching 0.7
    topp = np.zeros_like(p)
    topp[order[:keep]] = p[order[:keep]]
    _assert_matches(_empirical(params, prev, n, top_p=0.7), topp / topp.sum(), n)

    both = {"temperature": 0.6, "top_k": 6, "top_p": 0.8}
    expected = _reference_kept(params, prev, 0.6, 6, 0.8)
    assert 1 < np.count_nonzero(expected) < 6  # both cuts bite
    _assert_matches(_empirical(params, prev, n, **both), expected, n)

    greedy = _empirical(params, prev, 50, temperature=0.0)
    assert greedy[int(np.argmax(logp))] == 1.0


def _sampler_kept(sampler: Sampler, prev: int) -> tuple[I64, F64]:
    """(the kept token ids, ascending; the distribution drawn from) of a truncated `Sampler`.

    A kept token can have probability 0 in the draw when its weight vanishes next to the
    cumulative weight before it (below about 1e-16 of it), as with any cumulative-sum draw.
    """
    ctx = sampler.context(prev)
    assert ctx.kept is not None and ctx.cluster_cdf is not None
    trunc = sampler.truncation
    dist = np.zeros(sampler.V)
    cluster_mass = np.diff(ctx.cluster_cdf, prepend=0.0)
    kept = []
    for k in np.flatnonzero(ctx.kept):
        within = trunc.cum[k, 1 : ctx.kept[k] + 1]
        share = np.diff(within, prepend=0.0) / within[-1]
        dist[trunc.tokens[k, : ctx.kept[k]]] = cluster_mass[k] * share
        kept.append(trunc.tokens[k, : ctx.kept[k]])
    return np.sort(np.concatenate(kept)), dist / dist.sum()


@pytest.mark.parametrize(
    "vocab",
    [10, VOCAB, 3000, 20_000],  # 10: padded grid; 3000: clusters of 2-3; 20k: of ~20
)
@pytest.mark.parametrize(
    ("temperature", "top_k", "top_p"),
    [(1.0, 1, 1.0), (1.0, 7, 1.0), (0.7, 600, 1.0), (1.0, 0, 0.9), (2.0, 0, 0.99), (0.3, 0, 0.5),
     (1.0, 0, 1e-9), (0.8, 50, 0.9), (1.5, 2500, 0.3), (1.0, 9, 0.999)],
)  # fmt: skip
def test_truncated_sets_equal_a_full_sort(
    vocab: int, temperature: float, top_k: int, top_p: float
) -> None:
    """The threshold search keeps exactly the tokens (and weights) of the brute-force reference,
    for flat (init) and peaked policies, many contexts each."""
    for params in (init_policy(vocab, 4), _peaked(vocab, 4)):
        sampler = Sampler(params, temperature, top_k, top_p)
        if not sampler.truncated:  # top_k >= vocab and top_p = 1: nothing to truncate
            continue
        for prev in range(0, min(vocab, 1024), max(1, min(vocab, 1024) // 7)):
            expected = _reference_kept(params, prev, temperature, sampler.top_k, top_p)
            kept, got = _sampler_kept(sampler, prev)
            np.testing.assert_array_equal(kept, np.flatnonzero(expected))
            np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)


def test_top_k_ties_keep_the_lowest_token_ids() -> None:
    """Equal logits (equal b, clusters 0 and 1 with equal embeddings): the first k of the ranking
    by logit, ties by increasing token id, are kept, exactly k of them."""
    vocab, k_clusters = 40, 4
    rng = np.random.default_rng(3)
    e = rng.normal(0, 1, (k_clusters, 3))
    e[1] = e[0]
    b = np.zeros(vocab)
    b[[2, 6]] = 5.0  # the two best tokens, in cluster 2; then clusters 0 and 1 tie (if on top)
    params = PolicyParams.from_arrays({"b": b, "W": rng.normal(0, 1, (5, 3)), "E": e})
    for prev in range(5):
        logp = next_token_logprobs(params, prev)
        for top_k in (1, 2, 3, 9, 17, 33):
            expected = _reference_kept(params, prev, 1.0, top_k, 1.0)
            kept, _ = _sampler_kept(Sampler(params, 1.0, top_k, 1.0), prev)
            assert kept.size == top_k
            np.testing.assert_array_equal(kept, np.flatnonzero(expected))
        assert np.unique(logp).size <= 4  # 4 distinct logits for 40 tokens: ties at most cuts


def test_stop_tokens_and_length() -> None:
    params = _peaked(VOCAB, 3, scale=0.5)
    free = sample_sequences(params, np.array([1]), num_samples=8, max_tokens=30, seed=4)
    assert all(s.stop_reason == "STOP_REASON_LENGTH" and s.tokens.size == 30 for s in free)
    stop = int(free[0].tokens[10])
    stopped = sample_sequences(
        params, np.array([1]), num_samples=8, max_tokens=30, seed=4, stop_token_ids={stop}
    )
    for f, s in zip(free, stopped, strict=True):
        hits = np.flatnonzero(f.tokens == stop)
        if hits.size:  # same draws: the stopped sequence is the free one cut after the stop token
            assert s.stop_reason == "STOP_REASON_STOP"
            assert s.tokens.tolist() == f.tokens[: hits[0] + 1].tolist()
        else:
            assert s.stop_reason == "STOP_REASON_LENGTH"
            assert s.tokens.tolist() == f.tokens.tolist()
    assert stopped[0].stop_reason == "STOP_REASON_STOP"


def test_samples_come_from_the_last_synced_weights() -> None:
    state = TrainerState.initial(VOCAB, seed=5)
    prompt = np.array([3, 4], dtype=np.int64)

    def draw() -> list[tuple[list[int], list[float]]]:
        return [
            (s.tokens.tolist(), s.logprobs.tolist())
            for s in sample_sequences(
                state.sampler_params, prompt, num_samples=4, max_tokens=8, seed=77
            )
        ]

    before = draw()
    accumulate(state, _random_grads(state, np.random.default_rng(0), 1.0))
    optim_step(state, {"learning_rate": 0.5})
    assert draw() == before  # optim-step alone changes nothing the sampler sees
    weights_sync(state, "WEIGHT_SYNC_TYPE_SYNCHRONOUS")
    after = draw()
    assert after != before
    # ... and the new samples' logprobs are those of the trainer's (now published) weights
    for tokens, lps in after:
        np.testing.assert_allclose(
            lps, _forward_logprobs(state.params, prompt, np.array(tokens)), rtol=0, atol=1e-9
        )


def test_prompt_logprobs_and_topk() -> None:
    params = _peaked(VOCAB, 6)
    prompt = np.array([8, 500, 8, 77, 1023], dtype=np.int64)
    lps = prompt_logprobs(params, prompt)
    assert lps[0] == 0.0 and len(lps) == len(prompt)
    for i in range(1, len(prompt)):
        assert lps[i] == pytest.approx(next_token_logprobs(params, int(prompt[i - 1]))[prompt[i]])
    top = topk_prompt_logprobs(params, prompt, 4)
    assert top[0] == {"logprobs": [], "token_ids": []} and len(top) == len(prompt)
    for i in range(1, len(prompt)):
        full = next_token_logprobs(params, int(prompt[i - 1]))
        assert top[i]["token_ids"] == np.argsort(-full, kind="stable")[:4].tolist()
        np.testing.assert_allclose(top[i]["logprobs"], np.sort(full)[::-1][:4], atol=1e-12)
    assert topk_prompt_logprobs(params, prompt, 0)[3] == {"logprobs": [], "token_ids": []}
    assert prompt_logprobs(params, prompt[:1]) == [0.0]


@pytest.mark.parametrize(
    "kw",
    [
        {"num_samples": 0},
        {"max_tokens": 0},
        {"temperature": -1.0},
        {"top_p": 0.0},
        {"top_p": 1.5},
        {"top_k": -2},
    ],
)
def test_bad_sampling_arguments_raise(kw: dict[str, Any]) -> None:
    args: dict[str, Any] = {"num_samples": 1, "max_tokens": 4, "seed": 0, **kw}
    with pytest.raises(ValueError):
        sample_sequences(init_policy(VOCAB, 0), np.array([1]), **args)
    with pytest.raises(ValueError, match="at least one token"):
        sample_sequences(init_policy(VOCAB, 0), np.array([], dtype=np.int64), num_samples=1,
                         max_tokens=1, seed=0)  # fmt: skip


# ------------------------------------------------------------------ custom forward-backward


def test_custom_forward_backward_accumulates_like_the_built_in_loss() -> None:
    state = TrainerState.initial(VOCAB, seed=8)
    state.params = _peaked(VOCAB, 8, scale=0.3)
    rng = np.random.default_rng(3)
    lengths = [5, 1, 9]
    xs = [rng.integers(0, VOCAB, n) for n in lengths]
    ys = [rng.integers(0, VOCAB, n) for n in lengths]
    weights = [rng.choice([0.0, 1.0, 0.5, 2.0], n) for n in lengths]
    inputs = [{"target_tokens": y, "weights": w} for y, w in zip(ys, weights, strict=True)]

    fwd = forward(state.params, xs, ys)
    builtin = backward(state.params, fwd, compute_loss({"type": CE}, fwd.logprobs, inputs).dlogp)
    ce_dlogp = compute_loss({"type": CE}, fwd.logprobs, inputs).dlogp

    custom_forward_backward(state, list(zip(xs, ys, weights, strict=True)), ce_dlogp)
    assert state.accumulated_passes == 1
    for k, g in builtin.items():
        np.testing.assert_array_equal(state.grads[k], g)

    # A second pass adds to the first; a gradient given at a zero-weight position is ignored.
    noisy = [np.where(w == 0, 123.0, g) for w, g in zip(weights, ce_dlogp, strict=True)]
    custom_forward_backward(state, list(zip(xs, ys, weights, strict=True)), noisy)
    assert state.accumulated_passes == 2
    for k, g in builtin.items():
        np.testing.assert_allclose(state.grads[k], 2 * g, rtol=1e-12, atol=1e-15)


def test_custom_forward_backward_policy_gradient_and_no_mask() -> None:
    state = TrainerState.initial(VOCAB, seed=9)
    rng = np.random.default_rng(4)
    xs = [rng.integers(0, VOCAB, 6) for _ in range(3)]
    ys = [rng.integers(0, VOCAB, 6) for _ in range(3)]
    fwd = forward(state.params, xs, ys)
    inputs = [
        {"target_tokens": y, "logprobs": lp, "advantages": rng.normal(size=6)}
        for y, lp in zip(ys, fwd.logprobs, strict=True)
    ]
    dlogp = compute_loss({"type": GRPO}, fwd.logprobs, inputs).dlogp
    custom_forward_backward(state, [(x, y, None) for x, y in zip(xs, ys, strict=True)], dlogp)
    for k, g in backward(state.params, fwd, dlogp).items():
        np.testing.assert_array_equal(state.grads[k], g)


@pytest.mark.parametrize(
    ("samples", "gradients", "param"),
    [
        ([([1, 2], [2, 3], None)], [[0.1, 0.2], [0.3, 0.4]], "gradients"),
        ([([1, 2], [2, 3], None)], [[0.1]], "gradients[0].data"),
        ([([1, 2], [2, 3], None)], [[0.1, float("inf")]], "gradients[0].data"),
        ([([1, 2], [2, 3], [1.0])], [[0.1, 0.2]], "samples[0].loss_fn_inputs"),
        ([([1, 2], [2, 3, 4], None)], [[0.1, 0.2, 0.3]], "samples[0].loss_fn_inputs.target_tokens"),
        ([([1, VOCAB], [2, 3], None)], [[0.1, 0.2]], "samples[0].model_input"),
        ([([1, 2], [2, -1], None)], [[0.1, 0.2]], "samples[0].loss_fn_inputs.target_tokens"),
    ],
)
def test_custom_forward_backward_refuses_bad_input_without_accumulating(
    samples: Any, gradients: Any, param: str
) -> None:
    state = TrainerState.initial(VOCAB, seed=0)
    with pytest.raises(InvalidParam) as raised:
        custom_forward_backward(state, samples, gradients)
    assert raised.value.param == param
    assert state.accumulated_passes == 0 and all(not g.any() for g in state.grads.values())


# ------------------------------------------------------------------ persistence


def test_trainer_state_round_trips_through_npz() -> None:
    state = TrainerState.initial(VOCAB, seed=12)
    rng = np.random.default_rng(0)
    for _ in range(2):
        accumulate(state, _random_grads(state, rng, 1.0))
        optim_step(state, {"learning_rate": 0.01})
    weights_sync(state, "WEIGHT_SYNC_TYPE_PIPELINE")
    accumulate(state, _random_grads(state, rng, 1.0))
    optim_step(state, {"learning_rate": 0.01})
    accumulate(state, _random_grads(state, rng, 1.0))  # pending gradients survive too

    buffer = io.BytesIO()
    np.savez(buffer, **state.to_arrays())
    buffer.seek(0)
    with np.load(buffer) as stored:
        loaded = TrainerState.from_arrays(dict(stored))
    assert (loaded.step, loaded.weights_version, loaded.accumulated_passes) == (3, 1, 1)
    assert loaded.adam.step == 3
    original = state.to_arrays()
    assert set(loaded.to_arrays()) == set(original)
    for k, a in loaded.to_arrays().items():
        np.testing.assert_array_equal(a, original[k])
    # and it continues exactly like the original
    for s in (state, loaded):
        optim_step(s, {"learning_rate": 0.01})
    np.testing.assert_array_equal(loaded.params.b, state.params.b)


# ------------------------------------------------------------------ a toy GRPO loop learns

PROMPT = np.array([1, 2, 3], dtype=np.int64)
TARGET = np.array([101, 202, 303, 404, 505, 606, 707, 808], dtype=np.int64)
# Found by a sweep (the optimizer eps sweep): eps 1e-3 keeps Adam from turning the tiny,
# noisy gradients of every other logit into full-size random steps, which collapses the policy.
TOY_ADAM = {"learning_rate": 0.05, "eps": 1e-3}
TOY_GROUP = 16


def _toy_grpo(max_steps: int, stop_at: float = 2.0) -> list[float]:
    """sample -> reward -> group-relative advantages -> GRPO -> optim-step -> weights-sync."""
    state = TrainerState.initial(VOCAB, seed=0)
    rewards_per_step: list[float] = []
    for step in range(max_steps):
        seqs = sample_sequences(
            state.sampler_params, PROMPT, num_samples=TOY_GROUP, max_tokens=8, seed=step
        )
        rewards = np.array([float(np.mean(s.tokens == TARGET)) for s in seqs])
        rewards_per_step.append(float(rewards.mean()))
        if rewards.mean() >= stop_at:
            break
        advantages = (rewards - rewards.mean()) / (rewards.std() + 1e-6)
        xs, ys, inputs = [], [], []
        for s, a in zip(seqs, advantages, strict=True):
            full = np.concatenate([PROMPT, s.tokens])
            prompt_zeros = np.zeros(len(PROMPT) - 1)
            xs.append(full[:-1])
            ys.append(full[1:])
            inputs.append(
                {
                    "target_tokens": full[1:],
                    "mask": np.r_[prompt_zeros, np.ones(s.tokens.size)],
                    "logprobs": np.r_[prompt_zeros, s.logprobs],
                    "advantages": np.r_[prompt_zeros, np.full(s.tokens.size, a)],
                }
            )
        fwd = forward(state.params, xs, ys)
        loss = compute_loss({"type": GRPO}, fwd.logprobs, inputs)
        accumulate(state, backward(state.params, fwd, loss.dlogp))
        assert optim_step(state, TOY_ADAM) == step + 1
        assert weights_sync(state, "WEIGHT_SYNC_TYPE_SYNCHRONOUS") == step + 1
    return rewards_per_step


def test_toy_grpo_reward_rises() -> None:
    rewards = _toy_grpo(200)
    assert np.mean(rewards[:20]) < 0.02  # about 8 / 1024 by chance
    assert np.mean(rewards[-20:]) >= 0.1  # 0.125 to 0.16 here: one to two positions learnt


@pytest.mark.slow
def test_toy_grpo_reaches_09() -> None:
    rewards = _toy_grpo(600, stop_at=0.9)
    assert rewards[-1] >= 0.9, f"mean reward {rewards[-1]} after {len(rewards)} steps"
