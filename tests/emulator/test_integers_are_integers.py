"""Integers are integers: an integer field refuses a number written with a fraction or exponent
(`3600.0`, `1e300`, which JSON Schema counts as integers) and an int64 decimal string outside
int64, with a 400 naming the field; no answer carries a non-finite number."""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest
from _checkpoint_helpers import RESOURCES, new_resources, new_session_on, submit_kind
from _emulator_bodies import TINY, fb_body
from _operation_kind_bodies import sample_body

EMULATOR_NOTE = "a rule of this emulator"
REPLICAS = "num_generator_replicas"


def _refused(r: httpx.Response, param: str) -> None:
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["param"] == param, error
    assert EMULATOR_NOTE in error["message"]


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"inactive_timeout": 3600.0}, "inactive_timeout"),
        ({"inactive_timeout": 3.6e3}, "inactive_timeout"),
        ({"compute_config": {"num_generator_replicas": 1e300}}, f"compute_config.{REPLICAS}"),
        ({"compute_config": {"num_generator_replicas": 1.0}}, f"compute_config.{REPLICAS}"),
    ],
)  # fmt: skip
def test_model_resources_refuse_float_integers(
    emulator_client: httpx.Client, fields: dict[str, Any], param: str
) -> None:
    c = emulator_client
    _refused(c.post(RESOURCES, json={"base_model": TINY, **fields}), param)
    _refused(c.post(f"{RESOURCES}/estimate-cost", json={"base_model": TINY, **fields}), param)
    assert c.get(RESOURCES).json()["data"] == []  # nothing stored


def test_extend_expiry_refuses_a_float(emulator_client: httpx.Client) -> None:
    c = emulator_client
    resources = new_resources(c)["id"]
    _refused(c.post(f"{RESOURCES}/{resources}/extend-expiry", json={"seconds": 600.0}), "seconds")


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"max_tokens": 4, "seed": "9223372036854775808"}, "sampling_params.seed"),
        ({"max_tokens": 4, "seed": "-9223372036854775809"}, "sampling_params.seed"),
        ({"max_tokens": 4, "seed": 7.0}, "sampling_params.seed"),
        ({"max_tokens": 4.0}, "sampling_params.max_tokens"),
    ],
)
def test_sample_refuses_float_and_out_of_range_integers(
    emulator_client: httpx.Client, params: dict[str, Any], param: str
) -> None:
    c = emulator_client
    session = new_session_on(c, new_resources(c)["id"])["id"]
    _refused(submit_kind(c, session, "sample", sample_body([1, 2], **params), "k"), param)
    largest = sample_body([1, 2], max_tokens=4, seed="9223372036854775807")
    ok = submit_kind(c, session, "sample", largest, "k2")
    assert ok.status_code == 200, ok.text


def test_a_token_written_as_a_float_is_refused(emulator_client: httpx.Client) -> None:
    c = emulator_client
    session = new_session_on(c, new_resources(c)["id"])["id"]
    body = fb_body(length=4)
    body["samples"][0]["model_input"]["chunks"][0]["encoded_text"]["tokens"][2] = 5.0
    r = submit_kind(c, session, "forward-backward", body, "k")
    _refused(r, "samples[0].model_input.chunks[0].encoded_text.tokens[2]")


ESTIMATE = {
    "base_model": "Qwen/Qwen3-8B", "episodes": 10_000_000, "concurrency": 1, "turns": 1024,
    "prompt_tokens": 2**63 - 1, "added_tokens_per_turn": 2**63 - 1,
    "generated_tokens_per_turn": 2**63 - 1,
}  # fmt: skip


@pytest.mark.parametrize("field", ["concurrency", "prompt_tokens", "generated_tokens_per_turn"])
def test_rollout_estimates_refuse_floats(emulator_client: httpx.Client, field: str) -> None:
    r = emulator_client.post("/v1/rl/rollouts/estimate", json={**ESTIMATE, field: 1e300})
    _refused(r, field)


def test_rollout_estimates_of_the_largest_integers_are_finite(
    emulator_client: httpx.Client,
) -> None:
    r = emulator_client.post("/v1/rl/rollouts/estimate", json=ESTIMATE)
    if r.status_code == 200:
        numbers = [v for v in r.json().values() if isinstance(v, int | float)]
        assert numbers and all(math.isfinite(v) for v in numbers)
    else:
        assert r.status_code == 400, r.text
