"""Sampling: seeded reproducibility, the sample/forward log-prob identity, and samples
that follow the last weights-sync, not the last optimizer step."""

from __future__ import annotations

from typing import Any

import pytest

from together_rl_contract_tests import _training as t
from together_rl_contract_tests._http import FORWARD_BACKWARD, SAMPLE, WEIGHTS_SYNC, TargetClient

SAMPLE_OP = "POST /rl/training-sessions/{session_id}/operations/sample"
SYNC_OP = "POST /rl/training-sessions/{session_id}/operations/weights-sync"
PROMPTS = [t.PROMPT, (7, 200, 31, 64)]
#: The spec's promise: sample log-probs equal forward-only log-probs to 1e-5.
IDENTITY_ATOL = 1e-5
SYNC = {"weight_sync_type": "WEIGHT_SYNC_TYPE_SYNCHRONOUS"}


def _sample(client: TargetClient, session_id: str, **kw: Any) -> list[list[dict[str, Any]]]:
    body = t.sample_body(PROMPTS, **{"max_tokens": 12, "num_samples": 3, **kw})
    return t.sequences_of(client.completed_output(session_id, SAMPLE, body))


def _tokens(results: list[list[dict[str, Any]]]) -> list[list[list[int]]]:
    return [[seq["tokens"] for seq in result] for result in results]


def _logprobs(results: list[list[dict[str, Any]]]) -> list[float]:
    return [lp for result in results for seq in result for lp in seq["logprobs"]]


def _forward_logprobs_of(
    client: TargetClient, session_id: str, results: list[list[dict[str, Any]]]
) -> list[float]:
    """Forward-only log-probs of every sampled token, in the order of :func:`_logprobs`."""
    sequences, spans = [], []
    for prompt, result in zip(PROMPTS, results, strict=True):
        for seq in result:
            sequences.append([*prompt, *seq["tokens"]])
            spans.append(len(seq["tokens"]))
    rows = t.forward_logprobs(client, session_id, sequences)
    return [lp for row, n in zip(rows, spans, strict=True) for lp in row[len(row) - n :]]


@pytest.mark.operation(SAMPLE_OP)
def test_seeded_sampling_is_reproducible(client: TargetClient, fresh_session_id: str) -> None:
    first = _sample(client, fresh_session_id, seed=1234)
    again = _sample(client, fresh_session_id, seed=1234)
    other = _sample(client, fresh_session_id, seed=4321)
    assert _tokens(again) == _tokens(first), "the same seed must give the same completions"
    assert _logprobs(again) == pytest.approx(_logprobs(first), abs=IDENTITY_ATOL)
    assert _tokens(other) != _tokens(first), "another seed gave exactly the same completions"
    for result in first:
        assert len({tuple(seq["tokens"]) for seq in result}) > 1, (
            "the num_samples completions of one input are all identical"
        )


@pytest.mark.operation(SAMPLE_OP)
def test_sample_logprobs_equal_forward_logprobs(
    client: TargetClient, fresh_session_id: str
) -> None:
    results = _sample(client, fresh_session_id, seed=7)
    for result in results:
        for seq in result:
            assert len(seq["logprobs"]) == len(seq["tokens"]), seq
            if seq["stop_reason"] == "STOP_REASON_LENGTH":
                assert len(seq["tokens"]) == 12, seq
    sampled = _logprobs(results)
    forward = _forward_logprobs_of(client, fresh_session_id, results)
    differ = "sample logprobs differ from a forward-only pass over the same tokens"
    assert sampled == pytest.approx(forward, abs=IDENTITY_ATOL), differ


@pytest.mark.operation(SYNC_OP)
def test_samples_change_only_after_weights_sync(
    client: TargetClient, fresh_session_id: str
) -> None:
    before = _sample(client, fresh_session_id, seed=99)
    t.train_step(
        client, fresh_session_id, [(FORWARD_BACKWARD, t.ce_body([t.SEQUENCE_X]))], t.ADAM_STEP
    )
    unsynced = _sample(client, fresh_session_id, seed=99)
    assert _tokens(unsynced) == _tokens(before), "samples changed before a weights-sync"
    assert _logprobs(unsynced) == pytest.approx(_logprobs(before), abs=IDENTITY_ATOL), (
        "sample logprobs changed before a weights-sync: sampling must use the synced weights"
    )
    sync = client.completed_output(fresh_session_id, WEIGHTS_SYNC, SYNC)
    version = int(sync["weights_version"])
    synced_output = client.completed_output(
        fresh_session_id, SAMPLE, t.sample_body(PROMPTS, seed=99, max_tokens=12, num_samples=3)
    )
    synced = t.sequences_of(synced_output)
    moved = max(abs(a - b) for a, b in zip(_logprobs(before), _logprobs(synced), strict=False))
    assert _tokens(synced) != _tokens(before) or moved > 1e-4, (
        "samples after a weights-sync still come from the old weights"
    )
    for result in synced_output["results"]:
        assert {int(seg["version"]) for seg in result["policy_segments"]} == {version}, result
    assert _logprobs(synced) == pytest.approx(
        _forward_logprobs_of(client, fresh_session_id, synced), abs=IDENTITY_ATOL
    ), "after the sync, sampler and trainer weights are the same: log-probs must agree"
