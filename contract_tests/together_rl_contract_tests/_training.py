"""Bodies and measurements shared by the scenario tests of training, sampling and payloads.

The policy is observed only through the API: a ``forward_only`` cross-entropy pass with
``return_loss_fn_outputs`` reads the per-token log-probabilities of chosen sequences.

To compare *how much* an optimizer step moved the policy, the tests make AdamW a plain gradient
step: with ``beta1 = beta2 = 0`` a step is ``lr * g / (|g| + eps)`` per coordinate, independent of
any earlier step, and with ``eps`` far above every gradient entry (and clipping off) that is
``(lr / eps) * g``, linear in the accumulated gradient g. Two identical passes then move the
log-probs twice as far as one (to first order), a step with nothing accumulated moves nothing,
and gradients that cancel leave the policy unchanged. See :data:`LINEAR_STEP`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from together_rl_contract_tests._http import COMPLETED, FORWARD_BACKWARD, OPTIM_STEP, TargetClient

__all__ = [
    "ADAM_STEP",
    "LINEAR_EPS",
    "LINEAR_STEP",
    "PROMPT",
    "SEQUENCE_X",
    "SEQUENCE_Y",
    "ce_body",
    "ce_sample",
    "custom_body",
    "forward_logprobs",
    "sample_body",
    "sequences_of",
    "submit_all",
    "tokens_chunk",
    "total",
    "train_step",
]

#: Token sequences (prompt + response) valid for any vocabulary of at least 200 tokens.
SEQUENCE_X = (11, 23, 37, 41, 53, 67, 79, 83)
SEQUENCE_Y = (101, 113, 127, 131, 149, 163, 173, 181)
PROMPT = (5, 17, 29)

#: A gradient step of size ``learning_rate / eps`` = 0.05 (see the module docstring).
LINEAR_EPS = 1.0e4
LINEAR_STEP: dict[str, Any] = {
    "adam_params": {
        "learning_rate": 0.05 * LINEAR_EPS,
        "beta1": 0.0,
        "beta2": 0.0,
        "eps": LINEAR_EPS,
        "weight_decay": 0.0,
        "grad_clip_norm": 0.0,
    }
}
#: An ordinary, visible Adam step.
ADAM_STEP: dict[str, Any] = {"adam_params": {"learning_rate": 0.01}}


def tokens_chunk(tokens: Sequence[int]) -> dict[str, Any]:
    return {"chunks": [{"encoded_text": {"tokens": [int(t) for t in tokens]}}]}


def ce_sample(sequence: Sequence[int], weights: Sequence[float] | None = None) -> dict[str, Any]:
    """A cross-entropy sample over ``sequence`` (input ``[:-1]``, targets ``[1:]``)."""
    count = len(sequence) - 1
    return {
        "model_input": tokens_chunk(sequence[:-1]),
        "loss_fn_inputs": {
            "target_tokens": {"data": [int(t) for t in sequence[1:]], "dtype": "int64"},
            "weights": {
                "data": [float(w) for w in (weights if weights is not None else [1.0] * count)],
                "dtype": "float32",
            },
        },
    }


def ce_body(
    sequences: Sequence[Sequence[int]],
    weights: Sequence[Sequence[float]] | None = None,
    *,
    forward_only: bool = False,
) -> dict[str, Any]:
    samples = [
        ce_sample(seq, weights[i] if weights is not None else None)
        for i, seq in enumerate(sequences)
    ]
    body: dict[str, Any] = {"samples": samples, "loss": {"type": "LOSS_TYPE_CROSS_ENTROPY"}}
    if forward_only:
        body["forward_only"] = True
        body["return_loss_fn_outputs"] = True
    return body


def custom_body(sequence: Sequence[int], gradient: Sequence[float]) -> dict[str, Any]:
    """A custom forward-backward pass: dLoss/dlogp per target token of ``sequence``."""
    return {
        "samples": [
            {
                "model_input": tokens_chunk(sequence[:-1]),
                "loss_fn_inputs": {
                    "target_tokens": {"data": [int(t) for t in sequence[1:]], "dtype": "int64"}
                },
            }
        ],
        "gradients": [{"data": [float(g) for g in gradient], "dtype": "D_TYPE_FLOAT32"}],
    }


def sample_body(
    prompts: Sequence[Sequence[int]],
    *,
    seed: int | None,
    max_tokens: int = 12,
    num_samples: int = 1,
) -> dict[str, Any]:
    """Untruncated sampling at temperature 1, so that logprobs are the policy's own."""
    params: dict[str, Any] = {"max_tokens": max_tokens, "temperature": 1.0, "top_k": 0}
    if seed is not None:
        params["seed"] = seed
    return {
        "model_inputs": [tokens_chunk(p) for p in prompts],
        "num_samples": num_samples,
        "sampling_params": params,
    }


def forward_logprobs(
    client: TargetClient, session_id: str, sequences: Sequence[Sequence[int]]
) -> list[list[float]]:
    """Per-token log-probs of every target token of ``sequences`` under the trainer's weights."""
    output = client.completed_output(
        session_id, FORWARD_BACKWARD, ce_body(sequences, forward_only=True)
    )
    return [
        [float(x) for x in entry["tensors"]["logprobs"]["data"]]
        for entry in output["loss_fn_outputs"]
    ]


def total(logprobs: Sequence[Sequence[float]]) -> float:
    return float(sum(sum(row) for row in logprobs))


def submit_all(
    client: TargetClient, session_id: str, steps: Sequence[tuple[str, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Submit every (kind, body) without waiting in between, then wait for each in order."""
    submitted = []
    for kind, body in steps:
        response = client.submit_operation(session_id, kind, body)
        assert response.status_code == 200, f"{kind}: {response.status_code} {response.text[:300]}"
        submitted.append((kind, response.json()["id"]))
    operations = [
        client.wait_for_operation(session_id, operation_id, kind=kind)
        for kind, operation_id in submitted
    ]
    for (kind, _), operation in zip(submitted, operations, strict=True):
        assert operation["status"] == COMPLETED, (kind, operation)
    return operations


def train_step(
    client: TargetClient,
    session_id: str,
    passes: Sequence[tuple[str, dict[str, Any]]],
    step: dict[str, Any] = LINEAR_STEP,
) -> list[dict[str, Any]]:
    """Submit the passes and an optim-step back to back (submit-ahead), wait for all."""
    return submit_all(client, session_id, [*passes, (OPTIM_STEP, step)])


def sequences_of(output: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """``output.results[i].sequences`` with token ids as ints (int64 may come as strings)."""
    return [
        [dict(seq, tokens=[int(t) for t in seq["tokens"]]) for seq in result["sequences"]]
        for result in output["results"]
    ]
