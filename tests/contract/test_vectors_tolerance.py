"""How recorded vectors are compared with fresh ones, and what stands in for a large body.

Floats agree within the stated tolerance and no further; integers, strings, keys and lengths must
be equal; the size of a summarised body may move a little; the summary of a large body digests
only exact data (integers, strings) and gives its floats as values to compare.
"""

from __future__ import annotations

import json
import math

import pytest
from together_rl_contract_tests.vectors import (
    FLOAT_ABSOLUTE_TOLERANCE,
    FLOAT_RELATIVE_TOLERANCE,
    SUMMARY_BYTES_RELATIVE_TOLERANCE,
    SUMMARY_KEY,
    column_projection,
    compare_vectors,
    floats_agree,
    summarise_json,
)

LOGPROB = -6.940790844330472


def _bound(value: float) -> float:
    return FLOAT_ABSOLUTE_TOLERANCE + FLOAT_RELATIVE_TOLERANCE * abs(value)


def test_floats_within_the_tolerance_agree_and_beyond_it_do_not() -> None:
    assert floats_agree(LOGPROB, math.nextafter(LOGPROB, 0.0))
    assert floats_agree(LOGPROB, LOGPROB + 0.9 * _bound(LOGPROB))
    assert not floats_agree(LOGPROB, LOGPROB + 1.1 * _bound(LOGPROB))
    assert floats_agree(0.0, 0.5 * FLOAT_ABSOLUTE_TOLERANCE)
    assert not floats_agree(0.0, 2 * FLOAT_ABSOLUTE_TOLERANCE)
    assert floats_agree(math.nan, math.nan) and not floats_agree(math.nan, 0.0)
    assert floats_agree(math.inf, math.inf) and not floats_agree(math.inf, -math.inf)


def test_a_float32_ulp_is_within_the_tolerance() -> None:
    """A float32 log-prob whose rounding flips moves by one float32 ulp (2^-23 relative at most)."""
    assert floats_agree(LOGPROB, LOGPROB * (1 + 2.0**-23))


def test_last_bit_drift_agrees_and_the_comparison_reports_it() -> None:
    recorded = [{"name": "a", "output": {"loss": 0.123456789, "tokens": [1, 2]}}]
    generated = [
        {"name": "a", "output": {"loss": math.nextafter(0.123456789, 1.0), "tokens": [1, 2]}}
    ]
    comparison = compare_vectors(recorded, generated)
    assert comparison.agree, comparison.differences
    assert comparison.largest_float_difference > 0
    assert comparison.largest_float_difference_at == "[name=a].output.loss"


@pytest.mark.parametrize(
    ("recorded", "generated", "where"),
    [
        ({"tokens": [1, 2]}, {"tokens": [1, 3]}, "tokens[1]"),
        ({"tokens": [1, 2]}, {"tokens": [1, 2, 3]}, "tokens"),
        ({"status": "COMPLETED"}, {"status": "FAILED"}, "status"),
        ({"step": 1}, {"step": 1.0}, "step"),
        ({"flag": True}, {"flag": 1}, "flag"),
        ({"a": 1}, {"a": 1, "b": 2}, "<root>"),
        ({"loss": 1.0}, {"loss": 1.0 + 1e-5}, "loss"),
    ],
)
def test_exact_data_must_be_equal(recorded: object, generated: object, where: str) -> None:
    comparison = compare_vectors(recorded, generated)
    assert not comparison.agree
    assert comparison.differences[0].startswith(f"{where}:"), comparison.differences


def test_named_entries_are_matched_by_name() -> None:
    """One vector inserted is one difference, not a cascade over every later entry."""
    recorded = [{"name": "a", "x": 1}, {"name": "c", "x": 3}]
    generated = [{"name": "a", "x": 1}, {"name": "b", "x": 2}, {"name": "c", "x": 3}]
    comparison = compare_vectors(recorded, generated)
    assert comparison.difference_count == 1
    assert "only generated ['[name=b]']" in comparison.differences[0]
    swapped = compare_vectors(recorded, list(reversed(recorded)))
    assert swapped.differences == ["<root>: the named entries are in another order"]


def test_the_summarised_size_may_move_within_its_tolerance() -> None:
    def summary(size: int) -> dict[str, object]:
        return {"body": {SUMMARY_KEY: {"bytes": size}}}

    moved = round(1_000_000 * (1 + 0.9 * SUMMARY_BYTES_RELATIVE_TOLERANCE))
    assert compare_vectors(summary(1_000_000), summary(moved)).agree
    too_far = round(1_000_000 * (1 + 1.1 * SUMMARY_BYTES_RELATIVE_TOLERANCE))
    assert not compare_vectors(summary(1_000_000), summary(too_far)).agree
    # Elsewhere an integer named bytes is exact.
    assert not compare_vectors({"bytes": 1_000_000}, {"bytes": 1_000_001}).agree


BODY = {
    "results": [
        {
            "sequences": [
                {"tokens": [5, 7, 9], "logprobs": [-1.5, -2.25, -0.125], "stop_reason": "LENGTH"},
                {"tokens": [3], "logprobs": [-0.5], "stop_reason": "STOP"},
            ]
        }
    ]
}


def _summary(body: object) -> dict[str, dict[str, object]]:
    summary: dict[str, dict[str, dict[str, object]]] = summarise_json(json.dumps(body).encode())
    return summary[SUMMARY_KEY]["columns"]  # type: ignore[return-value]


def test_the_summary_digests_exact_columns_with_their_shape() -> None:
    columns = _summary(BODY)
    assert column_projection(BODY, "results[].sequences[].tokens[]") == [[[5, 7, 9], [3]]]
    tokens = columns["results[].sequences[].tokens[]"]
    assert tokens["type"] == "int" and tokens["count"] == 4
    assert tokens["shape"] is None  # two sequences of 3 and 1 tokens
    assert columns["results[].sequences[].stop_reason"]["shape"] == [1, 2]
    assert (tokens["min"], tokens["max"]) == (3, 9)
    regrouped = {"results": [{"sequences": [{"tokens": [5, 7]}, {"tokens": [9, 3]}]}]}
    assert _summary(regrouped)["results[].sequences[].tokens[]"]["sha256"] != tokens["sha256"]
    reasons = columns["results[].sequences[].stop_reason"]
    assert reasons["values"] == {"LENGTH": 1, "STOP": 1} and "sha256" in reasons


def test_the_summary_gives_floats_as_values_never_as_a_digest() -> None:
    logprobs = _summary(BODY)["results[].sequences[].logprobs[]"]
    assert "sha256" not in logprobs
    assert logprobs == {
        "type": "float",
        "count": 4,
        "shape": None,  # sequences of 3 and 1 log-probs
        "min": -2.25,
        "max": -0.125,
        "sum": -4.375,
        "head": [-1.5, -2.25, -0.125, -0.5],
        "sums": [[-3.875, -0.5]],
    }


def test_a_summary_survives_last_bit_drift_of_its_floats() -> None:
    """Full-precision log-probs (as the emulator sends them) moved by one ulp each."""
    body = json.loads(json.dumps(BODY))
    for sequence in body["results"][0]["sequences"]:
        sequence["logprobs"] = [x + LOGPROB / 10 for x in sequence["logprobs"]]
    drifted = json.loads(json.dumps(body))
    for sequence in drifted["results"][0]["sequences"]:
        sequence["logprobs"] = [math.nextafter(x, 0.0) for x in sequence["logprobs"]]
    recorded = summarise_json(json.dumps(body).encode())
    comparison = compare_vectors(recorded, summarise_json(json.dumps(drifted).encode()))
    assert comparison.agree, comparison.differences
    changed = json.loads(json.dumps(body))
    changed["results"][0]["sequences"][1]["tokens"] = [4]
    assert not compare_vectors(recorded, summarise_json(json.dumps(changed).encode())).agree
