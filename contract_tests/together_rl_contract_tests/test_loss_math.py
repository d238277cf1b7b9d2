"""Loss-math conformance: forward-only passes, recomputed with ``_loss_reference``.

For every loss type and GRPO mode: a first cross-entropy pass reads the current log-probs ℓ of
two samples of different lengths; the sampler log-probs are then chosen as q = ℓ − log r for
chosen ratios r (some beyond 1.2 and 1.28, so clip bounds matter), the pass is submitted with
``forward_only`` and ``return_loss_fn_outputs``, and the returned loss is compared with the loss
recomputed from the returned log-probs and the request's inputs. Against the emulator the
project's definition must match; against another server the report records which candidate
definition (sum, token-mean, sample-mean, fixed-horizon denominators, GRPO default clips) matched.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from together_rl_contract_tests import _loss_reference as ref
from together_rl_contract_tests._http import COMPLETED, TargetClient
from together_rl_contract_tests._spec import enum_values

FB = "POST /rl/training-sessions/{session_id}/operations/forward-backward"
TOKENS = ([5, 17, 254, 981], [3, 640, 12, 77, 150, 9])  # (prompt+response); model_input = [:-1]
RATIOS = ([1.5, 0.6, 1.0], [1.25, 0.9, 1.1, 0.5, 1.3])
ADVANTAGES = ([1.0, -1.0, 1.0], [1.0, -1.0, -1.0, 1.0, 1.0])
MASKS = ([1, 1, 1], [1, 1, 0, 1, 1])
CE_WEIGHTS = ([0.5, 1.0, 1.0], [1.0, 0.0, 2.0, 1.0, 1.0])
REFERENCE_SHIFT = ([0.1, -0.2, 0.05], [0.3, -0.1, 0.0, 0.2, -0.3])

#: Every aggregation and ratio type of the spec (UNSPECIFIED included: it means FIXED_HORIZON).
GRPO_AGGS = enum_values("GRPOLossAggregationType")
GRPO_RATIOS = enum_values("GRPOLossRatioType")

CASES: list[tuple[str, dict[str, Any]]] = [
    ("cross_entropy", {"type": "LOSS_TYPE_CROSS_ENTROPY"}),
    ("importance_sampling", {"type": "LOSS_TYPE_IMPORTANCE_SAMPLING"}),
    ("ppo", {"type": "LOSS_TYPE_PPO", "ppo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2}}),  # noqa: E501
    ("ppo_defaults", {"type": "LOSS_TYPE_PPO"}),
    ("cispo", {"type": "LOSS_TYPE_CISPO", "cispo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2}}),  # noqa: E501
    ("cispo_defaults", {"type": "LOSS_TYPE_CISPO"}),
    ("dro", {"type": "LOSS_TYPE_DRO", "dro_params": {"beta": 0.05}}),
    ("dppo", {"type": "LOSS_TYPE_DPPO", "dppo_params": {"delta_low": 0.1, "delta_high": 0.2}}),
    ("dppo_defaults", {"type": "LOSS_TYPE_DPPO"}),
    ("grpo_default_clips", {"type": "LOSS_TYPE_GRPO"}),
] + [
    (
        f"grpo_{agg.rsplit('_TYPE_', 1)[1].lower()}_{ratio.rsplit('_TYPE_', 1)[1].lower()}_beta{beta}",  # noqa: E501
        {
            "type": "LOSS_TYPE_GRPO",
            "grpo_params": {
                "clip_low_threshold": 0.8,
                "clip_high_threshold": 1.28,
                "beta": beta,
                "agg_type": agg,
                "ratio_type": ratio,
            },
        },
    )
    for agg in GRPO_AGGS
    for ratio in GRPO_RATIOS
    for beta in (0.0, 0.1)
]  # fmt: skip


def _tensor(values: list[float], dtype: str = "float32") -> dict[str, Any]:
    return {"data": values, "dtype": dtype}


def _model_input(tokens: list[int]) -> dict[str, Any]:
    return {"chunks": [{"encoded_text": {"tokens": tokens[:-1]}}]}


@pytest.fixture(scope="module")
def current_logprobs(client: TargetClient, session_id: str) -> list[list[float]]:
    """ℓ for every slot of both samples, read with a forward-only cross-entropy pass."""
    body = {
        "samples": [
            {
                "model_input": _model_input(tokens),
                "loss_fn_inputs": {
                    "target_tokens": _tensor([float(t) for t in tokens[1:]], "int64"),
                    "weights": _tensor([1.0] * (len(tokens) - 1)),
                },
            }
            for tokens in TOKENS
        ],
        "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"},
        "forward_only": True,
        "return_loss_fn_outputs": True,
    }
    operation = client.run_forward_backward(session_id, body)
    assert operation["status"] == COMPLETED, operation
    return [out["tensors"]["logprobs"]["data"] for out in operation["output"]["loss_fn_outputs"]]


def _request(loss: dict[str, Any], ell: list[list[float]]) -> dict[str, Any]:
    samples = []
    for i, tokens in enumerate(TOKENS):
        inputs: dict[str, Any] = {"target_tokens": _tensor([t for t in tokens[1:]], "int64")}
        if loss["type"] == "LOSS_TYPE_CROSS_ENTROPY":
            inputs["weights"] = _tensor(CE_WEIGHTS[i])
        else:
            inputs["logprobs"] = _tensor(
                [lp - math.log(r) for lp, r in zip(ell[i], RATIOS[i], strict=True)]
            )
            inputs["advantages"] = _tensor(ADVANTAGES[i])
            inputs["mask"] = _tensor([float(m) for m in MASKS[i]], "int64")
            if loss.get("grpo_params", {}).get("beta", 0) > 0:
                inputs["reference_logprobs"] = _tensor(
                    [lp + d for lp, d in zip(ell[i], REFERENCE_SHIFT[i], strict=True)]
                )
        samples.append({"model_input": _model_input(tokens), "loss_fn_inputs": inputs})
    return {"samples": samples, "loss": loss, "forward_only": True, "return_loss_fn_outputs": True}


@pytest.mark.operation(FB)
@pytest.mark.parametrize(("name", "loss"), CASES, ids=[name for name, _ in CASES])
def test_loss_matches_definition(
    name: str,
    loss: dict[str, Any],
    client: TargetClient,
    session_id: str,
    current_logprobs: list[list[float]],
    findings: list[str],
) -> None:
    body = _request(loss, current_logprobs)
    operation = client.run_forward_backward(session_id, body)
    assert operation["status"] == COMPLETED, operation
    output = operation["output"]
    returned = [out["tensors"]["logprobs"]["data"] for out in output["loss_fn_outputs"]]
    samples = ref.sample_inputs(body, returned)
    for sample, ell, probe in zip(samples, returned, current_logprobs, strict=True):
        for m, value, before in zip(sample.mask, ell, probe, strict=True):
            if m == 0:
                assert value == 0.0, "an excluded position must report exactly 0.0"
            else:
                assert math.isclose(value, before, rel_tol=1e-5, abs_tol=1e-6), (
                    "a forward-only pass must not change the policy"
                )
    observed = float(output["loss"])
    expected = ref.reference_loss(loss["type"], samples, loss)
    candidates = ref.candidate_losses(loss["type"], samples, loss)
    matched = [label for label, value in candidates.items() if ref.matches(observed, value)]
    findings.append(
        f"loss {name}: server {observed:.6g}; project definition {expected:.6g}; "
        f"matches: {', '.join(matched) or 'none of the candidates'}"
    )
    if client.target.is_emulator:
        assert ref.matches(observed, expected), (
            f"{name}: loss {observed} != reference {expected} (candidates: {candidates})"
        )
    else:
        assert matched, f"{name}: loss {observed} matches no candidate definition: {candidates}"
