"""The operation kinds of a training session, described once: where each is POSTed and polled
and how its ``output`` becomes a result. Sync and async clients drive every kind through the
same submit / poll / collect code; adding a kind means adding one :class:`OperationKind`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Generic, TypeVar, cast

from together_rl_client.api.rl import (
    custom_forward_backward,
    forward_backward,
    get_custom_forward_backward_operation,
    get_forward_backward_operation,
    get_optim_step_operation,
    get_sample_operation,
    get_weights_sync_operation,
    optim_step,
    sample,
    weights_sync,
)

from ._errors import InvalidRequestError
from ._http import RequestSpec
from ._numpy import HAVE_NUMPY, np
from ._results import (
    CustomForwardBackwardResult,
    ForwardBackwardResult,
    OptimStepResult,
    PolicySegment,
    PromptSamples,
    SampledSequence,
    SampleResult,
    WeightsSyncResult,
)
from ._wire import result_from_output

R = TypeVar("R")
ROUTE_PREFIX = "/v1/rl/training-sessions/{session_id}/operations/"


class _PrebuiltBody:
    """Stands in for a generated ``*Body`` model so ``_get_kwargs`` gives us method, URL and
    headers without walking large arrays through the attrs models."""

    def to_dict(self) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class OperationKind(Generic[R]):
    """One operation kind: ``name`` is its path segment (``"optim-step"``)."""

    name: str
    post_module: ModuleType
    get_module: ModuleType
    parse_output: Callable[[str, Mapping[str, Any]], R]

    @property
    def post_route(self) -> str:
        return f"POST {ROUTE_PREFIX}{self.name}"

    @property
    def get_route(self) -> str:
        return f"GET {ROUTE_PREFIX}{self.name}/{{operation_id}}"

    def post_request(self, session_id: str, content: bytes, key: str) -> RequestSpec:
        kwargs = self.post_module._get_kwargs(
            session_id, body=cast(Any, _PrebuiltBody()), idempotency_key=key
        )
        kwargs.pop("json", None)
        return RequestSpec.from_kwargs(kwargs, operation=self.post_route, content=content)

    def get_request(self, session_id: str, operation_id: str) -> RequestSpec:
        if not operation_id:
            raise InvalidRequestError("operation_id must not be empty", field="operation_id")
        kwargs = self.get_module._get_kwargs(session_id, operation_id)
        return RequestSpec.from_kwargs(kwargs, operation=self.get_route)


# ----------------------------------------------------------------------------- output parsers


def _int64(field: str, value: Any) -> int:
    """An ``Int64Value``: a JSON integer or a decimal string."""
    try:
        return int(value)
    except (TypeError, ValueError) as exc:
        raise InvalidRequestError(f"output.{field} is not an int64: {value!r}") from exc


def parse_optim_step(operation_id: str, output: Mapping[str, Any]) -> OptimStepResult:
    return OptimStepResult(operation_id=operation_id, step=_int64("step", output["step"]))


def parse_weights_sync(operation_id: str, output: Mapping[str, Any]) -> WeightsSyncResult:
    return WeightsSyncResult(
        operation_id=operation_id,
        weights_version=_int64("weights_version", output["weights_version"]),
    )


def parse_custom_forward_backward(
    operation_id: str, output: Mapping[str, Any]
) -> CustomForwardBackwardResult:
    return CustomForwardBackwardResult(operation_id=operation_id, output=dict(output))


def _tokens(values: Any) -> Any:
    # TokenId: integer or decimal string (numpy parses both, without a Python loop)
    return np.array(values, dtype=np.int64) if HAVE_NUMPY else [int(t) for t in values]


def _floats(values: Any) -> Any:
    if values is None:
        return None
    return np.array(values, dtype=np.float64) if HAVE_NUMPY else [float(v) for v in values]


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


# ----------------------------------------------------------------------------- the kinds

FORWARD_BACKWARD: OperationKind[ForwardBackwardResult] = OperationKind(
    "forward-backward",
    forward_backward,
    get_forward_backward_operation,
    result_from_output,
)
OPTIM_STEP: OperationKind[OptimStepResult] = OperationKind(
    "optim-step", optim_step, get_optim_step_operation, parse_optim_step
)
SAMPLE: OperationKind[SampleResult] = OperationKind(
    "sample", sample, get_sample_operation, parse_sample
)
WEIGHTS_SYNC: OperationKind[WeightsSyncResult] = OperationKind(
    "weights-sync", weights_sync, get_weights_sync_operation, parse_weights_sync
)
CUSTOM_FORWARD_BACKWARD: OperationKind[CustomForwardBackwardResult] = OperationKind(
    "custom-forward-backward",
    custom_forward_backward,
    get_custom_forward_backward_operation,
    parse_custom_forward_backward,
)
KINDS: dict[str, OperationKind[Any]] = {
    kind.name: kind
    for kind in (FORWARD_BACKWARD, OPTIM_STEP, SAMPLE, WEIGHTS_SYNC, CUSTOM_FORWARD_BACKWARD)
}
