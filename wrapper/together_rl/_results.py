"""Result types returned by the wrapper, one per operation kind, and how a completed
operation's ``output`` becomes one (with numpy arrays); and the operation kinds, one line each:
the generated endpoints that POST and poll it (their ``ENDPOINT``s carry the routes, the request
seam and the kind's name) and the parser of its result. Sync and async clients drive every kind
through the same submit / poll / collect code."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import numpy as np
from together_rl_client.api import rl
from together_rl_client.types import Endpoint

from ._errors import InvalidRequestError, MalformedResponseError

#: the public result types (the operation kinds below are the clients' own)
__all__ = [
    "CheckpointResult",
    "CustomForwardBackwardResult",
    "ForwardBackwardResult",
    "OptimStepResult",
    "PolicySegment",
    "PromptSamples",
    "SampleResult",
    "SampledSequence",
    "WeightsSyncResult",
]


@dataclass(frozen=True)
class ForwardBackwardResult:
    """The output of a completed forward-backward (or forward) operation.

    ``loss_fn_outputs`` has one mapping per sample, in request order, from output name
    (``"logprobs"`` for the built-in losses) to a numpy array (float32 or int64). It is empty
    unless ``return_loss_fn_outputs`` was set.
    """

    operation_id: str
    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    loss_fn_outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def logprobs(self) -> list[Any]:
        """Per-sample ``logprobs`` output (masked slots are 0.0)."""
        return [output["logprobs"] for output in self.loss_fn_outputs if "logprobs" in output]


@dataclass(frozen=True)
class OptimStepResult:
    """A completed optimizer step: ``step`` is the trainer step it produced (1 for the first)."""

    operation_id: str
    step: int


@dataclass(frozen=True)
class WeightsSyncResult:
    """A completed weights-sync: samples submitted after it use ``weights_version``."""

    operation_id: str
    weights_version: int


@dataclass(frozen=True)
class CustomForwardBackwardResult:
    """A completed custom forward-backward (the API returns no fields; ``output`` is the raw
    object, normally empty)."""

    operation_id: str
    output: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SampledSequence:
    """One sampled completion (the prompt is not repeated).

    ``tokens``: numpy int64; ``logprobs``: numpy float64, one per token,
    the log-probability of each token under the sampling policy (``None`` when the server sent
    none); ``stop_reason``: ``"STOP_REASON_LENGTH"`` or ``"STOP_REASON_STOP"`` (any other string
    is passed through).
    """

    tokens: Any
    logprobs: Any | None
    stop_reason: str
    prompt_cache_hit_tokens: int = 0
    routed_experts_key: str | None = None

    def __len__(self) -> int:
        return len(self.tokens)


@dataclass(frozen=True)
class PolicySegment:
    """From ``start_token`` on, the tokens of a sequence came from weights ``version``."""

    start_token: int
    version: int


@dataclass(frozen=True)
class PromptSamples:
    """The completions of one model input, in the order they were sampled."""

    sequences: list[SampledSequence]
    policy_segments: list[PolicySegment] = field(default_factory=list)
    prompt_logprobs: Any | None = None
    topk_prompt_logprobs: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class SampleResult:
    """A completed sample operation: one :class:`PromptSamples` per model input, in request
    order. Indexable and iterable: ``result[0].sequences[1].tokens``."""

    operation_id: str
    results: list[PromptSamples]

    def __getitem__(self, index: int) -> PromptSamples:
        return self.results[index]

    def __iter__(self) -> Iterator[PromptSamples]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)


# ----------------------------------------------------------------------------- output parsers


def _int64(field: str, value: Any) -> int:
    """An ``Int64Value``: a JSON integer or a decimal string."""
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise MalformedResponseError(f"output.{field} is not an int64: {value!r}") from exc


def parse_optim_step(operation_id: str, output: Mapping[str, Any]) -> OptimStepResult:
    return OptimStepResult(operation_id=operation_id, step=_int64("step", output["step"]))


def parse_weights_sync(operation_id: str, output: Mapping[str, Any]) -> WeightsSyncResult:
    return WeightsSyncResult(
        operation_id=operation_id,
        weights_version=_int64("weights_version", output["weights_version"]),
    )


@dataclass(frozen=True)
class CheckpointResult:
    """A saved checkpoint: ``id`` (resume a session from it with
    ``sessions.create(..., resume_from_checkpoint_id=id)``; download an inference checkpoint with
    ``client.checkpoints.download(id, to=...)``), the trainer ``step`` it holds, and its
    ``registration`` in the model registry when the server gives one."""

    operation_id: str
    id: str
    step: int
    created_at: str
    registration: dict[str, Any] | None = None


def parse_checkpoint(operation_id: str, output: Mapping[str, Any]) -> CheckpointResult:
    checkpoint = output["checkpoint"]
    if not isinstance(checkpoint, Mapping) or not isinstance(checkpoint.get("id"), str):
        raise MalformedResponseError(f"output.checkpoint is not a checkpoint: {checkpoint!r}")
    registration = checkpoint.get("registration")
    return CheckpointResult(
        operation_id=operation_id,
        id=checkpoint["id"],
        step=_int64("checkpoint.step", checkpoint["step"]),
        created_at=str(checkpoint.get("created_at", "")),
        registration=dict(registration) if isinstance(registration, Mapping) else None,
    )


def parse_custom_forward_backward(
    operation_id: str, output: Mapping[str, Any]
) -> CustomForwardBackwardResult:
    return CustomForwardBackwardResult(operation_id=operation_id, output=dict(output))


def _tokens(values: Any) -> Any:
    # TokenId: integer or decimal string (numpy parses both, without a Python loop)
    return np.array(values, dtype=np.int64)


def _floats(values: Any) -> Any:
    if values is None:
        return None
    return np.array(values, dtype=np.float64)


def _sequence(raw: Mapping[str, Any]) -> SampledSequence:
    return SampledSequence(
        tokens=_tokens(raw.get("tokens") or ()),
        logprobs=_floats(raw.get("logprobs")),
        stop_reason=str(raw.get("stop_reason", "")),
        prompt_cache_hit_tokens=int(raw.get("prompt_cache_hit_tokens") or 0),
        routed_experts_key=raw.get("routed_experts_key"),
    )


def _prompt_samples(raw: Mapping[str, Any]) -> PromptSamples:
    return PromptSamples(
        sequences=[_sequence(s) for s in raw.get("sequences") or ()],
        policy_segments=[
            PolicySegment(start_token=int(s["start_token"]), version=int(s["version"]))
            for s in raw.get("policy_segments") or ()
        ],
        prompt_logprobs=_floats(raw.get("prompt_logprobs")),
        topk_prompt_logprobs=(
            None
            if raw.get("topk_prompt_logprobs") is None
            else [dict(entry) for entry in raw["topk_prompt_logprobs"]]
        ),
    )


def parse_sample(operation_id: str, output: Mapping[str, Any]) -> SampleResult:
    return SampleResult(
        operation_id=operation_id,
        results=[_prompt_samples(r) for r in output.get("results") or ()],
    )


def _output_array(tensor: Mapping[str, Any]) -> Any:
    data = tensor.get("data", [])
    dtype = np.int64 if tensor.get("dtype") == "int64" else np.float32
    if isinstance(data, list):  # the usual case: fromiter skips array()'s shape discovery
        try:
            return np.fromiter(data, dtype=dtype, count=len(data))
        except (TypeError, ValueError):
            pass  # nested or odd data: let np.array report or handle it
    return np.array(data, dtype=dtype)


def parse_forward_backward(operation_id: str, output: Mapping[str, Any]) -> ForwardBackwardResult:
    """Turn a completed operation's ``output`` into a :class:`ForwardBackwardResult`."""
    outputs = [
        {name: _output_array(tensor) for name, tensor in item.get("tensors", {}).items()}
        for item in output.get("loss_fn_outputs") or ()
    ]
    return ForwardBackwardResult(
        operation_id=operation_id,
        loss=float(output["loss"]),
        metrics=dict(output.get("metrics") or {}),
        loss_fn_outputs=outputs,
    )


R = TypeVar("R")


@dataclass(frozen=True)
class OperationKind(Generic[R]):
    """One operation kind: its POST and GET endpoints and how its ``output`` becomes a result.
    ``output_optional``: the result has no fields, so a COMPLETED body may carry no output."""

    submit: Endpoint[..., Any]
    poll: Endpoint[..., Any]
    parse_output: Callable[[str, Mapping[str, Any]], R]
    output_optional: bool = False

    @property
    def name(self) -> str:
        """The kind's path segment (``"optim-step"``), as the generated endpoints state it."""
        assert self.submit.operation_kind is not None
        return self.submit.operation_kind


FORWARD_BACKWARD: OperationKind[ForwardBackwardResult] = OperationKind(
    rl.forward_backward.ENDPOINT, rl.get_forward_backward_operation.ENDPOINT, parse_forward_backward
)
OPTIM_STEP: OperationKind[OptimStepResult] = OperationKind(
    rl.optim_step.ENDPOINT, rl.get_optim_step_operation.ENDPOINT, parse_optim_step
)
SAMPLE: OperationKind[SampleResult] = OperationKind(
    rl.sample.ENDPOINT, rl.get_sample_operation.ENDPOINT, parse_sample
)
WEIGHTS_SYNC: OperationKind[WeightsSyncResult] = OperationKind(
    rl.weights_sync.ENDPOINT, rl.get_weights_sync_operation.ENDPOINT, parse_weights_sync
)
CUSTOM_FORWARD_BACKWARD: OperationKind[CustomForwardBackwardResult] = OperationKind(
    rl.custom_forward_backward.ENDPOINT,
    rl.get_custom_forward_backward_operation.ENDPOINT,
    parse_custom_forward_backward,
    output_optional=True,
)
TRAINING_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    rl.create_training_checkpoint.ENDPOINT,
    rl.get_training_checkpoint_operation.ENDPOINT,
    parse_checkpoint,
)
INFERENCE_CHECKPOINT: OperationKind[CheckpointResult] = OperationKind(
    rl.create_inference_checkpoint.ENDPOINT,
    rl.get_inference_checkpoint_operation.ENDPOINT,
    parse_checkpoint,
)
KINDS: dict[str, OperationKind[Any]] = {
    kind.name: kind
    for kind in (
        FORWARD_BACKWARD, OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD,
        TRAINING_CHECKPOINT, INFERENCE_CHECKPOINT,
    )
}  # fmt: skip


def operation_kind(name: str) -> OperationKind[Any]:
    """The kind called ``name`` (``"optim-step"``), refused when there is none."""
    kind = KINDS.get(name)
    if kind is None:
        raise InvalidRequestError(
            f"kind must be one of {sorted(KINDS)}, got {name!r}", field="kind"
        )
    return kind
