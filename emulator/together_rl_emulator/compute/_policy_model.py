"""A small, exactly normalised, differentiable next-token policy over a full vocabulary.

Model (V = vocab size, K clusters, H context buckets, d = DIM):

- cluster of token v: c(v) = v % K, with K = min(V, 1024);
- context of input token x: h(x) = W[x % H], with H = min(V, 1024) (for V <= 1024, K = H = V:
  a bigram model whose context term has rank d);
- logit(v | x) = b[v] + h(x) . E[c(v)];
- log Z(x) = logsumexp_k( h(x) . E[k] + log S_k ),  S_k = sum_{v : c(v) = k} exp(b[v]);
- log p(v | x) = logit(v | x) - log Z(x), exactly normalised over all V tokens.

The context enters only through its bucket j = x % H, so log Z and the cluster posterior
P[j, k] = exp(h_j . E[k] + log S_k - log Z_j) are computed once per bucket present in the
batch: cost O(T + H'·K·d + V) for T tokens and H' <= min(T, H) distinct buckets, never O(T·V).
H and K are capped at 1024 so that the (H', K) float64 grid (8 MB) stays cache-friendly: 4096
buckets made a 64 x 2048-token forward+backward about 6x slower.

A mixture-of-experts base model's policy adds a router and expert parameters (R, U), and its
tokens' log-probs depend on the experts they are routed to (`_moe_policy.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..base import F64, I64
from ._moe_policy import (
    INIT_STD_EXPERT,
    INIT_STD_ROUTER,
    MAX_EXPERTS,
    MoeForward,
    MoeWeights,
    expert_term,
    moe_backward,
    moe_forward,
    pick_experts,
)

__all__ = [
    "DIM",
    "Forward",
    "PolicyParams",
    "backward",
    "context_term",
    "forward",
    "init_policy",
    "next_token_logprobs",
    "routed_selections",
]

DIM = 16
MAX_CLUSTERS = 1024
MAX_BUCKETS = 1024
INIT_STD_B = 0.02
INIT_STD_WE = 0.1
# `backward` sums over the tokens rather than multiplying the (H', K) grid when the tokens are
# fewer than 1/SPARSE_GRID_RATIO of its cells (measured: 4-15x faster at 1,024 tokens and a
# 1,024 x 1,024 grid, as fast at about 16,000 tokens, 10x slower at 131,072).
SPARSE_GRID_RATIO = 64


@dataclass
class PolicyParams:
    """b (V,) unigram bias, W (H, d) context-bucket embeddings, E (K, d) cluster embeddings;
    for a mixture-of-experts model also R (n, d) router and U (n, K) expert cluster biases."""

    b: F64
    W: F64
    E: F64
    R: F64 | None = None
    U: F64 | None = None

    @property
    def vocab_size(self) -> int:
        return int(self.b.shape[0])

    def to_arrays(self) -> dict[str, F64]:
        """The arrays themselves (not copies): updating them in place updates the policy."""
        arrays = {"b": self.b, "W": self.W, "E": self.E}
        if self.R is not None and self.U is not None:
            arrays.update(R=self.R, U=self.U)
        return arrays

    @property
    def moe(self) -> MoeWeights | None:
        """The arrays of a mixture-of-experts policy, None for a dense one."""
        if self.R is None or self.U is None:
            return None
        return MoeWeights(self.b, self.W, self.E, self.R, self.U)

    @classmethod
    def from_arrays(cls, d: Mapping[str, npt.ArrayLike]) -> PolicyParams:
        """Build from {"b", "W", "E"} and, for a mixture of experts, {"R", "U"} (float64 arrays
        are shared, not copied); K, H and the experts from shapes."""
        b, W, E = (np.ascontiguousarray(d[k], dtype=np.float64) for k in ("b", "W", "E"))
        if b.ndim != 1 or W.ndim != 2 or E.ndim != 2 or W.shape[1] != E.shape[1]:
            raise ValueError(f"bad parameter shapes b{b.shape} W{W.shape} E{E.shape}")
        if not (1 <= E.shape[0] <= b.shape[0] and W.shape[0] >= 1):
            raise ValueError("need 1 <= clusters <= vocab size and at least one context bucket")
        if ("R" in d) != ("U" in d):
            raise ValueError("a mixture-of-experts policy needs both R and U")
        if "R" not in d:
            return cls(b=b, W=W, E=E)
        R, U = (np.ascontiguousarray(d[k], dtype=np.float64) for k in ("R", "U"))
        if R.ndim != 2 or U.shape != (R.shape[0], E.shape[0]) or R.shape[1] != W.shape[1]:
            raise ValueError(f"bad expert shapes R{R.shape} U{U.shape}")
        return cls(b=b, W=W, E=E, R=R, U=U)

    def copy(self) -> PolicyParams:
        return PolicyParams.from_arrays({k: a.copy() for k, a in self.to_arrays().items()})


def init_policy(vocab_size: int, seed: int, num_experts: int = 0) -> PolicyParams:
    """Deterministic small random init: log-probs are close to -log V but not exactly uniform.
    `num_experts` > 0 (a mixture-of-experts model's count): a router and min(it, MAX_EXPERTS)
    experts, drawn after the dense arrays (which are the same as a dense model's)."""
    if vocab_size < 1:
        raise ValueError("vocab_size must be >= 1")
    rng = np.random.default_rng(seed)
    k, h = min(vocab_size, MAX_CLUSTERS), min(vocab_size, MAX_BUCKETS)
    params = PolicyParams(
        b=rng.normal(0.0, INIT_STD_B, vocab_size),
        W=rng.normal(0.0, INIT_STD_WE, (h, DIM)),
        E=rng.normal(0.0, INIT_STD_WE, (k, DIM)),
    )
    if num_experts > 0:
        n = min(num_experts, MAX_EXPERTS)
        params.R = rng.normal(0.0, INIT_STD_ROUTER, (n, DIM))
        params.U = rng.normal(0.0, INIT_STD_EXPERT, (n, k))
    return params


@dataclass
class Forward:
    """Result of `forward`. Only `logprobs` is public; the rest is what `backward` needs."""

    logprobs: list[F64]
    lengths: list[int]
    targets: I64  # (T,) concatenated targets
    buckets: I64  # (H',) distinct context buckets of the batch, ascending
    row: I64  # (T,) index of each token's bucket in `buckets`
    cell: I64  # (T,) row * K + c(target): flat index into the (H', K) grid
    post: F64  # (H', K) cluster posterior P[j, k] per bucket
    log_s: F64  # (K,) log S_k, as `_cluster_log_mass` gives it
    eb_grid: F64  # exp(b - max b) laid out by `_padded` (O(V): computed once per pass)


def _padded(x: F64, k: int, fill: float) -> F64:
    """x laid out as a (ceil(V/K), K) grid, so column k holds exactly the tokens of cluster k."""
    pad = (-x.shape[0]) % k
    return np.concatenate([x, np.full(pad, fill)]).reshape(-1, k)


def _cluster_log_mass(b: F64, k: int) -> tuple[F64, F64]:
    """(log S_k for each cluster k, exp(b_v - max b) laid out by `_padded`), computed stably."""
    bmax = float(b.max())
    eb_grid = _padded(np.exp(b - bmax), k, 0.0)
    return np.log(eb_grid.sum(axis=0)) + bmax, eb_grid


def _check_tokens(tokens: I64, vocab_size: int, what: str) -> None:
    if tokens.size and (int(tokens.min()) < 0 or int(tokens.max()) >= vocab_size):
        raise ValueError(f"{what} token out of range [0, {vocab_size})")


def forward(
    params: PolicyParams,
    inputs: Sequence[I64],
    targets: Sequence[I64],
    routes: Sequence[I64 | None] | None = None,
) -> Forward | MoeForward:
    """log p(targets[i][t] | inputs[i][t]) for every sample i and position t, batched.
    `routes` (mixture of experts only): per sample, the experts its first tokens are routed to
    (router replay), or None for the router's own choice."""
    V, K, H = params.vocab_size, params.E.shape[0], params.W.shape[0]
    if len(inputs) != len(targets) or any(
        len(x) != len(y) for x, y in zip(inputs, targets, strict=True)
    ):
        raise ValueError("inputs and targets must have the same number of samples and lengths")
    lengths = [len(y) for y in targets]
    x = (
        np.concatenate([np.asarray(a, dtype=np.int64) for a in inputs])
        if inputs
        else np.zeros(0, np.int64)
    )
    y = (
        np.concatenate([np.asarray(a, dtype=np.int64) for a in targets])
        if targets
        else np.zeros(0, np.int64)
    )
    _check_tokens(x, V, "input")
    _check_tokens(y, V, "target")
    moe = params.moe
    if moe is not None:
        return moe_forward(moe, x, y, lengths, routes, _cluster_log_mass(params.b, K))

    j = x % H
    present = np.zeros(H, dtype=bool)
    present[j] = True
    buckets = np.flatnonzero(present)
    row = (np.cumsum(present) - 1)[j]
    cell = row * K + y % K

    grid = params.W[buckets] @ params.E.T  # (H', K): h_j . E_k
    dot = grid.ravel()[cell]  # h_t . E[c(y_t)], taken before `grid` is overwritten
    log_s, eb_grid = _cluster_log_mass(params.b, K)
    grid += log_s
    mx = grid.max(axis=1, keepdims=True)
    grid -= mx
    np.exp(grid, out=grid)
    z = grid.sum(axis=1)
    grid /= z[:, None]
    log_z = mx[:, 0] + np.log(z)

    lp = params.b[y] + dot - log_z[row]
    return Forward(
        logprobs=np.split(lp, np.cumsum(lengths)[:-1]) if lengths else [],
        lengths=lengths,
        targets=y,
        buckets=buckets,
        row=row,
        cell=cell,
        post=grid,
        log_s=log_s,
        eb_grid=eb_grid,
    )


def backward(
    params: PolicyParams, fwd: Forward | MoeForward, dlogp: Sequence[F64]
) -> dict[str, F64]:
    """Exact gradients of L w.r.t. b, W, E given g_t = dL/dlogp_t (same keys/shapes as to_arrays()).

    `params` must be unchanged since the `forward` that produced `fwd`.

    With G_j = sum of g_t over tokens in bucket j, M[j, k] = sum of g_t over tokens in
    bucket j whose target is in cluster k, and D = M - G[:, None] * P:
      dW[j] = D[j] @ E,  dE = D.T @ W[buckets],
      db[v] = sum_{t: y_t = v} g_t - exp(b_v) / S_{c(v)} * (G @ P)[c(v)]   (O(T + H'·K + V)).
    D is never formed (another (H', K) temporary). M has at most T non-zero entries: when
    they are few, M @ E and M.T @ W[buckets] are sums over the tokens (O(T·d)) and M is never
    formed either; else dense products (BLAS), which are faster then.
    """
    V, K = params.vocab_size, params.E.shape[0]
    if [len(g) for g in dlogp] != fwd.lengths:
        raise ValueError("dlogp lengths do not match the forward pass")
    g = np.concatenate([np.asarray(a, dtype=np.float64) for a in dlogp]) if dlogp else np.zeros(0)
    if isinstance(fwd, MoeForward):
        moe = params.moe
        assert moe is not None, "an MoE forward pass of a dense policy"
        return moe_backward(moe, fwd, g)
    nb = fwd.buckets.shape[0]
    G = np.bincount(fwd.row, weights=g, minlength=nb)
    Wu, P = params.W[fwd.buckets], fwd.post
    if g.size * SPARSE_GRID_RATIO < nb * K:
        cluster = fwd.targets % K
        ME = _sum_rows(fwd.row, g[:, None] * params.E[cluster], nb)
        MW = _sum_rows(cluster, g[:, None] * Wu[fwd.row], K)
    else:
        M = np.bincount(fwd.cell, weights=g, minlength=nb * K).reshape(nb, K)
        ME, MW = M @ params.E, M.T @ Wu
    dW = np.zeros_like(params.W)
    dW[fwd.buckets] = ME - G[:, None] * (P @ params.E)
    dE = MW - P.T @ (G[:, None] * Wu)

    coef = (G @ P) * np.exp(float(params.b.max()) - fwd.log_s)  # (G @ P)_k / S_k, times e^max b
    db = np.bincount(fwd.targets, weights=g, minlength=V) - (fwd.eb_grid * coef).ravel()[:V]
    return {"b": db, "W": dW, "E": dE}


def _sum_rows(index: I64, values: F64, n_rows: int) -> F64:
    """out[i] = sum of values[t] over the t with index[t] == i; `values` is (T, d)."""
    d = values.shape[1]
    flat = (index[:, None] * d + np.arange(d)).ravel()
    sums = np.bincount(flat, weights=values.ravel(), minlength=n_rows * d)  # float64 with weights
    out: F64 = np.asarray(sums, dtype=np.float64).reshape(n_rows, d)
    return out


def next_token_logprobs(params: PolicyParams, prev_token: int) -> F64:
    """The full (V,) normalised log-distribution of the token following `prev_token`."""
    K, H = params.E.shape[0], params.W.shape[0]
    _check_tokens(np.array([prev_token], dtype=np.int64), params.vocab_size, "input")
    a = context_term(params, prev_token % H)  # (K,)
    log_s, _ = _cluster_log_mass(params.b, K)
    return _token_logprobs(params.b, a, _logsumexp(a + log_s))


def context_term(params: PolicyParams, bucket: int) -> F64:
    """The (K,) cluster term of context bucket `bucket` with the router's own experts."""
    a: F64 = params.E @ params.W[bucket]
    moe = params.moe
    if moe is not None:
        buckets = np.array([bucket], dtype=np.int64)
        a = a + expert_term(moe, buckets, pick_experts(moe, buckets))[0]
    return a


def routed_selections(params: PolicyParams, tokens: I64) -> I64:
    """(len(tokens), experts per token): the experts the router sends each input token to."""
    moe = params.moe
    if moe is None:
        raise ValueError("a dense policy routes nothing")
    return pick_experts(moe, np.asarray(tokens, dtype=np.int64) % params.W.shape[0])


def _logsumexp(x: F64) -> float:
    mx = float(x.max())
    return mx + float(np.log(np.exp(x - mx).sum()))


def _token_logprobs(b: F64, a: F64, log_z: float) -> F64:
    """The (V,) log p(v | context) of a context with cluster term `a` (K,) and log Z `log_z`."""
    out: F64 = (_padded(b, a.shape[0], 0.0) + (a - log_z)).ravel()[: b.shape[0]]
    return out
