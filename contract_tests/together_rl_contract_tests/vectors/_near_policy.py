"""Sampler and reference log-probs near the policy's own, so that the loss vectors clip.

The spec's examples carry sampler log-probs near -1, while the emulator's policy gives about -6.9:
every importance ratio r = exp(l - q) would be about 0.002, below every clip band, and a loss that
mixed up its bounds would still publish a value the reference agrees with. So the generator reads
the policy's log-probs l from a forward-only pass, then sends q = l - d and ref = l + o with
deterministic log-ratios d (ratio e^d) and offsets o.

The PPO, CISPO and DPPO examples have only non-negative advantages, and CISPO's has a lower
bound of 0, so :func:`clip_band_bodies` adds one request per clipped loss with advantages of both
signs and ratios below, inside and above the band: clipping changes the loss on both sides (PPO
and GRPO clip a positive advantage above the band and a negative one below it; CISPO clips
either; DPPO drops a positive advantage whose probability rose more than ``delta_high`` and a
negative one whose probability fell more than ``delta_low``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from together_rl_contract_tests._spec import enum_value

__all__ = [
    "CLIP_BAND_SOURCE",
    "LOG_RATIOS",
    "REFERENCE_OFFSETS",
    "clip_band_bodies",
    "cycled_log_ratios",
    "near_policy",
    "probe_body",
]

#: Log-ratios d = l - q given to the tokens of an example, cycling by position: ratios of about
#: 2.0, 0.90, 0.50, 1.1 and 4.95. The examples mask in positions 2-4 (ratios 0.50, 1.1, 4.95):
#: below, inside and above the PPO and GRPO bands, and above CISPO's default bound 4.
LOG_RATIOS = (0.7, -0.1, -0.7, 0.1, 1.6)
#: Offsets o = ref - l of the reference log-probs, cycling by position: a moderate KL penalty.
REFERENCE_OFFSETS = (0.3, -0.2, 0.1, -0.4, 0.2)

CLIP_BAND_SOURCE = "contract_tests/together_rl_contract_tests/vectors/_near_policy.py"

# (tokens of model_input + the last target, advantages, log-ratios d) per sample. The first sample
# has every (sign of A, side of the band) pair at the token level; with the GSPO sequence ratio
# (the mean of d) it sits inside the band while the second is above it with A > 0 and the third
# below it with A < 0. For DPPO the policy's probabilities are about e^-6.9 = 0.001, so d = 0.7
# raises a probability by about 0.0005, d = 0.4 by 0.0003, d = -0.4 lowers it by 0.0005 and
# d = -0.7 by 0.001: the deltas below put 0.7 and -0.7 outside, 0.4 and -0.4 inside.
_CLIP_BAND_SAMPLES: tuple[tuple[tuple[int, ...], tuple[float, ...], tuple[float, ...]], ...] = (
    (
        (17, 254, 981, 3, 640, 12, 99, 305, 41),
        (1.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, -1.0),
        (-0.7, 0.1, 0.4, 0.7, -0.7, -0.4, -0.1, 0.7),
    ),
    ((5, 6, 7, 8), (1.0, 1.0, 1.0), (0.7, 0.1, 0.7)),
    ((23, 37, 41, 53), (-1.0, -1.0, -1.0), (-0.7, -0.1, -0.7)),
)

_GRPO = enum_value("LossType", "GRPO")
_CLIP_BAND_LOSSES: dict[str, dict[str, Any]] = {
    "ppo": {
        "type": enum_value("LossType", "PPO"),
        "ppo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
    },
    "grpo_token_ratio": {
        "type": _GRPO,
        "grpo_params": {
            "clip_low_threshold": 0.8,
            "clip_high_threshold": 1.28,
            "agg_type": enum_value("GRPOLossAggregationType", "TOKEN_MEAN"),
            "ratio_type": enum_value("GRPOLossRatioType", "TOKEN"),
        },
    },
    "grpo_sequence_ratio_beta": {
        "type": _GRPO,
        "grpo_params": {
            "clip_low_threshold": 0.8,
            "clip_high_threshold": 1.28,
            "beta": 0.1,
            "agg_type": enum_value("GRPOLossAggregationType", "SEQUENCE_MEAN"),
            "ratio_type": enum_value("GRPOLossRatioType", "SEQUENCE"),
        },
    },
    "cispo": {
        "type": enum_value("LossType", "CISPO"),
        "cispo_params": {"clip_low_threshold": 0.8, "clip_high_threshold": 1.2},
    },
    "dppo": {
        "type": enum_value("LossType", "DPPO"),
        "dppo_params": {"delta_low": 0.0007, "delta_high": 0.0004},
    },
}


def _tensor(values: Sequence[float], dtype: str) -> dict[str, Any]:
    return {"data": list(values), "dtype": dtype}


def clip_band_bodies() -> dict[str, tuple[dict[str, Any], list[list[float]]]]:
    """Per name, a forward-only body (sampler log-probs still to fill) and its log-ratios."""
    out = {}
    for name, loss in _CLIP_BAND_LOSSES.items():
        samples = []
        for tokens, advantages, _ in _CLIP_BAND_SAMPLES:
            inputs = {
                "target_tokens": _tensor(tokens[1:], "int64"),
                "logprobs": _tensor([0.0] * len(advantages), "float32"),
                "advantages": _tensor(advantages, "float32"),
                "mask": _tensor([1] * len(advantages), "int64"),
            }
            if loss.get("grpo_params", {}).get("beta", 0.0) > 0:
                inputs["reference_logprobs"] = _tensor([0.0] * len(advantages), "float32")
            samples.append(
                {
                    "model_input": {"chunks": [{"encoded_text": {"tokens": list(tokens[:-1])}}]},
                    "loss_fn_inputs": inputs,
                }
            )
        body = {
            "samples": samples,
            "loss": copy.deepcopy(loss),
            "forward_only": True,
            "return_loss_fn_outputs": True,
        }
        out[f"clip_band.{name}"] = (body, [list(d) for _, _, d in _CLIP_BAND_SAMPLES])
    return out


def probe_body(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` forward-only with every position masked in, so the policy reports all its l."""
    probe = copy.deepcopy(body)
    probe["forward_only"] = True
    probe["return_loss_fn_outputs"] = True
    for sample in probe["samples"]:
        inputs = sample["loss_fn_inputs"]
        inputs.pop("mask", None)
        inputs.pop("weights", None)
    return probe


def cycled_log_ratios(body: dict[str, Any]) -> list[list[float]]:
    """:data:`LOG_RATIOS` cycled over the positions of each sample of ``body``."""
    return [
        [
            LOG_RATIOS[t % len(LOG_RATIOS)]
            for t in range(len(s["loss_fn_inputs"]["logprobs"]["data"]))
        ]
        for s in body["samples"]
    ]


def near_policy(
    body: dict[str, Any], policy: Sequence[Sequence[float]], log_ratios: Sequence[Sequence[float]]
) -> dict[str, Any]:
    """``body`` with q = l - d and (where present) ref = l + o, from the policy's log-probs l."""
    out = copy.deepcopy(body)
    for sample, ell, ratios in zip(out["samples"], policy, log_ratios, strict=True):
        inputs = sample["loss_fn_inputs"]
        inputs["logprobs"]["data"] = [round(lp - d, 6) for lp, d in zip(ell, ratios, strict=True)]
        if "reference_logprobs" in inputs:
            inputs["reference_logprobs"]["data"] = [
                round(lp + REFERENCE_OFFSETS[t % len(REFERENCE_OFFSETS)], 6)
                for t, lp in enumerate(ell)
            ]
    return out
