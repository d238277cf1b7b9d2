"""The mixture-of-experts part of the policy of `_policy_model.py`, for MoE base models.

Besides b, W and E, an MoE policy has n experts (n = min(the model's experts, MAX_EXPERTS)):
a router R (n, d) and per-expert cluster biases U (n, K). The input token x (context vector
h = W[x % H]) is routed to the ROUTED_PER_TOKEN experts S with the highest scores h . R[e]
(ties to the lower index; S is kept in ascending order), weighted by the softmax of their
scores, g; its cluster term becomes

    a(x)[k] = h . E[k] + sum_{e in S} g_e U[e, k],

so the experts a token goes to change its log-probs. A forward pass may be handed the routing
instead (router replay: the selections recorded at sampling time); the gates g are then the
softmax of the current scores of the given experts, as a replaying MoE layer computes them.
Tokens are grouped by context (bucket, selection): log Z and the cluster posterior are computed
once per distinct context, as the dense policy does per bucket.

Gradients (g_t = dL/dlogp_t; per context u with D_u = M_u - G_u P_u as in the dense model):
  dE = D^T H,  dU[e] += g_{u,e} D_u,  dg_{u,e} = D_u . U[e],
  ds_u = g_u * (dg_u - g_u . dg_u)  (softmax),  dR[e] += ds_{u,e} h_u,
  dW[bucket(u)] += D_u E + sum_e ds_{u,e} R[e],  db as in the dense model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base import F64, I64

__all__ = [
    "MAX_EXPERTS",
    "ROUTED_PER_TOKEN",
    "MoeForward",
    "MoeWeights",
    "expert_term",
    "moe_backward",
    "moe_forward",
    "pick_experts",
]

MAX_EXPERTS = 8
ROUTED_PER_TOKEN = 2
INIT_STD_ROUTER = 1.0
INIT_STD_EXPERT = 0.5


@dataclass(frozen=True)
class MoeWeights:
    """The arrays an MoE pass reads: b (V,), W (H, d), E (K, d), R (n, d), U (n, K)."""

    b: F64
    W: F64
    E: F64
    R: F64
    U: F64


def pick_experts(w: MoeWeights, buckets: I64) -> I64:
    """(n_tokens, ROUTED_PER_TOKEN) expert ids, ascending, chosen by the router for `buckets`."""
    scores = w.W[buckets] @ w.R.T
    top = np.argsort(-scores, axis=1, kind="stable")[:, : min(ROUTED_PER_TOKEN, w.R.shape[0])]
    chosen: I64 = np.sort(top, axis=1).astype(np.int64)
    return chosen


def _gates(h: F64, R: F64, selections: I64) -> F64:
    scores = np.einsum("nd,nkd->nk", h, R[selections])
    scores -= scores.max(axis=1, keepdims=True)
    e = np.exp(scores)
    gates: F64 = e / e.sum(axis=1, keepdims=True)
    return gates


def expert_term(w: MoeWeights, buckets: I64, selections: I64) -> F64:
    """(n, K): the experts' part of the cluster term of each (bucket, selection)."""
    gates = _gates(w.W[buckets], w.R, selections)
    term: F64 = np.einsum("nk,nkc->nc", gates, w.U[selections])
    return term


@dataclass
class MoeForward:
    """Result of `moe_forward`: `logprobs`, `lengths` and `selections` are public."""

    logprobs: list[F64]
    lengths: list[int]
    selections: list[I64]  # per sample, (len, ROUTED_PER_TOKEN): the experts each token used
    targets: I64
    contexts: I64  # (U, 1 + ROUTED_PER_TOKEN): bucket then experts, per distinct context
    row: I64  # (T,) context index of each token
    gates: F64  # (U, ROUTED_PER_TOKEN)
    post: F64  # (U, K) cluster posterior
    log_s: F64
    eb_grid: F64


def moe_forward(
    w: MoeWeights,
    x: I64,
    y: I64,
    lengths: list[int],
    routes: Sequence[I64 | None] | None,
    log_mass: tuple[F64, F64],
) -> MoeForward:
    """log p(y_t | x_t) with the router's selections, or the given `routes` where a sample has
    them (its first len(routes[i]) tokens; the router's for the rest). `log_mass`: the dense
    model's (log S_k, exp(b - max b) grid)."""
    H, K = w.W.shape[0], w.E.shape[0]
    j = x % H
    selections = pick_experts(w, j)
    if routes is not None:
        start = 0
        for n, given in zip(lengths, routes, strict=True):
            if given is not None:
                m = min(len(given), n)
                selections[start : start + m] = given[:m]
            start += n
    contexts, row = np.unique(np.column_stack([j, selections]), axis=0, return_inverse=True)
    row = row.ravel()
    h = w.W[contexts[:, 0]]
    sel = contexts[:, 1:]
    gates = _gates(h, w.R, sel)
    a = h @ w.E.T + np.einsum("nk,nkc->nc", gates, w.U[sel])
    log_s, eb_grid = log_mass
    grid = a + log_s
    mx = grid.max(axis=1, keepdims=True)
    post = np.exp(grid - mx)
    z = post.sum(axis=1)
    post /= z[:, None]
    log_z = mx[:, 0] + np.log(z)
    lp = w.b[y] + a[row, y % K] - log_z[row]
    cuts = np.cumsum(lengths)[:-1]
    return MoeForward(
        logprobs=np.split(lp, cuts) if lengths else [],
        lengths=lengths,
        selections=np.split(selections, cuts) if lengths else [],
        targets=y,
        contexts=contexts,
        row=row,
        gates=gates,
        post=post,
        log_s=log_s,
        eb_grid=eb_grid,
    )


def moe_backward(w: MoeWeights, fwd: MoeForward, g: F64) -> dict[str, F64]:
    """Exact gradients of L w.r.t. b, W, E, R, U given g_t = dL/dlogp_t (module docstring)."""
    V, K = w.b.shape[0], w.E.shape[0]
    nu = fwd.contexts.shape[0]
    G = np.bincount(fwd.row, weights=g, minlength=nu)
    M = np.bincount(fwd.row * K + fwd.targets % K, weights=g, minlength=nu * K).reshape(nu, K)
    D = M - G[:, None] * fwd.post
    buckets, sel = fwd.contexts[:, 0], fwd.contexts[:, 1:]
    h = w.W[buckets]
    dE = D.T @ h
    dh = D @ w.E
    dU = np.zeros_like(w.U)
    dR = np.zeros_like(w.R)
    dg = np.einsum("uc,ukc->uk", D, w.U[sel])
    ds = fwd.gates * (dg - (fwd.gates * dg).sum(axis=1, keepdims=True))
    for slot in range(sel.shape[1]):
        np.add.at(dU, sel[:, slot], fwd.gates[:, slot, None] * D)
        np.add.at(dR, sel[:, slot], ds[:, slot, None] * h)
    dh += np.einsum("uk,ukd->ud", ds, w.R[sel])
    dW = np.zeros_like(w.W)
    np.add.at(dW, buckets, dh)
    coef = (G @ fwd.post) * np.exp(float(w.b.max()) - fwd.log_s)
    db = np.bincount(fwd.targets, weights=g, minlength=V) - (fwd.eb_grid * coef).ravel()[:V]
    return {"b": db, "W": dW, "E": dE, "R": dR, "U": dU}
