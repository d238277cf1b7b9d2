"""The seven losses against docs/losses.md: worked vectors (§13), finite differences, and an
independent per-token reference written here from the [R] definitions (plain Python loops, no
emulator helpers)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from together_rl_emulator.compute._losses import DEFAULTS, LOSS_TYPES, compute_loss

F64 = npt.NDArray[np.float64]
Inputs = list[dict[str, F64]]

AGGS = ["FIXED_HORIZON", "TOKEN_MEAN", "SEQUENCE_MEAN"]
RATIOS = ["TOKEN", "SEQUENCE"]


def _grpo(
    agg: str | None, ratio: str | None, beta: float, lo: float = 0.8, hi: float = 1.2
) -> dict[str, Any]:
    p: dict[str, Any] = {"clip_low_threshold": lo, "clip_high_threshold": hi, "beta": beta}
    if agg is not None:
        p["agg_type"] = "GRPO_LOSS_AGGREGATION_TYPE_" + agg
    if ratio is not None:
        p["ratio_type"] = "GRPO_LOSS_RATIO_TYPE_" + ratio
    return {"type": "LOSS_TYPE_GRPO", "grpo_params": p}


LOSS_CASES: list[dict[str, Any]] = [
    {"type": "LOSS_TYPE_CROSS_ENTROPY"},
    {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"},
    {"type": "LOSS_TYPE_PPO"},
    {
        "type": "LOSS_TYPE_PPO",
        "ppo_params": {"clip_low_threshold": 0.9, "clip_high_threshold": 1.1},
    },
    {"type": "LOSS_TYPE_CISPO"},
    {
        "type": "LOSS_TYPE_CISPO",
        "cispo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
    },
    {"type": "LOSS_TYPE_DRO", "dro_params": {"beta": 0.3}},
    {"type": "LOSS_TYPE_DRO", "dro_params": {"beta": 0.0}},
    {"type": "LOSS_TYPE_DPPO"},
    {"type": "LOSS_TYPE_DPPO", "dppo_params": {"delta_low": 0.05, "delta_high": 0.3}},
    {"type": "LOSS_TYPE_GRPO"},
    _grpo("UNSPECIFIED", None, 0.2),
    *[_grpo(a, r, beta) for a in AGGS for r in RATIOS for beta in (0.0, 0.1)],
]
MASK_MODES = ["weights", "mask", "none"]


def _case_id(cfg: dict[str, Any]) -> str:
    extra = [
        str(v).rsplit("_", 1)[-1] for p in cfg.values() if isinstance(p, dict) for v in p.values()
    ]
    return "-".join([cfg["type"].removeprefix("LOSS_TYPE_"), *extra])


# ------------------------------------------------------- independent reference (docs/losses.md)

REF_DEFAULTS: dict[str, dict[str, Any]] = {
    "LOSS_TYPE_GRPO": {
        "clip_low_threshold": 0.8,
        "clip_high_threshold": 1.28,
        "beta": 0.0,
        "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON",
        "ratio_type": "GRPO_LOSS_RATIO_TYPE_TOKEN",
    },
    "LOSS_TYPE_PPO": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
    "LOSS_TYPE_CISPO": {"clip_low_threshold": 0.0, "clip_high_threshold": 4.0},
    "LOSS_TYPE_DPPO": {"delta_low": 0.15, "delta_high": 0.15},
    "LOSS_TYPE_DRO": {},
}


def _clip(x: float, lo: float, hi: float) -> float:
    return min(max(x, lo), hi)


def reference(
    cfg: dict[str, Any],
    ls: list[list[float]],
    inputs: Inputs,
    frozen: list[list[float]] | None = None,
) -> tuple[float, dict[str, float]]:
    """Loss value and metrics. Detached quantities (CISPO's clipped ratio, GSPO's s_i, DPPO's valid)
    are evaluated at `frozen` (default: at ls), so its finite differences give the [R] gradient."""
    kind = cfg["type"]
    l0s = frozen if frozen is not None else ls
    p = dict(REF_DEFAULTS.get(kind, {}))
    for v in cfg.values():
        if isinstance(v, dict):
            p.update({k: x for k, x in v.items() if x is not None})
    B, t_max = len(ls), max((len(x) for x in ls), default=0)
    total = 0.0
    seq_losses: list[float] = []
    counts: list[int] = []
    tokens: dict[str, list[float]] = {
        k: [] for k in ("ratio", "klp", "clipped", "high", "low", "kl")
    }
    for i in range(B):
        x = inputs[i]
        n = len(ls[i])
        w = (
            [float(v) for v in x["weights"]]
            if "weights" in x
            else ([float(v) for v in x["mask"]] if "mask" in x else [1.0] * n)
        )
        if kind == "LOSS_TYPE_CROSS_ENTROPY":
            total += sum(-w[t] * ls[i][t] for t in range(n) if w[t] != 0)
            continue
        m = [1 if w[t] != 0 else 0 for t in range(n)]
        q, A = [float(v) for v in x["logprobs"]], [float(v) for v in x["advantages"]]
        n_i = sum(m)
        s0 = math.exp(sum(l0s[i][t] - q[t] for t in range(n) if m[t]) / max(1, n_i))
        sample_sum = 0.0
        for t in range(n):
            if not m[t]:
                continue
            lp, l0 = ls[i][t], l0s[i][t]
            r, r0 = math.exp(lp - q[t]), math.exp(l0 - q[t])
            tokens["ratio"].append(r)
            tokens["klp"].append(q[t] - lp)
            if kind == "LOSS_TYPE_IMPORTANCE_SAMPLING":
                val = -r * A[t]
            elif kind in ("LOSS_TYPE_PPO", "LOSS_TYPE_GRPO"):
                lo, hi = p["clip_low_threshold"], p["clip_high_threshold"]
                rt = r
                if kind == "LOSS_TYPE_GRPO" and p["ratio_type"].endswith("SEQUENCE"):
                    rt = s0 * math.exp(lp - l0)
                    tokens["ratio"][-1], tokens["klp"][-1] = rt, -math.log(s0)
                val = -min(rt * A[t], _clip(rt, lo, hi) * A[t])
                tokens["clipped"].append(_clip(rt, lo, hi))
                tokens["high"].append(float(rt > hi and A[t] > 0))
                tokens["low"].append(float(rt < lo and A[t] < 0))
                if kind == "LOSS_TYPE_GRPO" and p["beta"] > 0:
                    u = _clip(float(x["reference_logprobs"][t]) - lp, -10.0, 10.0)
                    kl = math.exp(u) - u - 1
                    val += p["beta"] * kl
                    tokens["kl"].append(kl)
            elif kind == "LOSS_TYPE_CISPO":
                lo, hi = p["clip_low_threshold"], p["clip_high_threshold"]
                val = -_clip(r0, lo, hi) * A[t] * lp
                tokens["high"].append(float(r > hi))
                tokens["low"].append(float(r < lo))
            elif kind == "LOSS_TYPE_DRO":
                val = -(lp * A[t] - 0.5 * p["beta"] * (lp - q[t]) ** 2)
            elif kind == "LOSS_TYPE_DPPO":
                dp0 = math.exp(l0) - math.exp(q[t])
                if A[t] > 0:
                    valid = dp0 <= p["delta_high"]
                elif A[t] < 0:
                    valid = dp0 >= -p["delta_low"]
                else:
                    valid = True
                val = -r * A[t] * float(valid)
                dp = math.exp(lp) - math.exp(q[t])
                tokens["high"].append(float(A[t] > 0 and dp > p["delta_high"]))
                tokens["low"].append(float(A[t] < 0 and dp < -p["delta_low"]))
            else:
                raise AssertionError(kind)
            sample_sum += val
        seq_losses.append(sample_sum)
        counts.append(n_i)
    if kind == "LOSS_TYPE_CROSS_ENTROPY":
        return total, {}
    if kind != "LOSS_TYPE_GRPO":
        total = sum(seq_losses)
    elif p["agg_type"].endswith("TOKEN_MEAN"):
        total = sum(seq_losses) / max(1, sum(counts))
    elif p["agg_type"].endswith("SEQUENCE_MEAN"):
        total = (
            sum(s / max(1, c) for s, c in zip(seq_losses, counts, strict=True)) / B if B else 0.0
        )
    else:
        total = sum(seq_losses) / max(1, B * t_max)

    def mean(xs: list[float]) -> float:
        return sum(xs) / len(xs) if xs else 0.0

    metrics = {"loss/ratio/mean": mean(tokens["ratio"]), "loss/kl_policy/mean": mean(tokens["klp"])}
    if kind in ("LOSS_TYPE_GRPO", "LOSS_TYPE_PPO", "LOSS_TYPE_CISPO", "LOSS_TYPE_DPPO"):
        metrics["loss/clip/high_fraction"] = mean(tokens["high"])
        metrics["loss/clip/low_fraction"] = mean(tokens["low"])
    if kind == "LOSS_TYPE_GRPO":
        metrics["loss/clip/clipped_ratio/mean"] = mean(tokens["clipped"])
        if p["beta"] > 0:
            metrics["loss/kl_ref/mean"] = mean(tokens["kl"])
    return total, metrics


# ------------------------------------------------------- random problems


def _problem(
    seed: int, lengths: list[int], mode: str, const_adv: bool = False
) -> tuple[list[F64], Inputs]:
    rng = np.random.default_rng(seed)
    ls, inputs = [], []
    for i, n in enumerate(lengths):
        lp = -rng.uniform(0.05, 3.0, n)
        x = {
            "target_tokens": rng.integers(0, 100, n).astype(np.float64),
            "logprobs": lp + rng.normal(0, 0.3, n),
            "advantages": np.full(n, rng.normal()) if const_adv else rng.normal(size=n),
            "reference_logprobs": lp + rng.normal(0, 0.5, n),
        }
        if not const_adv:
            x["advantages"][rng.random(n) < 0.15] = 0.0
        if n >= 4:  # exercise the KL clamp at |ref - l| > 10
            x["reference_logprobs"][1] = lp[1] - 12.0
            x["reference_logprobs"][3] = lp[3] + 11.0
        if mode == "weights":
            x["weights"] = rng.choice([0.0, 0.5, 1.0, 2.0], size=n)
            if i == 0:
                x["weights"][:] = 0.0  # one fully masked sample
        elif mode == "mask":
            x["mask"] = rng.choice([0.0, 1.0], size=n, p=[0.3, 0.7])
        ls.append(lp)
        inputs.append(x)
    return ls, inputs


def _assert_away_from_kinks(cfg: dict[str, Any], ls: list[F64], inputs: Inputs) -> None:
    """Finite differences are only meaningful where no clip/mask decision is within reach of eps."""
    p = next((v for v in cfg.values() if isinstance(v, dict)), {})
    for lp, x in zip(ls, inputs, strict=True):
        r = np.exp(lp - x["logprobs"])
        for key in ("clip_low_threshold", "clip_high_threshold"):
            if key in p:
                assert np.all(np.abs(r - p[key]) > 1e-4)
        dp = np.exp(lp) - np.exp(x["logprobs"])
        assert np.all(np.abs(np.abs(dp) - 0.15) > 1e-4)
        assert np.all(np.abs(np.abs(x["reference_logprobs"] - lp) - 10.0) > 1e-4)


def _fd_atol(loss: float) -> float:
    """Central differences with eps = 1e-6 carry a rounding error of about |L| * 1e-10."""
    return 1e-8 * max(1.0, abs(loss))


def _fd(f: Any, ls: list[F64], eps: float = 1e-6) -> list[F64]:
    out = []
    for i, lp in enumerate(ls):
        g = np.zeros_like(lp)
        for t in range(lp.size):
            up = [x.copy() for x in ls]
            down = [x.copy() for x in ls]
            up[i][t] += eps
            down[i][t] -= eps
            g[t] = (f(up) - f(down)) / (2 * eps)
        out.append(g)
    return out


# ------------------------------------------------------- (1) worked vectors, docs/losses.md §13

L13 = np.array([-1.0, -0.5, -2.0, -0.1])
Q13 = np.array([-1.2, -0.4, -1.0, -0.1])
A13 = np.array([1.0, 1.0, -1.0, -1.0])


@pytest.mark.parametrize(
    ("cfg", "value", "grad"),
    [
        (
            {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"},
            -0.758361,
            [-1.221403, -0.904837, 0.367879, 1.0],
        ),
        (
            {
                "type": "LOSS_TYPE_PPO",
                "ppo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
            },
            -0.304837,
            [0, -0.904837, 0, 1.0],
        ),
        (
            {
                "type": "LOSS_TYPE_CISPO",
                "cispo_params": {"clip_low_threshold": 0.0, "clip_high_threshold": 4.0},
            },
            0.838063,
            [-1.221403, -0.904837, 0.367879, 1.0],
        ),
        (
            {
                "type": "LOSS_TYPE_CISPO",
                "cispo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
            },
            -0.047581,
            [-1.2, -0.904837, 0.8, 1.0],
        ),
        (
            {"type": "LOSS_TYPE_DRO", "dro_params": {"beta": 0.05}},
            -0.573750,
            [-0.99, -1.005, 0.95, 1.0],
        ),
        (
            {"type": "LOSS_TYPE_DPPO", "dppo_params": {"delta_low": 0.15, "delta_high": 0.15}},
            -1.126240,
            [-1.221403, -0.904837, 0, 1.0],
        ),
    ],
)
def test_worked_vectors_single_sample(cfg: dict[str, Any], value: float, grad: list[float]) -> None:
    res = compute_loss(
        cfg, [L13.copy()], [{"target_tokens": np.zeros(4), "logprobs": Q13, "advantages": A13}]
    )
    assert res.loss == pytest.approx(value, abs=1e-5)
    np.testing.assert_allclose(res.dlogp[0], grad, rtol=0, atol=1e-5)
    np.testing.assert_array_equal(res.masks[0], np.ones(4))


def _grpo_two_samples() -> tuple[list[F64], Inputs]:
    ls = [np.array([-1.0, -0.5, -2.0]), np.array([-0.3, -0.7])]
    inputs = [
        {
            "logprobs": np.array([-1.2, -0.4, -1.0]),
            "advantages": np.ones(3),
            "reference_logprobs": np.array([-1.1, -0.6, -1.5]),
        },
        {
            "logprobs": np.array([-0.3, -0.2]),
            "advantages": -np.ones(2),
            "reference_logprobs": np.array([-0.4, -0.6]),
        },
    ]
    return ls, inputs


@pytest.mark.parametrize(
    ("agg", "value"),
    [
        ("TOKEN_MEAN", -0.135456),
        ("SEQUENCE_MEAN", 0.037204),
        ("FIXED_HORIZON", -0.112880),
        ("UNSPECIFIED", -0.112880),
        (None, -0.112880),
    ],
)
def test_worked_vectors_grpo(agg: str | None, value: float) -> None:
    ls, inputs = _grpo_two_samples()
    res = compute_loss(_grpo(agg, "TOKEN", 0.1, 0.8, 1.28), ls, inputs)
    assert res.loss == pytest.approx(value, abs=1e-5)
    expected = {
        "loss/ratio/mean": 0.820130,
        "loss/kl_policy/mean": 0.28,
        "loss/clip/clipped_ratio/mean": 0.945248,
        "loss/clip/high_fraction": 0.0,
        "loss/clip/low_fraction": 0.2,
        "loss/kl_ref/mean": 0.033681,
    }
    assert res.metrics.keys() == expected.keys()
    for k, v in expected.items():
        assert res.metrics[k] == pytest.approx(v, abs=1e-5), k
    # The per-token g of §13: one sample, one token kept by the mask, TOKEN_MEAN over that token.
    per_token = [[-1.220919, -0.904354, -0.353007], [1.000484, 0.800517]]
    for i, gs in enumerate(per_token):
        for t, g in enumerate(gs):
            x = {**inputs[i], "mask": np.eye(len(gs))[t]}
            one = compute_loss(_grpo("TOKEN_MEAN", "TOKEN", 0.1, 0.8, 1.28), [ls[i]], [x])
            assert one.loss == pytest.approx(g, abs=1e-6)


def test_worked_vectors_gspo_sequence_ratios() -> None:
    ls, inputs = _grpo_two_samples()
    res = compute_loss(_grpo("TOKEN_MEAN", "SEQUENCE", 0.0, 0.8, 1.28), ls, inputs)
    s1, s2 = 0.740818, 0.778801
    assert res.metrics["loss/ratio/mean"] == pytest.approx((3 * s1 + 2 * s2) / 5, abs=1e-6)
    assert res.metrics["loss/kl_policy/mean"] == pytest.approx(
        -(3 * math.log(s1) + 2 * math.log(s2)) / 5, abs=1e-6
    )
    # Sample 1: A > 0 and s1 <= hi, gradient -A·s1 per token; sample 2: A < 0 and s2 < lo, clipped.
    np.testing.assert_allclose(res.dlogp[0], [-s1 / 5] * 3, atol=1e-6)
    np.testing.assert_array_equal(res.dlogp[1], [0.0, 0.0])
    assert res.metrics["loss/clip/low_fraction"] == pytest.approx(0.4)
    assert "loss/kl_ref/mean" not in res.metrics


@pytest.mark.parametrize("kind", ["LOSS_TYPE_PPO", "LOSS_TYPE_GRPO"])
def test_xorl_clip_example(kind: str) -> None:
    key = "ppo_params" if kind == "LOSS_TYPE_PPO" else "grpo_params"
    params: dict[str, Any] = {"clip_low_threshold": 0.8, "clip_high_threshold": 1.28}
    if kind == "LOSS_TYPE_GRPO":
        params["agg_type"] = "GRPO_LOSS_AGGREGATION_TYPE_TOKEN_MEAN"
    cfg = {"type": kind, key: params}
    res = compute_loss(
        cfg, [np.array([math.log(1.5)])], [{"logprobs": np.zeros(1), "advantages": np.ones(1)}]
    )
    assert res.loss == pytest.approx(-1.28)
    assert res.dlogp[0][0] == 0.0
    assert res.metrics["loss/clip/high_fraction"] == 1.0


# ------------------------------------------------------- (2) gradients by finite differences


@pytest.mark.parametrize("mode", MASK_MODES)
@pytest.mark.parametrize("cfg", LOSS_CASES, ids=_case_id)
def test_gradient_matches_finite_differences(cfg: dict[str, Any], mode: str) -> None:
    lengths = [6, 1, 9, 4]
    # (a) The emulator's own loss value. With per-sample advantages this is exact for every loss but
    # CISPO, whose coefficient is detached (its value contains l itself): checked in (b) only.
    ls, inputs = _problem(11, lengths, mode, const_adv=True)
    _assert_away_from_kinks(cfg, ls, inputs)
    res = compute_loss(cfg, [x.copy() for x in ls], inputs)
    if cfg["type"] != "LOSS_TYPE_CISPO":
        fd = _fd(lambda xs: compute_loss(cfg, xs, inputs).loss, ls)
        for g, f in zip(res.dlogp, fd, strict=True):
            np.testing.assert_allclose(g, f, rtol=1e-6, atol=_fd_atol(res.loss))
    # (b) Per-token advantages, against the reference with detached quantities frozen.
    ls, inputs = _problem(12, lengths, mode)
    _assert_away_from_kinks(cfg, ls, inputs)
    res = compute_loss(cfg, [x.copy() for x in ls], inputs)
    base = [x.tolist() for x in ls]
    fd = _fd(lambda xs: reference(cfg, [x.tolist() for x in xs], inputs, frozen=base)[0], ls)
    for g, f in zip(res.dlogp, fd, strict=True):
        np.testing.assert_allclose(g, f, rtol=1e-6, atol=_fd_atol(res.loss))


# ------------------------------------------------------- (3) values and metrics vs the reference


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("mode", MASK_MODES)
@pytest.mark.parametrize("cfg", LOSS_CASES, ids=_case_id)
def test_value_and_metrics_match_reference(cfg: dict[str, Any], mode: str, seed: int) -> None:
    lengths = [[3, 17, 8, 1], [12, 5], [30, 2, 9, 9, 4]][seed]
    ls, inputs = _problem(100 + seed, lengths, mode)
    res = compute_loss(cfg, ls, inputs)
    value, metrics = reference(cfg, [x.tolist() for x in ls], inputs)
    assert res.loss == pytest.approx(value, rel=1e-12, abs=1e-12)
    assert res.metrics.keys() == metrics.keys()
    for k, v in metrics.items():
        assert res.metrics[k] == pytest.approx(v, rel=1e-12, abs=1e-12), k
    assert isinstance(res.loss, float) and all(isinstance(v, float) for v in res.metrics.values())


# ------------------------------------------------------- (4) masking


@pytest.mark.parametrize("mode", ["weights", "mask"])
@pytest.mark.parametrize("cfg", LOSS_CASES, ids=_case_id)
def test_masked_positions_have_exactly_zero_gradient(cfg: dict[str, Any], mode: str) -> None:
    ls, inputs = _problem(7, [5, 8, 3], mode)
    res = compute_loss(cfg, ls, inputs)
    for x, g, m in zip(inputs, res.dlogp, res.masks, strict=True):
        w = x[mode]
        np.testing.assert_array_equal(m, (w != 0).astype(np.float64))
        assert np.all(g[w == 0] == 0.0) and not np.any(np.signbit(g[w == 0]))
    # Garbage at masked slots (huge ratios, far-off references) changes nothing and yields no NaN.
    for x in inputs:
        off = x[mode] == 0
        x["logprobs"][off] = -1000.0
        x["reference_logprobs"][off] = 500.0
        x["advantages"][off] = 1e6
    res2 = compute_loss(cfg, ls, inputs)
    assert res2.loss == res.loss and res2.metrics == res.metrics
    for g, g2 in zip(res.dlogp, res2.dlogp, strict=True):
        np.testing.assert_array_equal(g, g2)


def test_cross_entropy_uses_fractional_weights() -> None:
    lp = np.array([-1.0, -2.0, -0.5])
    res = compute_loss(
        {"type": "LOSS_TYPE_CROSS_ENTROPY", "cross_entropy_params": {}},
        [lp],
        [{"target_tokens": np.zeros(3), "weights": np.array([0.5, 0.0, 2.0])}],
    )
    assert res.loss == pytest.approx(0.5 * 1.0 + 2.0 * 0.5)
    np.testing.assert_array_equal(res.dlogp[0], [-0.5, 0.0, -2.0])
    np.testing.assert_array_equal(res.masks[0], [1.0, 0.0, 1.0])
    assert res.metrics == {}


def test_policy_loss_binarises_weights() -> None:
    ls, inputs = _problem(3, [6, 4], "weights")
    binary = [{**x, "weights": (x["weights"] != 0).astype(np.float64)} for x in inputs]
    for cfg in LOSS_CASES[1:]:
        a, b = compute_loss(cfg, ls, inputs), compute_loss(cfg, ls, binary)
        assert a.loss == b.loss and a.metrics == b.metrics


def test_fully_masked_and_empty_requests() -> None:
    ls, inputs = _problem(5, [4, 2], "mask")
    for x in inputs:
        x["mask"][:] = 0.0
    for cfg in LOSS_CASES:
        for args in ((ls, inputs), ([], [])):
            res = compute_loss(cfg, *args)
            assert res.loss == 0.0
            assert all(v == 0.0 for v in res.metrics.values())
            assert all(not g.any() for g in res.dlogp)


# ------------------------------------------------------- defaults and config handling


def test_defaults_and_loss_types() -> None:
    assert LOSS_TYPES == (
        "LOSS_TYPE_CROSS_ENTROPY",
        "LOSS_TYPE_GRPO",
        "LOSS_TYPE_IMPORTANCE_SAMPLING",
        "LOSS_TYPE_PPO",
        "LOSS_TYPE_CISPO",
        "LOSS_TYPE_DRO",
        "LOSS_TYPE_DPPO",
    )
    assert DEFAULTS["grpo_params"] == {
        "clip_low_threshold": 0.8,
        "clip_high_threshold": 1.28,
        "beta": 0.0,
        "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON",
        "ratio_type": "GRPO_LOSS_RATIO_TYPE_TOKEN",
    }
    assert DEFAULTS["ppo_params"] == {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2}
    assert DEFAULTS["cispo_params"] == {"clip_low_threshold": 0.0, "clip_high_threshold": 4.0}
    assert DEFAULTS["dppo_params"] == {"delta_low": 0.15, "delta_high": 0.15}
    assert "beta" not in DEFAULTS["dro_params"]


@pytest.mark.parametrize(
    ("implicit", "explicit"),
    [
        (
            {"type": "LOSS_TYPE_GRPO"},
            {"type": "LOSS_TYPE_GRPO", "grpo_params": DEFAULTS["grpo_params"]},
        ),
        (
            {"type": "LOSS_TYPE_GRPO", "grpo_params": {"beta": None, "agg_type": None}},
            {"type": "LOSS_TYPE_GRPO", "grpo_params": DEFAULTS["grpo_params"]},
        ),
        (
            {"type": "LOSS_TYPE_PPO", "ppo_params": {}},
            {"type": "LOSS_TYPE_PPO", "ppo_params": DEFAULTS["ppo_params"]},
        ),
        (
            {"type": "LOSS_TYPE_CISPO"},
            {"type": "LOSS_TYPE_CISPO", "cispo_params": DEFAULTS["cispo_params"]},
        ),
        (
            {"type": "LOSS_TYPE_DPPO"},
            {"type": "LOSS_TYPE_DPPO", "dppo_params": DEFAULTS["dppo_params"]},
        ),
    ],
)
def test_absent_params_take_defaults(implicit: dict[str, Any], explicit: dict[str, Any]) -> None:
    ls, inputs = _problem(9, [7, 3], "none")
    a, b = compute_loss(implicit, ls, inputs), compute_loss(explicit, ls, inputs)
    assert a.loss == b.loss and a.metrics == b.metrics


def test_bad_configs_raise() -> None:
    ls, inputs = _problem(9, [3], "none")
    del inputs[0]["reference_logprobs"]
    for cfg in (
        {"type": "LOSS_TYPE_UNSPECIFIED"},
        {"type": "ppo"},
        {},
        {"type": "LOSS_TYPE_DRO"},
        {"type": "LOSS_TYPE_DRO", "dro_params": {}},
        _grpo("TOKEN_MEAN", "TOKEN", 0.1),
    ):
        with pytest.raises(ValueError):
            compute_loss(cfg, ls, inputs)
    # beta = 0 ignores missing reference_logprobs
    compute_loss(_grpo("TOKEN_MEAN", "TOKEN", 0.0), ls, inputs)
