"""Sampling from the policy of `_policy.py`, and the prompt log-probs a `sample` call can return.

The policy's next-token distribution depends on the previous token only, through its context
bucket j = prev % H, and factorises over clusters (k = v % K):

    p(v | j) = exp(b[v]) * exp(a_j[k]) / Z_j,   a_j = E @ W[j],   k = c(v).

At temperature T the sampling distribution p(v | j)^(1/T) (renormalised) factorises the same way,
so a token is drawn in two stages, without ever forming the (V,) distribution: a cluster k with
probability proportional to exp(a_j[k] / T) * S_k(T), S_k(T) = sum_{v in k} exp(b[v] / T), then a
token of k with probability proportional to exp(b[v] / T), which does not depend on the context.
Cost: O(K·d) per distinct context bucket of a call, O(log K + log(V/K)) per token. Only top-k or
top-p truncation needs the full (V,) distribution of a bucket (O(V log V), cached within a call
under a memory budget). Temperature 0 (or below 1e-6) is greedy (the most probable token; ties
go to the lowest cluster, then the lowest token of that cluster).

Returned log-probs: each sampled token's log-probability under the policy itself (temperature 1,
no top-k/top-p truncation), which is exactly what a forward pass over the same tokens reports, so
that a client can pass them back as the `logprobs` (sampler log-probs) of a policy loss and get a
ratio of exactly 1 under unchanged weights. Temperature, top-k and top-p only shape the
distribution the tokens are drawn from.

Reproducibility: one `np.random.default_rng(seed)` per call; sample s draws a block of
`2 * max_tokens` uniforms before its first token (two per position, used or not), so a given seed
gives the same sequences whatever the stop tokens, and `seed=None` draws fresh OS entropy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

from ._policy import PolicyParams, _check_tokens, _cluster_log_mass, _padded, forward

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

StopReason = Literal["STOP_REASON_LENGTH", "STOP_REASON_STOP"]
STOP_REASON_LENGTH: StopReason = "STOP_REASON_LENGTH"
STOP_REASON_STOP: StopReason = "STOP_REASON_STOP"

# Upper bound of the per-call cache of truncated (top-k/top-p) distributions, in float64 entries.
TRUNCATED_CACHE_ENTRIES = 8_000_000
# Temperatures in (0, MIN_TEMPERATURE) are sampled greedily, like 0: a / T would overflow.
MIN_TEMPERATURE = 1e-6


class PromptTopLogprobs(TypedDict):
    """One entry of `topk_prompt_logprobs` (the spec's `PromptTopLogprobs`)."""

    logprobs: list[float]
    token_ids: list[int]


@dataclass(frozen=True)
class SampledSequence:
    tokens: I64  # the completion only (not the prompt); the stop token, if any, is the last one
    logprobs: F64  # log p(tokens[t] | previous token) under the policy (temperature 1)
    stop_reason: StopReason


def _logsumexp(x: F64) -> float:
    mx = float(x.max())
    return mx + float(np.log(np.exp(x - mx).sum()))


def _pick(cdf: F64, u: float) -> int:
    """The index i with cdf[i-1] <= u·total < cdf[i]; entries of zero weight are never picked."""
    i = int(np.searchsorted(cdf, u * cdf[-1], side="right"))
    if i >= cdf.shape[0]:  # u·total rounded up to total: take the last entry of positive weight
        i = int(np.flatnonzero(np.diff(cdf, prepend=0.0) > 0)[-1])
    return i


@dataclass
class _Context:
    """What the policy needs about one context bucket j."""

    a: F64  # (K,) a_j = E @ W[j]
    log_z: float  # log Z_j
    cluster_cdf: F64 | None  # (K,) cumulative cluster weights at the sampling temperature


class _Sampler:
    """The policy at a given temperature/top-k/top-p, with per-bucket caches for one call."""

    def __init__(self, params: PolicyParams, temperature: float, top_k: int, top_p: float) -> None:
        if not np.isfinite(temperature) or temperature < 0:
            raise ValueError(f"temperature must be a finite number >= 0, got {temperature}")
        if top_k < 0:
            raise ValueError(f"top_k must be >= 0 (0 disables it), got {top_k}")
        if not (0 < top_p <= 1):
            raise ValueError(f"top_p must be in (0, 1], got {top_p}")
        self.params = params
        self.V, self.K, self.H = params.vocab_size, int(params.E.shape[0]), int(params.W.shape[0])
        self.temperature = float(temperature) if temperature >= MIN_TEMPERATURE else 0.0
        self.top_k = top_k if 0 < top_k < self.V else 0
        self.top_p = float(top_p)
        self.truncated = self.temperature > 0 and (self.top_k > 0 or self.top_p < 1)
        self.log_s, _ = _cluster_log_mass(params.b, self.K)  # temperature 1: for the logprobs
        self.contexts: dict[int, _Context] = {}
        self.truncated_cache: dict[int, tuple[I64, F64]] = {}
        self.truncated_entries = 0
        b_grid = _padded(params.b, self.K, -np.inf)  # (R, K): column k = tokens of cluster k
        if self.temperature == 0:
            # Greedy: the best token of cluster k is its largest b; rows are ascending token ids.
            self.best_row = np.argmax(b_grid, axis=0)
            self.best_b = b_grid[self.best_row, np.arange(self.K)]
        elif not self.truncated:
            # Scaled by each cluster's own max, so no cluster's weights all underflow at small T.
            b_max = b_grid.max(axis=0)  # finite: every cluster holds at least one token
            weights = np.exp((b_grid - b_max) / self.temperature)  # exp(-inf) = 0: the padding
            self.within_cdf = np.ascontiguousarray(np.cumsum(weights, axis=0).T)  # (K, R)
            self.log_s_t = np.log(self.within_cdf[:, -1]) + b_max / self.temperature

    def context(self, prev: int) -> _Context:
        j = prev % self.H
        found = self.contexts.get(j)
        if found is None:
            a = self.params.E @ self.params.W[j]
            cdf = None
            if self.temperature > 0 and not self.truncated:
                logits = a / self.temperature + self.log_s_t
                cdf = np.cumsum(np.exp(logits - float(logits.max())))
            found = _Context(a=a, log_z=_logsumexp(a + self.log_s), cluster_cdf=cdf)
            self.contexts[j] = found
        return found

    def logprob(self, ctx: _Context, token: int) -> float:
        """log p(token | context) at temperature 1, computed like `forward` does."""
        return float(self.params.b[token] + ctx.a[token % self.K] - ctx.log_z)

    def draw(self, prev: int, u1: float, u2: float) -> int:
        ctx = self.context(prev)
        if self.temperature == 0:
            k = int(np.argmax(ctx.a + self.best_b))
            return int(self.best_row[k]) * self.K + k
        if self.truncated:
            tokens, cdf = self._truncated(prev, ctx)
            return int(tokens[_pick(cdf, u1)])
        assert ctx.cluster_cdf is not None
        k = _pick(ctx.cluster_cdf, u1)
        return _pick(self.within_cdf[k], u2) * self.K + k

    def _truncated(self, prev: int, ctx: _Context) -> tuple[I64, F64]:
        """(kept token ids, their cumulative weights) after top-k then top-p, for prev's bucket."""
        j = prev % self.H
        found = self.truncated_cache.get(j)
        if found is not None:
            return found
        logp = (_padded(self.params.b, self.K, 0.0) + (ctx.a - ctx.log_z)).ravel()[: self.V]
        scaled = logp / self.temperature
        order = np.argsort(-scaled, kind="stable")  # descending, ties by token id
        if self.top_k:
            order = order[: self.top_k]
        weights = np.exp(scaled[order] - float(scaled[order[0]]))
        cdf = np.cumsum(weights)
        if self.top_p < 1:
            # The smallest prefix whose probability reaches top_p (at least one token).
            keep = int(np.searchsorted(cdf, self.top_p * cdf[-1], side="left")) + 1
            order, cdf = order[:keep], cdf[:keep]
        found = (order.astype(np.int64), cdf)
        if self.truncated_entries + 2 * order.size > TRUNCATED_CACHE_ENTRIES:
            self.truncated_cache.clear()
            self.truncated_entries = 0
        self.truncated_cache[j] = found
        self.truncated_entries += 2 * order.size
        return found


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
) -> list[SampledSequence]:
    """`num_samples` completions of `prompt`, each of at most `max_tokens` tokens.

    A completion stops after the first sampled token in `stop_token_ids` (kept as its last token,
    stop reason STOP) or after `max_tokens` tokens (LENGTH). See the module docstring for the
    distribution, the returned log-probs and the draw order.
    """
    tokens = _as_prompt(params, prompt)
    if num_samples < 1:
        raise ValueError(f"num_samples must be >= 1, got {num_samples}")
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    stops = frozenset(int(t) for t in stop_token_ids)
    sampler = _Sampler(params, temperature, top_k, top_p)
    rng = np.random.default_rng(seed)
    out: list[SampledSequence] = []
    for _ in range(num_samples):
        uniforms = rng.random((max_tokens, 2))
        prev = int(tokens[-1])
        seq: list[int] = []
        lps: list[float] = []
        reason: StopReason = STOP_REASON_LENGTH
        for t in range(max_tokens):
            token = sampler.draw(prev, float(uniforms[t, 0]), float(uniforms[t, 1]))
            seq.append(token)
            lps.append(sampler.logprob(sampler.context(prev), token))
            prev = token
            if token in stops:
                reason = STOP_REASON_STOP
                break
        out.append(
            SampledSequence(
                tokens=np.array(seq, dtype=np.int64),
                logprobs=np.array(lps, dtype=np.float64),
                stop_reason=reason,
            )
        )
    return out


def prompt_logprobs(params: PolicyParams, prompt: npt.ArrayLike) -> list[float]:
    """[0.0, log p(prompt[1] | prompt[0]), ..., log p(prompt[n-1] | prompt[n-2])]."""
    tokens = _as_prompt(params, prompt)
    fwd = forward(params, [tokens[:-1]], [tokens[1:]])
    return [0.0, *(float(x) for x in fwd.logprobs[0])]


def topk_prompt_logprobs(
    params: PolicyParams, prompt: npt.ArrayLike, k: int
) -> list[PromptTopLogprobs]:
    """Per prompt position i >= 1, the k most probable tokens after prompt[i-1] and their log-probs.

    Entry 0 (nothing precedes the first token) is `{"logprobs": [], "token_ids": []}`; so is
    every entry when k = 0. Sorted by decreasing log-prob, ties by increasing token id.
    """
    tokens = _as_prompt(params, prompt)
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    sampler = _Sampler(params, 1.0, 0, 1.0)
    k = min(k, params.vocab_size)
    cache: dict[int, PromptTopLogprobs] = {}
    out: list[PromptTopLogprobs] = [{"logprobs": [], "token_ids": []}]
    for prev in tokens[:-1]:
        j = int(prev) % sampler.H
        entry = cache.get(j)
        if entry is None:
            if k == 0:
                entry = {"logprobs": [], "token_ids": []}
            else:
                ctx = sampler.context(int(prev))
                logp = (_padded(params.b, sampler.K, 0.0) + (ctx.a - ctx.log_z)).ravel()[
                    : params.vocab_size
                ]
                top = np.argpartition(-logp, k - 1)[:k] if k < logp.size else np.arange(logp.size)
                top = top[np.lexsort((top, -logp[top]))]
                entry = {
                    "logprobs": [float(x) for x in logp[top]],
                    "token_ids": [int(t) for t in top],
                }
            cache[j] = entry
        out.append({"logprobs": list(entry["logprobs"]), "token_ids": list(entry["token_ids"])})
    return out
