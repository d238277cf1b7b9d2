"""contract_tests/together_rl_contract_tests/vectors/*.json are what `python -m
together_rl_contract_tests.vectors` generates now (exact data equal, floats within the vectors'
tolerance), and the loss values they publish to ports agree with the independent loss reference (so
a wrong emulator loss cannot be recorded into the vectors unnoticed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from together_rl_contract_tests import _loss_reference as ref
from together_rl_contract_tests.vectors import compare_files, generate_all

LOSS_VECTORS = Path(ref.__file__).parent / "vectors" / "losses.json"


def test_vectors_are_fresh() -> None:
    """Exact data equal, floats within the stated tolerance (whatever the BLAS kernel)."""
    comparisons = compare_files(generate_all())
    stale = {name: c.differences for name, c in comparisons.items() if not c.agree}
    assert not stale, (
        f"stale vectors {stale}: run `make vectors` (python -m together_rl_contract_tests.vectors)"
    )


def _loss_cases() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = json.loads(LOSS_VECTORS.read_text())
    return cases


@pytest.mark.parametrize("case", _loss_cases(), ids=lambda case: str(case["name"]))
def test_published_losses_match_the_reference(case: dict[str, Any]) -> None:
    body = case["steps"][0]["request"]["body"]
    output = case["steps"][-1]["response"]["body"]["output"]
    returned = [out["tensors"]["logprobs"]["data"] for out in output["loss_fn_outputs"]]
    assert len(returned) == len(body["samples"]), case["name"]
    expected = ref.reference_loss(
        body["loss"]["type"], ref.sample_inputs(body, returned), body["loss"]
    )
    assert ref.matches(float(output["loss"]), expected), (case["name"], output["loss"], expected)
