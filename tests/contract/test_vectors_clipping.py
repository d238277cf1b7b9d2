"""The loss vectors published to ports exercise clipping, on both sides of every clipped loss.

If every importance ratio sat far below the band, a loss that used one bound for both sides would
publish values the reference still agrees with. So for PPO, CISPO, DPPO and GRPO (with each ratio
type), some vector has a masked-in token (for the GSPO sequence ratio, a sample) where clipping
changes the loss below the band, one where it does so above it, and one inside it. Ratios come from
the vectors alone: the sampler log-probs sent and the policy log-probs returned.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from together_rl_contract_tests import _loss_reference as ref
from together_rl_contract_tests._spec import PARAMS_KEYS

LOSS_VECTORS = Path(ref.__file__).parent / "vectors" / "losses.json"
GRPO_SEQUENCE = f"{ref.GRPO} with {ref.SEQUENCE_RATIO}"
CLIPPED_MODES = (ref.PPO, ref.CISPO, ref.DPPO, ref.GRPO, GRPO_SEQUENCE)
#: How far a sampler log-prob may sit from the policy's (ratios within e^-2 .. e^2).
NEAR = 2.0


def _cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(LOSS_VECTORS.read_text())
    return [case for case in cases if case["steps"][-1]["response"]["status"] == 200]


def _request(case: dict[str, Any]) -> tuple[dict[str, Any], list[ref.SampleInputs]]:
    body: dict[str, Any] = case["steps"][0]["request"]["body"]
    output = case["steps"][-1]["response"]["body"]["output"]
    returned = [out["tensors"]["logprobs"]["data"] for out in output["loss_fn_outputs"]]
    return body, ref.sample_inputs(body, returned)


def _mode_and_params(body: dict[str, Any]) -> tuple[str, dict[str, float]]:
    loss_type = body["loss"]["type"]
    given = body["loss"].get(PARAMS_KEYS.get(loss_type, ""), {})
    mode = loss_type
    if loss_type == ref.GRPO and given.get("ratio_type") == ref.SEQUENCE_RATIO:
        mode = GRPO_SEQUENCE
    return mode, ref.resolved_params(loss_type, given)


def _sides(mode: str, s: ref.SampleInputs, params: dict[str, float]) -> set[str]:
    """Where the masked-in tokens of ``s`` fall: "below"/"above" only where clipping bites."""
    assert s.sampler is not None and s.advantages is not None
    ell, q, a, m = s.logprobs, s.sampler, s.advantages, s.mask != 0
    if mode == ref.DPPO:
        dp = np.exp(ell) - np.exp(q)
        below = m & (a < 0) & (dp < -params["delta_low"])
        above = m & (a > 0) & (dp > params["delta_high"])
        inside = m & (a != 0) & ~below & ~above
    else:
        ratio = np.exp(ell - q)
        if mode == GRPO_SEQUENCE:
            ratio = np.full_like(ell, math.exp(float((ell - q)[m].mean())))
        lo, hi = params["clip_low_threshold"], params["clip_high_threshold"]
        # PPO and GRPO take the pessimistic min: the clip bites for A < 0 below, A > 0 above.
        # CISPO clips the detached weight itself, whatever the sign of A.
        low_sign = (a != 0) if mode == ref.CISPO else (a < 0)
        high_sign = (a != 0) if mode == ref.CISPO else (a > 0)
        below = m & low_sign & (ratio < lo)
        above = m & high_sign & (ratio > hi)
        inside = m & (a != 0) & (ratio >= lo) & (ratio <= hi)
    return {
        side for side, hit in (("below", below), ("inside", inside), ("above", above)) if hit.any()
    }


def _coverage() -> dict[str, dict[str, list[str]]]:
    """Per clipped mode, per side, the vectors that have a token there."""
    coverage: dict[str, dict[str, list[str]]] = {mode: {} for mode in CLIPPED_MODES}
    for case in _cases():
        body, samples = _request(case)
        mode, params = _mode_and_params(body)
        if mode not in coverage:
            continue
        for s in samples:
            for side in _sides(mode, s, params):
                coverage[mode].setdefault(side, []).append(case["name"])
    return coverage


@pytest.mark.parametrize("mode", CLIPPED_MODES)
def test_every_clipped_loss_clips_below_and_above_its_band(mode: str) -> None:
    sides = _coverage()[mode]
    assert {"below", "inside", "above"} <= set(sides), (mode, sides)


@pytest.mark.parametrize("case", _cases(), ids=lambda case: str(case["name"]))
def test_sampler_logprobs_sit_near_the_policy(case: dict[str, Any]) -> None:
    _, samples = _request(case)
    for s in samples:
        if s.sampler is None:
            continue
        m = s.mask != 0
        gap = np.abs(s.logprobs - s.sampler)[m]
        assert (gap <= NEAR).all(), (case["name"], gap.max())
        if s.reference is not None:
            assert (np.abs(s.reference - s.logprobs)[m] <= NEAR).all(), case["name"]
