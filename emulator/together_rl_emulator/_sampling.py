"""Sampling from the policy of `_policy_model.py`, and the prompt log-probs `sample` can return.

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

Top-k / top-p truncation keeps the same two stages. Within a cluster the order of the tokens
depends on b only, never on the context, so each cluster's tokens are sorted once per call (b
descending) with prefix sums of their weights: for any context, the kept set is a prefix of every
cluster ("the tokens of cluster k with b >= t - a_j[k]" for a threshold t on the logit), and a
cluster's kept mass is one prefix sum. `_Truncation.kept` finds the exact per-cluster prefix
lengths by a search on t (interpolation safeguarded by bisection; per step, two vectorised
`searchsorted` over the K clusters, O(K log V)) until few tokens remain undecided, and settles
those by sorting them. Then a cluster is drawn by its kept mass and a token within its kept
prefix. Cost: about O(K log V) per distinct context bucket (no (V,) array per context), plus
O(V log V) once per call for the sorts.

Truncation semantics: tokens are ranked by probability (logit b[v] + a_j[k]) descending, ties by
increasing token id. top-k keeps the first k of that ranking (exactly k tokens, even when ties
straddle the cut); then top-p keeps the shortest prefix of what is left whose probability at
temperature T reaches top_p of the kept total (at least one token). Tokens are then drawn from the
kept set in proportion to their probability at temperature T. "Ranked by logit" uses the logits
as computed in floating point (a tie is an exact tie of b[v] >= t - a_j[k] tests), so tokens
whose logits differ by about 1e-16 may be ranked either way.

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

import collections
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypedDict

import numpy as np
import numpy.typing as npt

from ._arrays import F64, I64
from ._moe_policy import expert_term, route
from ._policy_model import (
    PolicyParams,
    _check_tokens,
    _cluster_log_mass,
    _logsumexp,
    _padded,
    _token_logprobs,
    context_term,
    forward,
)
from ._spec import enum_value
from ._stop_strings import StopStrings

__all__ = [
    "SHARED_SAMPLERS",
    "STOP_REASON_LENGTH",
    "STOP_REASON_STOP",
    "PromptTopLogprobs",
    "SampledSequence",
    "Sampler",
    "prompt_logprobs",
    "sample_prompts",
    "sample_sequences",
    "topk_prompt_logprobs",
]

StopReason = str  # a value of the spec's `StopReason`
STOP_REASON_LENGTH: StopReason = enum_value("StopReason", "LENGTH")
STOP_REASON_STOP: StopReason = enum_value("StopReason", "STOP")

# The threshold search stops when at most this many tokens are undecided, and sorts them.
SETTLE_TOKENS = 256
# A safety bound on the search's steps (5 to 12 in practice at V = 151,936).
MAX_SEARCH_STEPS = 120
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


class PromptTopLogprobs(TypedDict):
    """One entry of `topk_prompt_logprobs` (the spec's `PromptTopLogprobs`)."""

    logprobs: list[float]
    token_ids: list[int]


@dataclass(frozen=True)
class SampledSequence:
    tokens: I64  # the completion only (not the prompt); the stop token, if any, is the last one
    logprobs: F64  # log p(tokens[t] | previous token) under the policy (temperature 1)
    stop_reason: StopReason


def _pick(cdf: F64, u: float) -> int:
    """The index i with cdf[i-1] <= u·total < cdf[i]; entries of zero weight are never picked."""
    i = int(np.searchsorted(cdf, u * cdf[-1], side="right"))
    if i >= cdf.shape[0]:  # u·total rounded up to total: take the last entry of positive weight
        i = int(np.flatnonzero(np.diff(cdf, prepend=0.0) > 0)[-1])
    return i


class _Truncation:
    """Each cluster's tokens sorted by b, with prefix weights at temperature T, for one call.

    Row k of `tokens` / `b` holds cluster k's tokens by b descending, ties by increasing id
    (padded to R = max cluster size with -1 / -inf); `cum[k, n]` is the weight of the first n of
    them, sum of exp((b - b_max[k]) / T). To count, for a threshold t, the tokens of every cluster
    with b >= t - a[k] in O(K log V), each token gets its rank in the global order of b
    descending, and `keys` holds k * V + rank for every token, sorted: cluster by cluster, ranks
    ascending.
    """

    def __init__(self, b: F64, n_clusters: int, temperature: float) -> None:
        V, K = int(b.shape[0]), n_clusters
        self.K, self.T = K, temperature
        by_b = np.argsort(-b, kind="stable")  # rank -> token: b descending, ties by id
        self.neg_b_sorted = -b[by_b]  # ascending
        cluster = by_b % K
        # A stable sort of small integers (radix sort): the ranks of each cluster, ascending.
        by_cluster = np.argsort(cluster.astype(np.int16 if K < 2**15 else np.int64), kind="stable")
        self.sizes = np.bincount(cluster, minlength=K)  # >= 1 each: K <= V
        self.starts = np.cumsum(self.sizes) - self.sizes
        self.keys = cluster[by_cluster] * V + by_cluster
        self.key_base = np.arange(K, dtype=np.int64) * V
        self.R = R = int(self.sizes.max())
        row = cluster[by_cluster]
        col = np.arange(V) - self.starts[row]
        self.tokens = np.full((K, R), -1, dtype=np.int64)
        self.tokens[row, col] = by_b[by_cluster]
        self.b = np.full((K, R), -np.inf)
        self.b[row, col] = b[by_b[by_cluster]]
        self.b_max = self.b[:, 0].copy()
        self.weights = np.exp((self.b - self.b_max[:, None]) / temperature)  # padding: 0
        self.cum = np.zeros((K, R + 1))
        np.cumsum(self.weights, axis=1, out=self.cum[:, 1:])
        self.cum_offset = np.arange(K) * (R + 1)  # cum.ravel()[cum_offset + n] = cum[k, n]

    def counts(self, a: F64, a_order: I64, t: float) -> I64:
        """Per cluster k, how many of its tokens have a logit >= t (that is, b >= t - a[k]).

        `a_order` sorts `a`: queries in increasing order make `searchsorted` about 1.5x faster.
        """
        ranked_above = np.empty(self.K, dtype=np.int64)  # tokens of any cluster with b >= t - a
        ranked_above[a_order] = np.searchsorted(self.neg_b_sorted, a[a_order] - t, side="right")
        found: I64 = np.searchsorted(self.keys, self.key_base + ranked_above) - self.starts
        return found

    def kept(self, a: F64, top_k: int, top_p: float) -> tuple[I64, F64]:
        """(per cluster, how many of its first tokens are kept; cumulative kept cluster weights).

        `a` is the context's cluster term; top_k = 0 and top_p = 1 disable the steps.
        """
        scaled_heads = (self.b_max + a) / self.T
        # Token weight exp(logit / T) up to a constant: w[k] * weights[k, r], max w = 1.
        w = np.exp(scaled_heads - float(scaled_heads.max()))
        n: I64 = self.sizes
        a_order = np.argsort(a)
        if top_k:
            n = self._search(a, a_order, w, n, float(top_k), by_mass=False)
        if top_p < 1:
            n = self._search(a, a_order, w, n, top_p * self._mass(w, n), by_mass=True)
        return n, np.cumsum(w * self.cum.ravel()[self.cum_offset + n])

    def _mass(self, w: F64, n: I64) -> float:
        return float(w @ self.cum.ravel()[self.cum_offset + n])

    def _search(
        self, a: F64, a_order: I64, w: F64, limit: I64, target: float, by_mass: bool
    ) -> I64:
        """The per-cluster kept counts of the shortest prefix of the ranking (restricted to the
        first `limit[k]` tokens of each cluster) whose count (by_mass False) or mass reaches
        `target`.

        Bracket on the logit threshold t: the prefix `lo` (the tokens with logit >= t_lo) reaches
        the target, `hi` (logit >= t_hi) does not; the cut lies in between. Each step evaluates a
        secant (or regula falsi) estimate of the threshold, deliberately overshot by about
        SETTLE_TOKENS / 4 tokens towards the end that moved least recently, so that both ends
        close in; a bisection when the undecided tokens did not halve in three steps. The last
        few undecided tokens are sorted (`_settle`).
        """

        def measure(n: I64) -> float:
            return self._mass(w, n) if by_mass else float(n.sum())

        live = limit > 0
        heads = self.b_max[live] + a[live]
        lo_n, f_lo = limit, measure(limit)
        total = f_lo
        t_lo = float((self.b[live, limit[live] - 1] + a[live]).min())
        hi_n, f_hi = np.zeros_like(limit), 0.0
        t_hi = float(np.nextafter(heads.max(), np.inf))
        # Token weight at logit t, relative to the weights `w` are scaled by (max head = 1).
        top_scaled = float(heads.max()) / self.T
        recent: list[tuple[float, float]] = []  # the last two evaluations (t, measure)
        pivot: float | None = None
        if not by_mass and target <= heads.size:  # the top_k-th best head: >= top_k tokens
            pivot = float(np.partition(heads, heads.size - int(target))[heads.size - int(target)])
        undecided, stalled, aim_lo, repeats = int((lo_n - hi_n).sum()), 0, False, 0
        best = undecided
        for _ in range(MAX_SEARCH_STEPS):
            if undecided <= SETTLE_TOKENS:
                break
            if pivot is None and stalled < 3:
                pivot = self._estimate(
                    recent,
                    (t_lo, f_lo),
                    (t_hi, f_hi),
                    target,
                    aim_lo,
                    by_mass,
                    top_scaled,
                    SETTLE_TOKENS / 4 * 4.0**repeats,
                    total,
                )
            if pivot is None or not t_lo < pivot < t_hi:
                pivot = 0.5 * (t_lo + t_hi)
                if not t_lo < pivot < t_hi:
                    break  # t_lo, t_hi adjacent floats: the undecided tokens tie
            n = np.minimum(self.counts(a, a_order, pivot), limit)
            f = measure(n)
            recent = [*recent[-1:], (pivot, f)]
            repeats = repeats + 1 if aim_lo == (f < target) else 0
            if f >= target:
                t_lo, lo_n, f_lo, aim_lo = pivot, n, f, False
            else:
                t_hi, hi_n, f_hi, aim_lo = pivot, n, f, True
            undecided = int((lo_n - hi_n).sum())
            if 2 * undecided <= best:
                best, stalled = undecided, 0
            else:
                stalled += 1
            pivot = None
        return self._settle(a, w, hi_n, lo_n, target, by_mass)

    def _estimate(
        self,
        recent: list[tuple[float, float]],
        lo: tuple[float, float],
        hi: tuple[float, float],
        target: float,
        aim_lo: bool,
        by_mass: bool,
        top_scaled: float,
        margin: float,
        total: float,
    ) -> float | None:
        """Where the measure (decreasing in t) crosses the target, overshot by `margin` tokens
        towards `lo` (aim at a measure above the target) or `hi`: by secant on the last two
        points, else by regula falsi on the bracket, both on the log-odds of measure / total
        (close to linear in t for bell-shaped logits, unlike the measure itself)."""
        eps = 0.5 / max(total, 1.0) if not by_mass else 1e-12

        def odds(f: float) -> float:
            x = min(max(f / total, eps), 1 - eps)
            return float(np.log(x / (1 - x)))

        (t1, f1), (t2, f2) = recent if len(recent) == 2 else (lo, hi)
        y1, y2 = odds(f1), odds(f2)
        if y1 == y2:
            (t1, f1), (t2, f2) = lo, hi
            y1, y2 = odds(f1), odds(f2)
        cross = t1 + (t2 - t1) * (y1 - odds(target)) / (y1 - y2)
        if by_mass:  # about that many tokens of logit near the cut
            margin *= float(np.exp(min(cross / self.T - top_scaled, 0.0)))
        aim = target + margin if aim_lo else max(target - margin, 0.5 * (target + hi[1]))
        pivot = t1 + (t2 - t1) * (y1 - odds(aim)) / (y1 - y2)
        return pivot if np.isfinite(pivot) else None

    def _settle(self, a: F64, w: F64, hi_n: I64, lo_n: I64, target: float, by_mass: bool) -> I64:
        """Sort the undecided tokens (per cluster, positions hi_n[k] to lo_n[k]) and cut."""
        K, R = self.K, self.R
        span = lo_n - hi_n
        k_of = np.repeat(np.arange(K), span)
        first = np.cumsum(span) - span
        flat = k_of * R + hi_n[k_of] + (np.arange(k_of.size) - first[k_of])
        logits = self.b.ravel()[flat] + a[k_of]
        order = np.lexsort((self.tokens.ravel()[flat], -logits))  # logit desc, then token id
        decided = int(hi_n.sum())
        if by_mass:
            mass = self._mass(w, hi_n) + np.cumsum((w[k_of] * self.weights.ravel()[flat])[order])
            take = int(np.searchsorted(mass, target, side="left")) + 1
        else:
            take = int(target) - decided
        take = min(max(take, 1 - min(decided, 1)), order.size)
        found: I64 = hi_n + np.bincount(k_of[order[:take]], minlength=K)
        return found


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
            self.truncation = _Truncation(params.b, self.K, self.temperature)
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
            a_all += expert_term(moe, buckets, route(moe, buckets))
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
    sampler = Sampler(params, 1.0, 0, 1.0)
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
                logp = _token_logprobs(params.b, ctx.a, ctx.log_z)
                top = np.argpartition(-logp, k - 1)[:k] if k < logp.size else np.arange(logp.size)
                top = top[np.lexsort((top, -logp[top]))]
                entry = {
                    "logprobs": [float(x) for x in logp[top]],
                    "token_ids": [int(t) for t in top],
                }
            cache[j] = entry
        out.append({"logprobs": list(entry["logprobs"]), "token_ids": list(entry["token_ids"])})
    return out
