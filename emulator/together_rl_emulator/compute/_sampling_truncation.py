"""Top-k / top-p truncation for `_sampler.py`: each call's kept prefix of every cluster.

Top-k / top-p truncation keeps the same two stages. Within a cluster the order of the tokens
depends on b only, never on the context, so each cluster's tokens are sorted once per call (b
descending) with prefix sums of their weights: for any context, the kept set is a prefix of every
cluster ("the tokens of cluster k with b >= t - a_j[k]" for a threshold t on the logit), and a
cluster's kept mass is one prefix sum. `Truncation.kept` finds the exact per-cluster prefix
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
"""

from __future__ import annotations

import numpy as np

from ..base import F64, I64

__all__ = ["MAX_SEARCH_STEPS", "SETTLE_TOKENS", "Truncation"]

# The threshold search stops when at most this many tokens are undecided, and sorts them.
SETTLE_TOKENS = 256
# A safety bound on the search's steps (5 to 12 in practice at V = 151,936).
MAX_SEARCH_STEPS = 120


class Truncation:
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
