"""The other operation kinds through the wrapper against the emulator (in-process and over
loopback, sync and async): each operation, idempotent retries of optim-step under faults
(exactly one optimizer step), submit-ahead forward-backward + optim-step order, sampling
reproducibility and its logprob identity with forward, weights visible only after a sync,
custom gradients equal to a built-in loss, and large bodies and results (upload, offload)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from together_rl import OptimStepResult, Sample, SampleResult, WeightsSyncResult, losses
from wrapper_helpers import Api, Emulator, Recorder, connect, start_session

OPTIM_POST = "POST /v1/rl/training-sessions/{session_id}/operations/optim-step"
GRPO = losses.GRPO(clip_low_threshold=0.8, clip_high_threshold=1.2)
PROMPT = [11, 22, 33]


def grpo_batch(n: int = 3) -> list[Sample]:
    return [
        Sample.from_completion(
            PROMPT, [40 + i, 50, 60 + i], logprobs=[-7.0, -7.0, -7.0], advantages=1.0 - i
        )
        for i in range(n)
    ]


def test_each_operation_sync_and_async(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
) -> None:
    emulator = emulator_factory(where)
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    sampled = api.result(api.call(session.sample, [PROMPT, [5, 6]], num_samples=3, max_tokens=5))
    assert isinstance(sampled, SampleResult) and len(sampled) == 2
    for prompt_samples in sampled:
        assert len(prompt_samples.sequences) == 3
        for sequence in prompt_samples.sequences:
            assert sequence.tokens.dtype == np.int64 and len(sequence.tokens) == 5
            assert sequence.logprobs.dtype == np.float64 and sequence.logprobs.shape == (5,)
            assert np.all(sequence.logprobs < 0)
            assert sequence.stop_reason == "STOP_REASON_LENGTH"
    api.result(api.call(session.forward_backward, grpo_batch(), GRPO))
    stepped = api.result(api.call(session.optim_step, learning_rate=0.01, beta2=0.99))
    assert isinstance(stepped, OptimStepResult) and stepped.step == 1
    synced = api.result(api.call(session.sync_weights, "WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH"))
    assert isinstance(synced, WeightsSyncResult) and synced.weights_version == 1
    sample = Sample.from_completion(PROMPT, [1, 2])
    submitted = api.call(session.custom_forward_backward, [sample], [[0.0, -1.0, -1.0, -1.0]])
    custom = api.result(submitted)
    # The result carries the id of the operation the emulator ran (not blank, not another's).
    ran = emulator._control.get(f"/_emulator/operations/{submitted.operation_id}").json()
    assert ran["kind"] == "custom-forward-backward" and ran["id"]
    assert custom.operation_id == submitted.operation_id == ran["id"]
    accumulated = emulator.stats()["sessions"][session.id]
    assert accumulated["accumulated_passes"] == 1  # the custom gradient was accumulated
    assert accumulated["accumulated_grad_norm"] > 0
    assert api.result(api.call(session.optim_step)).step == 2
    stats = emulator.stats()["operations_created"]
    assert stats["optim-step"] == 2 and stats["custom-forward-backward"] == 1


@pytest.mark.parametrize("kind", ["http_503", "drop_after_commit"])
def test_a_retried_optim_step_applies_exactly_one_step(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
    kind: str,
) -> None:
    emulator = emulator_factory(where)
    api = connect(api_factory, mode, emulator, sleep=Recorder())
    session = start_session(api)
    api.result(api.call(session.forward_backward, grpo_batch(), GRPO))
    emulator.fault(kind, count=2, route=OPTIM_POST, retry_after=0)
    future = api.call(session.optim_step, learning_rate=0.01)
    assert api.result(future).step == 1
    stats = emulator.stats()
    assert stats["operations_created"]["optim-step"] == 1
    assert stats["requests"][OPTIM_POST] == 3
    assert stats["idempotent_replays"].get("optim-step", 0) == (
        2 if kind == "drop_after_commit" else 0
    )
    assert api.result(api.call(session.optim_step)).step == 2


def run_steps(api: Api, session: Any, ahead: bool) -> tuple[list[float], list[int]]:
    """Three forward-backward + optim-step pairs, submitted all at once or one by one."""
    batches = [grpo_batch(2 + i) for i in range(3)]
    if ahead:
        futures = []
        for batch in batches:
            futures.append(api.call(session.forward_backward, batch, GRPO))
            futures.append(api.call(session.optim_step, learning_rate=0.05))
        results = [api.result(future) for future in futures]
    else:
        results = []
        for batch in batches:
            results.append(api.result(api.call(session.forward_backward, batch, GRPO)))
            results.append(api.result(api.call(session.optim_step, learning_rate=0.05)))
    return [r.loss for r in results[0::2]], [r.step for r in results[1::2]]


def test_submit_ahead_forward_backward_and_optim_step_resolve_in_order(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
) -> None:
    runs = []
    for ahead in (True, False):  # two emulators with the same seed: the same initial weights
        api = connect(api_factory, mode, emulator_factory(where, op_latency_ms=15))
        runs.append(run_steps(api, start_session(api), ahead=ahead))
    (ahead_losses, ahead_steps), (one_by_one_losses, one_by_one_steps) = runs
    assert ahead_steps == one_by_one_steps == [1, 2, 3]
    assert ahead_losses == one_by_one_losses
    assert len(set(ahead_losses)) == 3  # each pass saw the weights of the steps before it


def test_seeded_sampling_is_reproducible_and_logprobs_match_forward(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    emulator = emulator_factory("inproc")
    api = connect(api_factory, mode, emulator)
    session = start_session(api)
    kwargs: dict[str, Any] = {"num_samples": 4, "max_tokens": 6, "temperature": 1.3, "seed": 7}
    first = api.result(api.call(session.sample, PROMPT, **kwargs))[0].sequences
    again = api.result(api.call(session.sample, np.array(PROMPT), **kwargs))[0].sequences
    assert [s.tokens.tolist() for s in first] == [s.tokens.tolist() for s in again]
    other = api.result(api.call(session.sample, PROMPT, **{**kwargs, "seed": 8}))[0].sequences
    assert [s.tokens.tolist() for s in first] != [s.tokens.tolist() for s in other]
    samples = [Sample.from_completion(PROMPT, s.tokens) for s in first]
    scored = api.call(session.forward, samples, losses.CrossEntropy())
    for sequence, logprobs in zip(first, scored.logprobs, strict=True):
        np.testing.assert_allclose(logprobs[len(PROMPT) - 1 :], sequence.logprobs, atol=1e-5)


def test_samples_see_new_weights_only_after_a_sync(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    emulator = emulator_factory("inproc")
    api = connect(api_factory, mode, emulator)
    session = start_session(api)

    def logprobs() -> list[float]:
        result = api.result(api.call(session.sample, PROMPT, num_samples=2, max_tokens=4, seed=3))
        return [float(x) for s in result[0].sequences for x in s.logprobs]

    before = logprobs()
    api.call(session.forward_backward, grpo_batch(), GRPO)
    api.result(api.call(session.optim_step, learning_rate=0.5))
    assert logprobs() == before
    assert api.result(api.call(session.sync_weights)).weights_version == 1
    assert logprobs() != before


def test_custom_gradients_equal_the_built_in_loss(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    """Cross-entropy's dL/dlogp is -weights: the same update through both routes (two
    emulators with the same seed, so the same initial weights)."""
    samples = [Sample.from_completion(PROMPT, [7, 8, 9]), Sample.from_completion([4], [5, 6])]
    gradients = [-np.asarray(s.loss_fn_inputs["weights"]) for s in samples]
    before, after = [], []
    for route in ("built-in", "custom"):
        api = connect(api_factory, mode, emulator_factory("inproc"))
        session = start_session(api)
        before.append(api.call(session.forward, samples, losses.CrossEntropy()).logprobs)
        if route == "custom":
            api.call(session.custom_forward_backward, samples, gradients)
        else:
            api.call(session.forward_backward, samples, losses.CrossEntropy())
        api.result(api.call(session.optim_step, learning_rate=0.1))
        after.append(api.call(session.forward, samples, losses.CrossEntropy()).logprobs)
    for a, b in zip(before[0], before[1], strict=True):
        np.testing.assert_array_equal(a, b)
    for a, b, initial in zip(after[0], after[1], before[0], strict=True):
        np.testing.assert_allclose(a, b, atol=1e-6)
        assert np.all(a[initial != 0] > initial[initial != 0])  # the step raised them


def big_batch(n: int = 16, length: int = 1024) -> list[Sample]:
    rng = np.random.default_rng(1)
    return [
        Sample.from_completion(
            rng.integers(0, 1024, 8),
            rng.integers(0, 1024, length),
            logprobs=rng.normal(-7.0, 0.1, length),
            advantages=float(rng.normal()),
        )
        for _ in range(n)
    ]


def test_large_bodies_are_uploaded_and_large_results_downloaded(
    api_factory: Callable[..., Api],
    emulator_factory: Callable[..., Emulator],
    mode: str,
    where: str,
) -> None:
    emulator = emulator_factory(where)
    api = connect(api_factory, mode, emulator)
    samples = big_batch()  # about 0.9 MB of JSON, about 0.2 MB of logprobs out
    session = start_session(api)
    via_upload = api.result(api.call(session.forward_backward, samples, GRPO, forward_only=True))
    api.client.upload_threshold = None
    via_inline = api.result(api.call(session.forward_backward, samples, GRPO, forward_only=True))
    assert via_upload.loss == via_inline.loss
    requests = emulator.stats()["requests"]
    assert requests["POST /v1/rl/training-sessions/{session_id}/payloads/upload-url"] == 1
    # A result over 0.5 MiB comes back offloaded: the wrapper downloads and merges it.
    scored = api.call(session.forward, big_batch(n=64), GRPO)
    assert len(scored.logprobs) == 64 and scored.logprobs[0].shape == (1031,)
    download = "POST /v1/rl/training-sessions/{session_id}/payloads/{payload_id}/download-url"
    assert emulator.stats()["requests"].get(download, 0) == 1


def test_router_replay_key_travels_from_sequence_to_training_sample(
    api_factory: Callable[..., Api], emulator_factory: Callable[..., Emulator], mode: str
) -> None:
    """On the mixture-of-experts model: `Sample.from_sequence` carries each sequence's
    `routed_experts_key` (and its tokens and log-probs) into the training sample, and the pass
    with the replayed routing gives the sampler's log-probs."""
    emulator = emulator_factory("inproc")
    api = connect(api_factory, mode, emulator)
    resources = api.call(api.client.model_resources.create, "Qwen/Qwen3.6-35B-A3B")
    session = api.call(api.client.sessions.create, model_resources_id=resources.id)
    sequences = api.result(api.call(session.sample, PROMPT, num_samples=2, max_tokens=6,
                                    return_routed_experts=True, seed=1))[0].sequences  # fmt: skip
    samples = [Sample.from_sequence(PROMPT, s, advantages=1.0) for s in sequences]
    for sequence, sample in zip(sequences, samples, strict=True):
        assert (
            sequence.routed_experts_key and sample.routed_experts_key == sequence.routed_experts_key
        )
        assert sample.to_wire()["routed_experts_key"] == sequence.routed_experts_key
    scored = api.call(session.forward, samples, losses.CrossEntropy())
    for sequence, logprobs in zip(sequences, scored.logprobs, strict=True):
        np.testing.assert_allclose(logprobs[len(PROMPT) - 1 :], sequence.logprobs, atol=1e-5)
    plain = api.result(api.call(session.sample, PROMPT, max_tokens=3))[0].sequences[0]
    assert plain.routed_experts_key is None
    assert "routed_experts_key" not in Sample.from_sequence(PROMPT, plain).to_wire()
