"""The policy of `_policy_model.py` at a temperature, top-k and top-p: one token at a time.

The policy's next-token distribution depends on the previous token only, through its context
bucket j = prev % H, and factorises over clusters (k = v % K):

    p(v | j) = exp(b[v]) * exp(a_j[k]) / Z_j,   a_j = E @ W[j] (+ experts' term),   k = c(v).

At temperature T the sampling distribution p(v | j)^(1/T) (renormalised) factorises the same way,
so a token is drawn in two stages, without ever forming the (V,) distribution: a cluster k with
probability proportional to exp(a_j[k] / T) * S_k(T), S_k(T) = sum_{v in k} exp(b[v] / T), then a
token of k with probability proportional to exp(b[v] / T), which does not depend on the context.
Cost: O(K·d) per distinct context bucket of a call, O(log K + log(V/K)) per token. Temperature 0
(or below 1e-6) is greedy (the most probable token; ties go to the lowest cluster, then the lowest
token of that cluster).

Truncation (top-k / top-p) is `_sampling_truncation.py`; whole sequences are `_sampling.py`.
"""

from __future__ import annotations

import collections
import threading
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..base import F64, I64
from ._moe_policy import expert_term, pick_experts
from ._policy_model import (
    PolicyParams,
    _cluster_log_mass,
    _logsumexp,
    _padded,
    context_term,
)
from ._sampling_truncation import Truncation

__all__ = [
    "MIN_TEMPERATURE",
    "PREPARE_ALL_TOKENS",
    "SHARED_SAMPLERS",
    "Sampler",
]

# `Sampler.prepare` computes every context bucket at once when a call draws at least this many
# tokens per bucket. Measured at H = K = 1024 over 151,936 tokens (2 CPUs, medians of 5; a
# request of 8 prompts x 8 samples, a fresh sampler each): all at once then drawn together /
# one by one, 256 tokens 58 / 23 ms, 1,024 tokens 44 / 41 ms, 1,280 tokens 44 / 48 ms, 2,048
# tokens 47 / 70 ms. The threshold before, 0.25 a bucket, made small requests 2-3 x slower.
PREPARE_ALL_TOKENS = 1.25
# `Sampler.shared` keeps the samplers of this many (parameters, settings) pairs, the least
# recently used dropped first: a few sessions sampling in turn keep theirs (one at H = K = 1024
# holds two (H, K) float64 matrices, 16 MB, once every bucket is computed).
SHARED_SAMPLERS = 4
# Temperatures in (0, MIN_TEMPERATURE) are sampled greedily, like 0: a / T would overflow.
MIN_TEMPERATURE = 1e-6


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
    kept: I64 | None = None  # (K,) with truncation: how many of each cluster's best tokens are kept


class Sampler:
    """The policy at a given temperature/top-k/top-p, with per-bucket caches for one call."""

    # `shared`'s samplers, least recently used first, by (id(params), settings)
    _shared: ClassVar[collections.OrderedDict[tuple[int, tuple[float, int, float]], Sampler]] = (
        collections.OrderedDict()
    )
    _shared_lock: ClassVar[threading.Lock] = threading.Lock()

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
        self._stacked: tuple[F64, F64, F64] | None = None
        b_grid = _padded(params.b, self.K, -np.inf)  # (R, K): column k = tokens of cluster k
        if self.temperature == 0:
            # Greedy: the best token of cluster k is its largest b; rows are ascending token ids.
            self.best_row = np.argmax(b_grid, axis=0)
            self.best_b = b_grid[self.best_row, np.arange(self.K)]
        elif self.truncated:
            self.truncation = Truncation(params.b, self.K, self.temperature)
        else:
            # Scaled by each cluster's own max, so no cluster's weights all underflow at small T.
            b_max = b_grid.max(axis=0)  # finite: every cluster holds at least one token
            weights = np.exp((b_grid - b_max) / self.temperature)  # exp(-inf) = 0: the padding
            self.within_cdf = np.ascontiguousarray(np.cumsum(weights, axis=0).T)  # (K, R)
            self.log_s_t = np.log(self.within_cdf[:, -1]) + b_max / self.temperature

    @classmethod
    def shared(cls, params: PolicyParams, temperature: float, top_k: int, top_p: float) -> Sampler:
        """The sampler of an earlier call made with the same `params` object and settings, else
        a new one (kept for the next calls; `SHARED_SAMPLERS` at most): its set-up and
        per-bucket contexts depend on those alone, and parameters are never written into
        (`_trainer.py`), so samples between two weights-syncs pay them once. A kept sampler
        holds its `params`, so their id is not reused while it is kept."""
        key = (id(params), (float(temperature), int(top_k), float(top_p)))
        with cls._shared_lock:
            kept = cls._shared.get(key)
            if kept is not None:
                cls._shared.move_to_end(key)
                return kept
        sampler = cls(params, temperature, top_k, top_p)
        with cls._shared_lock:
            sampler = cls._shared.setdefault(key, sampler)  # another thread's, if it came first
            while len(cls._shared) > SHARED_SAMPLERS:
                cls._shared.popitem(last=False)
        return sampler

    def draws_together(self) -> bool:
        """True when `sample_prompts` can draw every sequence of a call at once: every context
        bucket computed, a temperature above 0 and no truncation."""
        return self.temperature > 0 and not self.truncated and len(self.contexts) == self.H

    def stacked(self) -> tuple[F64, F64, F64]:
        """Every bucket's (cluster_cdf, a) as (H, K) rows and log_z as (H,), once all are
        computed (the contexts' own figures: a draw is the same either way). The contexts then
        hold views of these rows, so the figures are not kept twice."""
        if self._stacked is None:
            contexts = [self.contexts[j] for j in range(self.H)]
            self._hold_rows(
                np.stack([c.a for c in contexts]),
                np.array([c.log_z for c in contexts], dtype=np.float64),
                np.stack([c.cluster_cdf for c in contexts]),  # type: ignore[misc]
            )
        assert self._stacked is not None
        return self._stacked

    def _hold_rows(self, a: F64, log_z: F64, cdf: F64 | None) -> None:
        """Every bucket's context as views of these (H, K) rows, and the rows kept as
        `stacked()` when there is a cdf (a temperature above 0)."""
        for j in range(self.H):
            row = None if cdf is None else cdf[j]
            self.contexts[j] = _Context(a=a[j], log_z=float(log_z[j]), cluster_cdf=row)
        if cdf is not None:
            self._stacked = (cdf, a, log_z)

    def prepare(self, tokens: int) -> None:
        """About to draw `tokens` tokens: when they would meet most of the H context buckets
        (`PREPARE_ALL_TOKENS`), compute them all at once (`prepare_all`)."""
        if tokens >= PREPARE_ALL_TOKENS * self.H:
            self.prepare_all()

    def prepare_all(self) -> None:
        """Compute every context bucket's context at once: one (H, d) x (d, K) product and row
        reductions (36 ms at H = K = 1024, against 40 us a bucket one by one). Truncated
        sampling keeps its per-bucket search. A bucket computed before keeps its context (a
        shared sampler's calls see the same figures, whichever call computed them)."""
        if self.truncated or len(self.contexts) == self.H:
            return
        a_all = self.params.W @ self.params.E.T  # (H, K): row j is E @ W[j]
        moe = self.params.moe
        if moe is not None:  # each bucket's experts, as `context_term` adds them
            buckets = np.arange(self.H, dtype=np.int64)
            a_all += expert_term(moe, buckets, pick_experts(moe, buckets))
        shifted = a_all + self.log_s
        mx = shifted.max(axis=1, keepdims=True)
        log_z = mx[:, 0] + np.log(np.exp(shifted - mx).sum(axis=1))
        cdf = None
        if self.temperature > 0:
            logits = a_all / self.temperature + self.log_s_t
            logits -= logits.max(axis=1, keepdims=True)
            cdf = np.cumsum(np.exp(logits), axis=1)
        for j, ctx in self.contexts.items():  # computed one by one before: their figures stand
            a_all[j], log_z[j] = ctx.a, ctx.log_z
            if cdf is not None:
                cdf[j] = ctx.cluster_cdf
        self._hold_rows(a_all, log_z, cdf)

    def context(self, prev: int) -> _Context:
        j = prev % self.H
        found = self.contexts.get(j)
        if found is None:
            a = context_term(self.params, j)
            cdf, kept = None, None
            if self.truncated:
                kept, cdf = self.truncation.kept(a, self.top_k, self.top_p)
            elif self.temperature > 0:
                logits = a / self.temperature + self.log_s_t
                cdf = np.cumsum(np.exp(logits - float(logits.max())))
            found = _Context(a=a, log_z=_logsumexp(a + self.log_s), cluster_cdf=cdf, kept=kept)
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
        assert ctx.cluster_cdf is not None
        k = _pick(ctx.cluster_cdf, u1)
        if self.truncated:
            assert ctx.kept is not None
            within = self.truncation.cum[k, 1 : int(ctx.kept[k]) + 1]
            return int(self.truncation.tokens[k, _pick(within, u2)])
        return _pick(self.within_cdf[k], u2) * self.K + k
