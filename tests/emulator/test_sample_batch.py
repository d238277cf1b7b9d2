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
from _sample_mutations import mutate, mutation
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from together_rl_emulator.base._errors import ApiError
from together_rl_emulator.checking import _requests
from together_rl_emulator.checking._requests import validate_forward_backward
from together_rl_emulator.checking._sample_batch import checked_in_bulk, reduce_ok
from together_rl_emulator.checking._schema_blocks import valid_in_blocks
from together_rl_emulator.checking._validation import validate_schema

VOCAB = 1_024


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
    mutations=st.lists(mutation(), max_size=3),
)
def test_vectorised_and_per_sample_checks_agree(
    loss_type: str, n_samples: int, length: int, seed: int, mutations: list[tuple[str, int, Any]]
) -> None:
    body = fb_body(loss_type, n_samples=n_samples, length=length, seed=seed)
    for change in mutations:
        mutate(body, *change)
    assert _outcome(body, vectorised=True) == _outcome(body, vectorised=False)
    try:
        validate_schema("ForwardBackwardBody", body)
        schema_valid = True
    except ApiError:
        schema_valid = False
    assert valid_in_blocks("ForwardBackwardBody", body, "samples", block=2) == schema_valid


def test_decimal_string_ids_are_checked_in_bulk() -> None:
    """Token ids written as decimal strings (the schema's other form) are read in the one
    vectorised pass, as ints; one beyond int64 leaves the batch to the per-sample checks."""
    body = fb_body("LOSS_TYPE_GRPO", n_samples=5, length=3)
    for sample in body["samples"]:
        chunk = sample["model_input"]["chunks"][0]["encoded_text"]
        chunk["tokens"] = [str(t) for t in chunk["tokens"]]
    tokens = body["samples"][3]["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    tokens[1] = str(VOCAB)
    checked = checked_in_bulk(body["samples"], VOCAB, lambda keys: True, lambda key, dtype: True)
    assert checked is not None and [i for i, a in enumerate(checked) if a is None] == [3]
    assert checked[0][0].tolist() == [
        int(t) for t in body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"]
    ]
    tokens[1] = "9" * 19
    assert checked_in_bulk(body["samples"], VOCAB, lambda k: True, lambda k, d: True) is None


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


def test_a_sample_before_one_without_tensors_keeps_its_bad_value() -> None:
    """The bulk pass reduces per-tensor results to samples; a last sample with no tensors must
    not take the tensor before it (a float32 overflow in samples[1] went unseen)."""
    body = fb_body("LOSS_TYPE_CROSS_ENTROPY", n_samples=3, length=1, seed=0)
    body["samples"][1]["loss_fn_inputs"]["weights"]["data"] = [3.5e38]
    body["samples"][2]["loss_fn_inputs"] = {}
    outcome = _outcome(body, vectorised=True)
    assert outcome == _outcome(body, vectorised=False)
    assert outcome[2] == "samples[1].loss_fn_inputs.weights"


@given(st.lists(st.lists(st.booleans(), max_size=3), max_size=6))
def test_reducing_over_ranges_matches_all_of_each(ranges: list[list[bool]]) -> None:
    ok = np.asarray([value for each in ranges for value in each], dtype=bool)
    bounds = np.cumsum([0, *map(len, ranges)])
    assert reduce_ok(ok, bounds).tolist() == [all(each) for each in ranges]
