"""The public surface of the official SDK's Tinker-compatible layer
(`together.post_training.tinker`, together 3.1.1 with tinker 0.23.1) against the emulator:
every loss the layer maps, forward, optim_step, both checkpoint kinds, publishing and
sampling with Tinker's own defaults, prompt logprobs, the async twins, and the warnings the
layer gives for the Tinker options it ignores."""

from __future__ import annotations

import asyncio
import math
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from _tinker_helpers import BASE_MODEL, TrainingClients
from emulator_harness import LiveEmulator
from spec_example_datums import spec_example_datums, spec_example_loss_config
from together import Together

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tinker.md"
PROMPT = [11, 22, 33, 44]


def mapped_losses() -> list[str]:
    """Every Tinker loss name the layer maps onto the wire, read from the layer itself."""
    from together.post_training.tinker._losses import LOSS_SPECS

    return sorted(LOSS_SPECS)


def cross_entropy_datum(tinker: ModuleType, tokens: list[int], weights: list[float]) -> Any:
    return tinker.Datum(
        model_input=tinker.ModelInput.from_ints(tokens[:-1]),
        loss_fn_inputs={"target_tokens": tokens[1:], "weights": weights},
    )


@pytest.mark.parametrize("loss_fn", mapped_losses())
def test_forward_and_forward_backward_with_every_mapped_loss(
    tinker: ModuleType, training_clients: TrainingClients, loss_fn: str
) -> None:
    client = training_clients.lora()
    datums = spec_example_datums(tinker, loss_fn)
    config = spec_example_loss_config(loss_fn)

    scored = client.forward(datums, loss_fn, config).result()
    trained = client.forward_backward(datums, loss_fn, config, return_loss_fn_outputs=True).result()

    assert math.isfinite(trained.metrics["loss:sum"])
    # forward is gradient-free and both ran on the same weights: the same loss and logprobs
    assert trained.metrics["loss:sum"] == scored.metrics["loss:sum"]
    for datum, out, again in zip(
        datums, scored.loss_fn_outputs, trained.loss_fn_outputs, strict=True
    ):
        logprobs = out["logprobs"].tolist()
        assert len(logprobs) == datum.model_input.length
        assert logprobs == again["logprobs"].tolist()
        assert all(lp <= 0.0 for lp in logprobs)


def test_optim_step_lowers_the_cross_entropy(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    client = training_clients.lora(rank=16)
    datum = cross_entropy_datum(tinker, [*PROMPT, 5, 6, 7], [0, 0, 0, 1, 1, 1])
    adam = tinker.AdamParams(learning_rate=0.05)
    losses = []
    for _ in range(5):
        losses.append(
            client.forward_backward([datum], "cross_entropy").result().metrics["loss:sum"]
        )
        client.optim_step(adam).result()
    final = client.forward([datum], "cross_entropy").result().metrics["loss:sum"]
    assert final < losses[0]
    assert losses == sorted(losses, reverse=True)


def test_sample_with_tinker_default_sampling_params(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    """Tinker's SamplingParams default top_k is -1 (no limit), and the layer always sends it."""
    assert tinker.SamplingParams().top_k == -1
    sampler = training_clients.lora().save_weights_and_get_sampling_client()
    prompt = tinker.ModelInput.from_ints(PROMPT)

    response = sampler.sample(prompt, 3, tinker.SamplingParams(max_tokens=4)).result()

    assert len(response.sequences) == 3
    for sequence in response.sequences:
        assert len(sequence.tokens) == 4 and sequence.stop_reason == "length"
        assert sequence.logprobs is not None and len(sequence.logprobs) == 4


@pytest.mark.parametrize("top_k", [-1, 0, 1, 5])
def test_top_k_values_the_layer_can_send(
    tinker: ModuleType, training_clients: TrainingClients, top_k: int
) -> None:
    sampler = training_clients.lora().save_weights_and_get_sampling_client()
    params = tinker.SamplingParams(max_tokens=3, top_k=top_k, seed=1)
    response = sampler.sample(tinker.ModelInput.from_ints(PROMPT), 2, params).result()
    assert [len(s.tokens) for s in response.sequences] == [3, 3]


def test_top_k_one_is_greedy(tinker: ModuleType, training_clients: TrainingClients) -> None:
    sampler = training_clients.lora().save_weights_and_get_sampling_client()
    prompt = tinker.ModelInput.from_ints(PROMPT)
    params = [tinker.SamplingParams(max_tokens=4, top_k=1, seed=seed) for seed in (1, 2)]
    first, second = (sampler.sample(prompt, 4, p).result() for p in params)
    tokens = {tuple(s.tokens) for s in [*first.sequences, *second.sequences]}
    assert len(tokens) == 1


def test_sampled_logprobs_are_the_trainers(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    """The sampler serves the published weights: its logprobs of a completion (at temperature
    1) are the ones the trainer's forward computes for the same tokens."""
    client = training_clients.lora(rank=16)
    datum = cross_entropy_datum(tinker, [*PROMPT, 5, 6, 7], [0, 0, 0, 1, 1, 1])
    client.forward_backward([datum], "cross_entropy").result()
    client.optim_step(tinker.AdamParams(learning_rate=0.05)).result()
    sampler = client.save_weights_and_get_sampling_client()

    sequence = (
        sampler.sample(tinker.ModelInput.from_ints(PROMPT), 1, tinker.SamplingParams(max_tokens=3))
        .result()
        .sequences[0]
    )
    completion = [*PROMPT, *sequence.tokens]
    scored = client.forward(
        [cross_entropy_datum(tinker, completion, [0, 0, 0, 1, 1, 1])], "cross_entropy"
    ).result()
    trainer_logprobs = scored.loss_fn_outputs[0]["logprobs"].tolist()[3:]
    np.testing.assert_allclose(trainer_logprobs, sequence.logprobs, rtol=1e-5)

    prompt_logprobs = sampler.compute_logprobs(tinker.ModelInput.from_ints(completion)).result()
    assert prompt_logprobs[0] is None
    np.testing.assert_allclose(prompt_logprobs[4:], sequence.logprobs, rtol=1e-5)


def test_sample_with_prompt_logprobs_and_top_k_alternatives(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    sampler = training_clients.lora().save_weights_and_get_sampling_client()
    response = sampler.sample(
        tinker.ModelInput.from_ints(PROMPT),
        1,
        tinker.SamplingParams(max_tokens=2, stop=["\n"]),
        include_prompt_logprobs=True,
        topk_prompt_logprobs=3,
    ).result()
    assert response.prompt_logprobs is not None and len(response.prompt_logprobs) == len(PROMPT)
    assert response.prompt_logprobs[0] is None
    assert response.topk_prompt_logprobs is not None


def test_checkpoints_are_the_kinds_tinker_expects(
    live_emulator: LiveEmulator, training_clients: TrainingClients
) -> None:
    client = training_clients.lora()
    state = client.save_state("ignored-name").result().path
    sampler_weights = client.save_weights_for_sampler("ignored-name").result().path

    with Together(api_key=live_emulator.api_key, base_url=live_emulator.base_url) as sdk:
        saved_state = sdk.post_training.checkpoints.retrieve(state)
        saved_weights = sdk.post_training.checkpoints.retrieve(sampler_weights)
    assert saved_state.type == "CHECKPOINT_TYPE_TRAINING"
    assert saved_weights.type == "CHECKPOINT_TYPE_INFERENCE"
    assert saved_state.base_model == BASE_MODEL and saved_state.lora_rank == 8


def test_a_stale_sampling_client_is_refused(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    client = training_clients.lora()
    old = client.save_weights_and_get_sampling_client()
    client.save_weights_and_get_sampling_client(
        weight_sync_type="WEIGHT_SYNC_TYPE_BACKGROUND_PUBLISH"
    )
    with pytest.raises(RuntimeError, match="stale"):
        old.sample(tinker.ModelInput.from_ints(PROMPT), 1, tinker.SamplingParams(max_tokens=1))


def test_async_twins(tinker: ModuleType, service_client: Any) -> None:
    async def run() -> tuple[float, Any, list[float | None], str, str]:
        async with await service_client.create_lora_training_client_async(
            base_model=BASE_MODEL, rank=8, seed=0
        ) as client:
            datum = cross_entropy_datum(tinker, [*PROMPT, 5, 6], [0, 0, 0, 1, 1])
            scored = await (await client.forward_async([datum], "cross_entropy"))
            trained = await (await client.forward_backward_async([datum], "cross_entropy"))
            await (await client.optim_step_async(tinker.AdamParams(learning_rate=0.01)))
            state = await (await client.save_state_async("s"))
            weights = await (await client.save_weights_for_sampler_async("w"))
            sampler = await client.save_weights_and_get_sampling_client_async()
            prompt = tinker.ModelInput.from_ints(PROMPT)
            sampled = await sampler.sample_async(prompt, 2, tinker.SamplingParams(max_tokens=2))
            logprobs = await sampler.compute_logprobs_async(prompt)
            assert scored.metrics["loss:sum"] == trained.metrics["loss:sum"]
            return trained.metrics["loss:sum"], sampled, logprobs, state.path, weights.path

    loss, sampled, logprobs, state, weights = asyncio.run(run())
    assert math.isfinite(loss)
    assert len(sampled.sequences) == 2
    assert logprobs[0] is None and len(logprobs) == len(PROMPT)
    assert state != weights


def test_forward_backward_custom(tinker: ModuleType, training_clients: TrainingClients) -> None:
    torch = pytest.importorskip(
        "torch", reason="the layer's forward_backward_custom needs torch (not a dependency here)"
    )
    client = training_clients.lora()
    datum = cross_entropy_datum(tinker, [*PROMPT, 5, 6], [0, 0, 0, 1, 1])

    def loss_fn(data: list[Any], logprobs: list[Any]) -> tuple[Any, dict[str, float]]:
        loss = -torch.stack([lp.sum() for lp in logprobs]).sum()
        return loss, {"custom": float(loss)}

    out = client.forward_backward_custom([datum], loss_fn).result()
    assert math.isfinite(out.metrics["custom"])
    client.optim_step(tinker.AdamParams(learning_rate=0.01)).result()


# ----------------------------------------------------------------------------- ignored options


def ignored_option_warnings(tinker: ModuleType, training_clients: TrainingClients) -> list[str]:
    """Every warning the layer gives for a Tinker option it ignores, in the order called."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tinker.ServiceClient(timeout=5, max_retries=1, http_client=None, default_headers={})
        client = training_clients.lora(train_mlp=False, train_attn=False)
        client.save_state("name", ttl_seconds=60, overwrite=True).result()
        client.save_weights_for_sampler("name", ttl_seconds=60).result()
        client.save_weights_and_get_sampling_client(name="name", retry_config=object())
    return [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_the_layer_warns_about_every_option_it_ignores(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    messages = ignored_option_warnings(tinker, training_clients)
    assert len(messages) == 5
    assert "http_client, max_retries, timeout" in messages[0]
    assert "['train_mlp', 'train_attn']" in messages[1]
    assert "['ttl_seconds', 'overwrite']" in messages[2]
    assert "ttl_seconds" in messages[3]
    assert "['name', 'retry_config']" in messages[4]


def test_docs_quote_the_layers_own_warnings(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    docs = " ".join(DOCS.read_text().split())
    for message in ignored_option_warnings(tinker, training_clients):
        assert message in docs, f"docs/tinker.md does not quote: {message}"
