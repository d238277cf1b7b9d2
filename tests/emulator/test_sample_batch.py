"""The vectorised check of a batch's samples (`_sample_batch.py`) agrees with checking each sample
alone: on generated bodies, good and bad, both refuse with the same status, field and message
(the same first bad sample), or both accept with the same arrays. The JSON Schema check in
blocks of samples (`_schema_blocks.py`) says valid exactly when the whole-body check does."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest
from _emulator_bodies import LOSS_TYPES, fb_body
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from together_rl_emulator.base._errors import ApiError
from together_rl_emulator.checking import _requests
from together_rl_emulator.checking._requests import validate_forward_backward
from together_rl_emulator.checking._sample_batch import checked_in_bulk
from together_rl_emulator.checking._schema_blocks import valid_in_blocks
from together_rl_emulator.checking._validation import validate_schema

VOCAB = 1_024

_TOKENS = st.sampled_from([0, VOCAB - 1, VOCAB, -1, 2**63, 2**64, 3.0, "7", "2000", 5])
_NUMBERS = st.sampled_from(
    [0, 1, -1, 2.5, -0.5, -0.0, VOCAB, VOCAB - 1, 2**62, 2**63 - 1, 2**63, -(2**63),
     -(2**63) - 1, 10**400, 3.4e38, 3.5e38, 1e300, float("nan"), float("inf")]
)  # fmt: skip
_KEYS = st.sampled_from(["target_tokens", "weights", "mask", "logprobs", "advantages", "extra"])


_MUTATIONS = ("token", "value", "value", "value", "drop", "add", "dtype", "shape", "sparse")
_MUTATIONS += ("longer", "chunks")


@st.composite
def _mutation(draw: st.DrawFn) -> tuple[str, int, Any]:
    what = draw(st.sampled_from(_MUTATIONS))
    values = {"token": _TOKENS, "value": _NUMBERS, "add": _KEYS}.get(what, st.none())
    return what, draw(st.integers(0, 10)), draw(values)


def _mutate(body: dict[str, Any], what: str, at: int, value: Any) -> None:
    samples = body["samples"]
    sample = samples[at % len(samples)]
    tokens = sample["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    inputs = sample["loss_fn_inputs"]
    key = sorted(inputs)[at % len(inputs)] if inputs else None
    length = len(tokens)
    if what == "token" and tokens:
        tokens[at % length] = value
    elif what == "value" and key is not None and inputs[key]["data"]:
        inputs[key]["data"][at % len(inputs[key]["data"])] = value
    elif what == "drop" and key is not None:
        del inputs[key]
    elif what == "add":
        dtype = "int64" if value in ("target_tokens", "mask") else "float32"
        inputs[value] = {"data": [1] * length, "dtype": dtype}
    elif what == "dtype" and key is not None:
        inputs[key]["dtype"] = "float32" if inputs[key]["dtype"] == "int64" else "int64"
    elif what == "shape" and key is not None:
        inputs[key]["shape"] = [[length], [length + 1], [1, length]][at % 3]
    elif what == "sparse" and key is not None:
        inputs[key]["sparse_col_indices"] = [0]
    elif what == "longer" and key is not None:
        inputs[key]["data"].append(1)
    elif what == "chunks":
        cut = at % (length + 1)
        sample["model_input"]["chunks"] = [
            {"encoded_text": {"tokens": tokens[:cut]}},
            {"encoded_text": {"tokens": tokens[cut:]}},
        ]


def _outcome(body: dict[str, Any], vectorised: bool) -> Any:
    with pytest.MonkeyPatch.context() as patch:
        if not vectorised:
            patch.setattr(_requests, "checked_in_bulk", lambda *args: None)
        try:
            request = validate_forward_backward(copy.deepcopy(body), VOCAB)
        except ApiError as error:
            return ("refused", error.status, error.param, error.message, error.emulator_rule)
    return [
        (
            s.tokens.dtype.str,
            s.tokens.tolist(),
            s.targets.dtype.str,
            s.targets.tolist(),
            [(k, v.dtype.str, v.tolist()) for k, v in s.inputs.items()],
            s.routed_experts_key,
        )
        for s in request.samples
    ]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    loss_type=st.sampled_from([LOSS_TYPES[0], *LOSS_TYPES]),  # cross-entropy has weights
    n_samples=st.integers(1, 5),
    length=st.integers(1, 4),
    seed=st.integers(0, 3),
    mutations=st.lists(_mutation(), max_size=3),
)
def test_vectorised_and_per_sample_checks_agree(
    loss_type: str, n_samples: int, length: int, seed: int, mutations: list[tuple[str, int, Any]]
) -> None:
    body = fb_body(loss_type, n_samples=n_samples, length=length, seed=seed)
    for mutation in mutations:
        _mutate(body, *mutation)
    assert _outcome(body, vectorised=True) == _outcome(body, vectorised=False)
    try:
        validate_schema("ForwardBackwardBody", body)
        schema_valid = True
    except ApiError:
        schema_valid = False
    assert valid_in_blocks("ForwardBackwardBody", body, "samples", block=2) == schema_valid


def test_a_clean_batch_is_checked_without_the_per_sample_checks() -> None:
    body = fb_body("LOSS_TYPE_GRPO", n_samples=50, length=6)
    body["samples"][37]["loss_fn_inputs"]["target_tokens"]["data"][2] = VOCAB
    checked = checked_in_bulk(body["samples"], VOCAB, lambda keys: True, lambda key, dtype: True)
    assert checked is not None
    assert [i for i, arrays in enumerate(checked) if arrays is None] == [37]
    tokens, targets, inputs = checked[0]
    assert (
        tokens.tolist() == body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    )
    assert targets.dtype == np.int64
    assert list(inputs) == list(body["samples"][0]["loss_fn_inputs"])
