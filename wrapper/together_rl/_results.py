"""The result types and how an ``output`` becomes one (numpy arrays), the operation kinds, and how
every answer is read, without I/O: any 2xx body (:func:`read_body`), readiness, operations."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Generic, TypeVar

import numpy as np
from together_rl_client.api import rl
from together_rl_client.models import ModelResources, OperationStatus, Session
from together_rl_client.types import Endpoint

from ._errors import MalformedResponseError, OperationFailedError, ResourceStateError
from ._schema import invalid

R = TypeVar("R")

#: the public result types (the kinds and the readers below are the clients' own)
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
class _OperationResult:
    """Every result's first field: the id of the operation that produced it."""

    operation_id: str


@dataclass(frozen=True)
class ForwardBackwardResult(_OperationResult):
    """A completed forward-backward (or forward). ``loss_fn_outputs``: per sample, output name
    (``"logprobs"``) -> numpy array (float32 or int64), if ``return_loss_fn_outputs`` was set."""

    loss: float
    metrics: dict[str, float] = field(default_factory=dict)
    loss_fn_outputs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def logprobs(self) -> list[Any]:
        """Per-sample ``logprobs`` output (masked slots are 0.0)."""
        return [output["logprobs"] for output in self.loss_fn_outputs if "logprobs" in output]


@dataclass(frozen=True)
class OptimStepResult(_OperationResult):
    """A completed optimizer step: ``step`` is the trainer step it produced (1 for the first)."""

    step: int


@dataclass(frozen=True)
class WeightsSyncResult(_OperationResult):
    """A completed weights-sync: samples submitted after it use ``weights_version``."""

    weights_version: int


@dataclass(frozen=True)
class CustomForwardBackwardResult(_OperationResult):
    """A completed custom forward-backward: ``output`` is the raw object (normally empty)."""

    output: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckpointResult(_OperationResult):
    """A saved checkpoint: ``id`` (for ``resume_from_checkpoint_id`` or
    ``client.checkpoints.download``), its trainer ``step``, its model ``registration`` if any."""

    id: str
    step: int
    created_at: str
    registration: dict[str, Any] | None = None


@dataclass(frozen=True)
class SampledSequence:
    """One sampled completion: ``tokens`` (numpy int64), ``logprobs`` (numpy float64, under the
    sampling policy; ``None`` if not sent), ``stop_reason`` (``"STOP_REASON_LENGTH"``, ...)."""

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
class SampleResult(_OperationResult):
    """One :class:`PromptSamples` per model input, in order: ``result[0].sequences[1].tokens``."""

    results: list[PromptSamples]

    def __getitem__(self, index: int) -> PromptSamples:
        return self.results[index]

    def __iter__(self) -> Iterator[PromptSamples]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)


def _int64(field: str, value: Any) -> int:
    """An ``Int64Value``: a JSON integer or a decimal string."""
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise MalformedResponseError(f"output.{field} is not an int64: {value!r}") from exc


def _int64_result(cls: Callable[[str, int], R], key: str) -> Callable[[str, Mapping[str, Any]], R]:
    return lambda operation_id, output: cls(operation_id, _int64(key, output[key]))


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


def _floats(values: Any) -> Any:
    return None if values is None else np.array(values, dtype=np.float64)


def _sequence(raw: Mapping[str, Any]) -> SampledSequence:
    return SampledSequence(
        # TokenId: integer or decimal string (numpy parses both, without a Python loop)
        tokens=np.array(raw.get("tokens") or (), dtype=np.int64),
        logprobs=_floats(raw.get("logprobs")),
        stop_reason=str(raw.get("stop_reason", "")),
        prompt_cache_hit_tokens=int(raw.get("prompt_cache_hit_tokens") or 0),
        routed_experts_key=raw.get("routed_experts_key"),
    )


def _prompt_samples(raw: Mapping[str, Any]) -> PromptSamples:
    topk = raw.get("topk_prompt_logprobs")
    return PromptSamples(
        sequences=[_sequence(s) for s in raw.get("sequences") or ()],
        policy_segments=[
            PolicySegment(start_token=int(s["start_token"]), version=int(s["version"]))
            for s in raw.get("policy_segments") or ()
        ],
        prompt_logprobs=_floats(raw.get("prompt_logprobs")),
        topk_prompt_logprobs=None if topk is None else [dict(entry) for entry in topk],
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


def parse_sample(operation_id: str, output: Mapping[str, Any]) -> SampleResult:
    return SampleResult(operation_id, [_prompt_samples(r) for r in output.get("results") or ()])


def parse_forward_backward(operation_id: str, output: Mapping[str, Any]) -> ForwardBackwardResult:
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


@dataclass(frozen=True)
class OperationKind(Generic[R]):
    """An operation kind (``"optim-step"``): its endpoints and output parser (maybe no output)."""

    name: str
    submit: Endpoint[..., Any]
    poll: Endpoint[..., Any]
    parse_output: Callable[[str, Mapping[str, Any]], R]
    output_optional: bool = False


#: the generated endpoints that submit (POST) or poll (GET) an operation, by method and kind
_OPERATION_ENDPOINTS = {
    (module.ENDPOINT.method, module.ENDPOINT.operation_kind): module.ENDPOINT
    for module in vars(rl).values()
    if isinstance(module, ModuleType) and module.ENDPOINT.operation_kind is not None
}
KINDS: dict[str, OperationKind[Any]] = {}


def _kind(
    name: str, parse: Callable[[str, Mapping[str, Any]], R], output_optional: bool = False
) -> OperationKind[R]:
    submit, poll = _OPERATION_ENDPOINTS["POST", name], _OPERATION_ENDPOINTS["GET", name]
    kind = KINDS[name] = OperationKind(name, submit, poll, parse, output_optional)
    return kind


FORWARD_BACKWARD = _kind("forward-backward", parse_forward_backward)
OPTIM_STEP = _kind("optim-step", _int64_result(OptimStepResult, "step"))
SAMPLE = _kind("sample", parse_sample)
WEIGHTS_SYNC = _kind("weights-sync", _int64_result(WeightsSyncResult, "weights_version"))
CUSTOM_FORWARD_BACKWARD = _kind(
    "custom-forward-backward",
    lambda id_, output: CustomForwardBackwardResult(id_, dict(output)),
    True,
)
TRAINING_CHECKPOINT = _kind("training-checkpoint", parse_checkpoint)
INFERENCE_CHECKPOINT = _kind("inference-checkpoint", parse_checkpoint)


def operation_kind(name: str) -> OperationKind[Any]:
    if name not in KINDS:
        raise invalid("kind", f"must be one of {sorted(KINDS)}, got {name!r}")
    return KINDS[name]


M = TypeVar("M")
COMPLETED = OperationStatus.TRAINING_OPERATION_STATUS_COMPLETED.value
FAILED = OperationStatus.TRAINING_OPERATION_STATUS_FAILED.value
#: the last word of the SessionStatus and ModelResourcesStatus members that are usable, and of
#: those that never will be (``..._STATUS_CREATING``, an unknown status, ...: still waiting)
_READY = {"RUNNING", "READY"}
_DEAD = {"STOPPED", "STOPPING", "ERROR", "EXPIRED"}
#: what a reader raises on a body of the wrong shape
_UNREADABLE = (KeyError, TypeError, ValueError, AttributeError)


def _malformed(what: str, data: Any, operation: str | None = None) -> MalformedResponseError:
    return MalformedResponseError(what, operation=operation, body=str(data)[:200])


def read_body(endpoint: Endpoint[Any, M], data: Any, operation: str | None = None) -> M:
    """The generated model of ``endpoint``'s 2xx body, or a :class:`MalformedResponseError`."""
    parse = endpoint.parse_response
    assert parse is not None, f"{endpoint.path} has no JSON answer"
    try:
        return parse(data)
    except _UNREADABLE as exc:
        raise _malformed(f"the answer cannot be read: {exc!r}", data, operation) from exc


def readiness(info: Session | ModelResources) -> bool:
    """RUNNING or READY: True; starting: False; raises when they can no longer become usable."""
    status = info.status
    state = status.name.rsplit("_", 1)[-1]  # an unknown status is named UNKNOWN
    if state in _DEAD:
        what = "session" if isinstance(info, Session) else "model resources"
        raise ResourceStateError(f"{what} {info.id} is {status.value}, it will not become usable")
    return state in _READY


@dataclass(frozen=True)
class OperationState:
    """A polled operation: a result or failure, still going, or an ``offloaded`` output to fetch."""

    operation_id: str
    status: str
    result: Any = None
    failure: MalformedResponseError | OperationFailedError | None = None
    offloaded: Mapping[str, Any] | None = None

    @property
    def terminal(self) -> bool:  # a result or a failure is known: nothing is left to fetch
        return self.result is not None or self.failure is not None

    @property
    def server_done(self) -> bool:  # the server has finished it: polling stops here
        return self.terminal or self.offloaded is not None


def complete_operation(
    kind: OperationKind[Any], operation_id: str, status: str, output: Mapping[str, Any]
) -> OperationState:
    """The terminal state of a COMPLETED operation whose (merged) ``output`` is known."""
    try:
        return OperationState(operation_id, status, result=kind.parse_output(operation_id, output))
    except _UNREADABLE as exc:
        what = f"operation {operation_id} completed with an output that cannot be read: {exc!r}"
        return OperationState(operation_id, status, failure=_malformed(what, output))


def interpret_operation(data: Any, kind: OperationKind[Any] = FORWARD_BACKWARD) -> OperationState:
    """Classify an operation body of ``kind``: only COMPLETED and FAILED are terminal."""
    if not isinstance(data, Mapping) or "id" not in data or "status" not in data:
        raise _malformed("an operation body needs 'id' and 'status'", data)
    operation_id, status = str(data["id"]), str(data["status"])
    if status == COMPLETED:
        output = data.get("output")
        if output is None and kind.output_optional:
            output = {}
        if not isinstance(output, Mapping):
            missing = _malformed(f"operation {operation_id} completed without an output", data)
            return OperationState(operation_id, status, failure=missing)
        if output.get("payload_id"):
            return OperationState(operation_id, status, offloaded=output)
        return complete_operation(kind, operation_id, status, output)
    if status == FAILED:
        error = data.get("error")
        error = error if isinstance(error, Mapping) else {}
        code, message = (str(error[k]) if error.get(k) else None for k in ("code", "message"))
        failure = OperationFailedError(operation_id, code, message)
        return OperationState(operation_id, status, failure=failure)
    return OperationState(operation_id, status)
