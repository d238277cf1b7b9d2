"""save_state and resume through the Tinker layer, checked against an uninterrupted run: resumed
with its optimizer, a run continues bit for bit; resumed without it, the weights are the saved
ones but Adam starts again from zero moments, so the next steps differ."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from _tinker_helpers import TrainingClients
from emulator_harness import LiveEmulator
from together import Together

STEPS_BEFORE_SAVE = 2
STEPS_AFTER_SAVE = 2


def rl_datums(tinker: ModuleType) -> list[Any]:
    """Two completions of one prompt with opposite advantages, in the shape of Tinker's RL loop."""
    prompt = [7, 70, 700]
    datums = []
    for completion, advantage in (([5, 6], 1.0), ([8, 9], -1.0)):
        tokens = prompt + completion
        ob_len = len(prompt) - 1
        datums.append(
            tinker.Datum(
                model_input=tinker.ModelInput.from_ints(tokens[:-1]),
                loss_fn_inputs={
                    "target_tokens": tokens[1:],
                    "logprobs": [0.0] * ob_len + [-6.9, -6.9],
                    "advantages": [0.0] * ob_len + [advantage] * 2,
                },
            )
        )
    return datums


def run_steps(tinker: ModuleType, client: Any, steps: int) -> list[float]:
    """`steps` importance-sampling steps; returns the loss of each."""
    datums = rl_datums(tinker)
    adam = tinker.AdamParams(learning_rate=0.05, beta1=0.9, beta2=0.95, eps=1e-8)
    losses = []
    for _ in range(steps):
        trained = client.forward_backward(datums, "importance_sampling")
        stepped = client.optim_step(adam)
        losses.append(trained.result().metrics["loss:sum"])
        stepped.result()
    return losses


def logprobs(tinker: ModuleType, client: Any) -> list[list[float]]:
    scored = client.forward(rl_datums(tinker), "importance_sampling").result()
    return [out["logprobs"].tolist() for out in scored.loss_fn_outputs]


@pytest.fixture
def uninterrupted(tinker: ModuleType, training_clients: TrainingClients) -> dict[str, Any]:
    """One run that saves its state midway and goes on; the resumed runs must match its second
    half. (The emulator starts every session from its own initial weights, whatever the LoRA
    seed, so the reference is the very run that saved the state.)"""
    client = training_clients.lora(rank=8, seed=3)
    before = run_steps(tinker, client, STEPS_BEFORE_SAVE)
    at_save = logprobs(tinker, client)
    path = client.save_state("mid-run").result().path
    after = run_steps(tinker, client, STEPS_AFTER_SAVE)
    return {
        "state": path,
        "losses": before + after,
        "at_save": at_save,
        "final": logprobs(tinker, client),
    }


def test_resume_with_optimizer_continues_the_run_bit_for_bit(
    tinker: ModuleType,
    training_clients: TrainingClients,
    uninterrupted: dict[str, Any],
) -> None:
    resumed = training_clients.from_state(uninterrupted["state"], with_optimizer=True)
    assert logprobs(tinker, resumed) == uninterrupted["at_save"]
    assert (
        run_steps(tinker, resumed, STEPS_AFTER_SAVE) == uninterrupted["losses"][STEPS_BEFORE_SAVE:]
    )
    assert logprobs(tinker, resumed) == uninterrupted["final"]


def test_resume_without_optimizer_restores_the_weights_only(
    tinker: ModuleType,
    training_clients: TrainingClients,
    uninterrupted: dict[str, Any],
) -> None:
    resumed = training_clients.from_state(uninterrupted["state"], with_optimizer=False)
    assert logprobs(tinker, resumed) == uninterrupted["at_save"]
    losses = run_steps(tinker, resumed, STEPS_AFTER_SAVE)
    assert losses[0] == uninterrupted["losses"][STEPS_BEFORE_SAVE]  # same weights, same loss
    assert logprobs(tinker, resumed) != uninterrupted["final"]  # fresh Adam moments


def test_resume_keeps_the_lora_rank_and_base_model(
    live_emulator: LiveEmulator, training_clients: TrainingClients, uninterrupted: dict[str, Any]
) -> None:
    saved_state = uninterrupted["state"]
    resumed = training_clients.from_state(saved_state, with_optimizer=True)
    again = resumed.save_state("again").result().path
    with Together(api_key=live_emulator.api_key, base_url=live_emulator.base_url) as sdk:
        first = sdk.post_training.checkpoints.retrieve(saved_state)
        second = sdk.post_training.checkpoints.retrieve(again)
    assert (
        (second.base_model, second.lora_rank)
        == (first.base_model, first.lora_rank)
        == (
            "emulator/tiny-1k",
            8,
        )
    )


def test_resume_from_an_inference_checkpoint_is_refused(
    tinker: ModuleType, training_clients: TrainingClients
) -> None:
    weights = training_clients.lora().save_weights_for_sampler("w").result().path
    with pytest.raises(ValueError, match="CHECKPOINT_TYPE_TRAINING"):
        training_clients.from_state(weights, with_optimizer=True)
