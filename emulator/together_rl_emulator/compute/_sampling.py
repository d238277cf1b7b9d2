"""Sequences sampled from the policy of `_policy_model.py`, with their log-probs.

One token is drawn by `_sampler.py` (the two-stage draw; top-k / top-p in
`_sampling_truncation.py`); the prompt log-probs `sample` can return are `_prompt_logprobs.py`.

Returned log-probs: each sampled token's log-probability under the policy itself (temperature 1,
no top-k/top-p truncation), which is exactly what a forward pass over the same tokens reports, so
that a client can pass them back as the `logprobs` (sampler log-probs) of a policy loss and get a
ratio of exactly 1 under unchanged weights. Temperature, top-k and top-p only shape the
distribution the tokens are drawn from.

Drawing: with every context bucket computed, at a temperature above 0 and without truncation,
`sample_prompts` draws every sequence of a request at once, a step of all of them at a time (the
same draws as one sequence after the other, `_draw_together`); otherwise token after token.

Reproducibility: one `np.random.default_rng(seed)` per prompt; sample s draws a block of
`2 * max_tokens` uniforms before its first token (two per position, used or not: the cluster,
then the token within it), so a given seed gives the same sequences whatever the stop tokens,
and `seed=None` draws fresh OS entropy.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..base import F64, I64, enum_value
from ._policy_model import PolicyParams, _check_tokens
from ._sampler import Sampler, _pick
from ._stop_strings import StopStrings

__all__ = [
    "STOP_REASON_LENGTH",
    "STOP_REASON_STOP",
    "SampledSequence",
    "sample_prompts",
    "sample_sequences",
]

StopReason = str  # a value of the spec's `StopReason`
STOP_REASON_LENGTH: StopReason = enum_value("StopReason", "LENGTH")
STOP_REASON_STOP: StopReason = enum_value("StopReason", "STOP")


@dataclass(frozen=True)
class SampledSequence:
    tokens: I64  # the completion only (not the prompt); the stop token, if any, is the last one
    logprobs: F64  # log p(tokens[t] | previous token) under the policy (temperature 1)
    stop_reason: StopReason


def _as_prompt(params: PolicyParams, prompt: npt.ArrayLike) -> I64:
    tokens = np.asarray(prompt, dtype=np.int64).ravel()
    if tokens.size == 0:
        raise ValueError("the prompt must hold at least one token")
    _check_tokens(tokens, params.vocab_size, "prompt")
    return tokens


def sample_sequences(
    params: PolicyParams,
    prompt: npt.ArrayLike,
    *,
    num_samples: int,
    max_tokens: int,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    seed: int | None,
    stop_token_ids: Iterable[int] = frozenset(),
    stop_strings: StopStrings | None = None,
    sampler: Sampler | None = None,
) -> list[SampledSequence]:
    """`num_samples` completions of `prompt`, each of at most `max_tokens` tokens.

    A completion stops after the first sampled token in `stop_token_ids` or whose text completes
    one of `stop_strings` (kept as its last token, stop reason STOP; `_stop_strings.py`), or after
    `max_tokens` tokens (LENGTH). See the module docstring for the
    distribution, the returned log-probs and the draw order. `sampler`: one made by
    `Sampler(params, temperature, top_k, top_p)` shared by the prompts of a request (the same
    draws, its set-up and per-context caches paid once).
    """
    (sequences,) = sample_prompts(
        params, [prompt], seeds=[seed], num_samples=num_samples, max_tokens=max_tokens,
        temperature=temperature, top_k=top_k, top_p=top_p, stop_token_ids=stop_token_ids,
        stop_strings=stop_strings, sampler=sampler,
    )  # fmt: skip
    return sequences


def sample_prompts(
    params: PolicyParams,
    prompts: Sequence[npt.ArrayLike],
    *,
    seeds: Sequence[int | None],
    num_samples: int,
    max_tokens: int,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    stop_token_ids: Iterable[int] = frozenset(),
    stop_strings: StopStrings | None = None,
    sampler: Sampler | None = None,
) -> list[list[SampledSequence]]:
    """`sample_sequences` of each prompt with its own seed, one list per prompt: the same
    sequences. Drawn all together, a step of every sequence at once, when the sampler has every
    context bucket computed and draws without truncation at a temperature above 0 (a request's
    Python loop over its tokens, 1 s of CPU for 64 prompts x 8 samples x 128 tokens over 151,936
    tokens, becomes a loop over its steps); one token after the other otherwise."""
    firsts = [_as_prompt(params, prompt) for prompt in prompts]
    if len(seeds) != len(firsts):
        raise ValueError(f"{len(seeds)} seeds for {len(firsts)} prompts")
    if num_samples < 1:
        raise ValueError(f"num_samples must be >= 1, got {num_samples}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    stops = frozenset(int(t) for t in stop_token_ids)
    if sampler is None:
        sampler = Sampler(params, temperature, top_k, top_p)
    elif sampler.params is not params:
        raise ValueError("the sampler was made for other parameters")
    sampler.prepare(len(firsts) * num_samples * max_tokens)
    # Each prompt's uniforms: `num_samples` blocks of `max_tokens` x 2 from its own seed.
    uniforms = np.stack(
        [np.random.default_rng(seed).random((num_samples, max_tokens, 2)) for seed in seeds]
    ).reshape(len(firsts) * num_samples, max_tokens, 2)
    prevs = np.repeat(np.array([int(t[-1]) for t in firsts], dtype=np.int64), num_samples)
    texts = stop_strings if stop_strings else None
    if sampler.draws_together():
        flat = _draw_together(sampler, prevs, uniforms, stops, texts)
    else:
        flat = [
            _draw_one(sampler, int(prev), u, stops, texts)
            for prev, u in zip(prevs, uniforms, strict=True)
        ]
    return [flat[n : n + num_samples] for n in range(0, len(flat), num_samples)]


def _draw_one(
    sampler: Sampler,
    prev: int,
    uniforms: F64,
    stops: frozenset[int],
    texts: StopStrings | None = None,
) -> SampledSequence:
    """One sequence from `prev`, token by token (`uniforms`: its `max_tokens` x 2 block)."""
    watch = None if texts is None else texts.watch(1)
    running = np.ones(1, dtype=bool)
    seq: list[int] = []
    lps: list[float] = []
    reason: StopReason = STOP_REASON_LENGTH
    for t in range(uniforms.shape[0]):
        token = sampler.draw(prev, float(uniforms[t, 0]), float(uniforms[t, 1]))
        seq.append(token)
        lps.append(sampler.logprob(sampler.context(prev), token))
        prev = token
        if token in stops or (watch and watch.step(np.array([token]), running)[0]):
            reason = STOP_REASON_STOP
            break
    return SampledSequence(
        tokens=np.array(seq, dtype=np.int64),
        logprobs=np.array(lps, dtype=np.float64),
        stop_reason=reason,
    )


def _draw_together(
    sampler: Sampler,
    prevs: I64,
    uniforms: F64,
    stops: frozenset[int],
    texts: StopStrings | None = None,
) -> list[SampledSequence]:
    """Every sequence at once, a step at a time: what `_draw_one` draws for each. A cluster
    (then a token within it) is the count of cumulative weights <= u x total, which is
    `searchsorted(..., side="right")` on a non-decreasing row; the row-end cases `_pick` settles
    are settled by it."""
    cdf, a, log_z = sampler.stacked()
    within, b, K, H = sampler.within_cdf, sampler.params.b, sampler.K, sampler.H
    n, steps = uniforms.shape[:2]
    tokens = np.empty((n, steps), dtype=np.int64)
    logprobs = np.empty((n, steps), dtype=np.float64)
    lengths = np.full(n, steps)
    running = np.ones(n, dtype=bool)
    by_stop = np.zeros(n, dtype=bool)
    stop_ids = np.array(sorted(stops), dtype=np.int64)
    watch = None if texts is None else texts.watch(n)
    prev = prevs.copy()
    for t in range(steps):
        j = prev % H
        k = _count_at_most(cdf[j], uniforms[:, t, 0])
        rows = within[k]
        i = _count_at_most(rows, uniforms[:, t, 1])
        token = i * K + k
        tokens[:, t] = token
        logprobs[:, t] = b[token] + a[j, k] - log_z[j]
        stopped = running & np.isin(token, stop_ids)
        if watch is not None:
            stopped |= watch.step(token, running & ~stopped)
        lengths[stopped] = t + 1
        by_stop |= stopped
        running &= ~stopped
        if not running.any():
            break
        prev = token
    return [
        SampledSequence(
            tokens=tokens[s, : lengths[s]].copy(),
            logprobs=logprobs[s, : lengths[s]].copy(),
            stop_reason=STOP_REASON_STOP if by_stop[s] else STOP_REASON_LENGTH,
        )
        for s in range(n)
    ]


def _count_at_most(rows: F64, u: F64) -> I64:
    """`_pick(row, u)` of each row and its u."""
    picked: I64 = (rows <= (u * rows[:, -1])[:, None]).sum(axis=1)
    for r in np.flatnonzero(picked >= rows.shape[1]):  # u x total rounded up to the total
        picked[r] = _pick(rows[r], float(u[r]))
    return picked
