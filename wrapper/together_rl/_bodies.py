"""The checked wire bodies of every operation, built as plain dicts (numpy arrays stay arrays),
not through the generated attrs models, whose per-element loops cost on 64 x 2048 batches
(``docs/benchmarks.md`` measures both paths); the typed parameter objects :class:`AdamParams` and
:class:`SamplingParams`; and their encoding, on the hot path: orjson with numpy arrays as they
are, refusing non-finite numbers (JSON cannot carry one; orjson would write null). Bounds and
limits are read from the spec (:mod:`._schema`); a bad value raises :class:`InvalidRequestError`
naming the wire field before anything is sent."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, TypeVar

import numpy as np
import orjson
from together_rl_client.models import AdamParams as AdamParamsModel
from together_rl_client.models import GradientDType, SampleBody, WeightSyncType
from together_rl_client.models import SamplingParams as SamplingParamsModel

from ._errors import InvalidRequestError
from ._samples import Sample, as_int_vector, normalize_sample, sample_list
from ._schema import all_of_type, check_enum, check_fields, check_value, known_keys, number
from ._schema import set_fields as _set_fields
from .losses import Loss, normalize_loss

__all__ = [
    "AdamParams",
    "SamplingParams",
    "build_custom_forward_backward",
    "build_forward_backward",
    "build_optim_step",
    "build_sample",
    "build_weights_sync",
    "encode_body",
    "encode_json",
    "find_non_finite",
    "params_from",
]

ParamsT = TypeVar("ParamsT", "AdamParams", "SamplingParams")


@dataclass(frozen=True)
class AdamParams:
    """AdamW hyper-parameters of an optimizer step; unset fields take the server defaults (the
    spec's ``AdamParams`` states them; ``grad_clip_norm=0`` disables clipping). Only set fields
    are sent."""

    learning_rate: float | None = None
    beta1: float | None = None
    beta2: float | None = None
    eps: float | None = None
    weight_decay: float | None = None
    grad_clip_norm: float | None = None

    def __post_init__(self) -> None:
        check_fields(self, "adam_params", AdamParamsModel)

    def to_wire(self) -> dict[str, Any]:
        """The ``AdamParams`` wire dict: the set fields only."""
        return _set_fields(self)


@dataclass(frozen=True)
class SamplingParams:
    """Sampling parameters; unset fields take the server defaults. ``stop`` holds stop strings
    (the emulator reads each as a decimal token id; ints are sent as their decimal string)."""

    max_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    top_k: int | None = None
    seed: int | None = None
    stop: Sequence[str | int] | None = None

    def __post_init__(self) -> None:
        check_fields(self, "sampling_params", SamplingParamsModel, skip="stop")
        if self.stop is not None:
            field = "sampling_params.stop"
            if isinstance(self.stop, str | bytes) or not isinstance(self.stop, Sequence):
                raise InvalidRequestError(f"{field} must be a list of strings", field=field)
            for index, item in enumerate(self.stop):
                if not isinstance(item, str | numbers.Integral) or isinstance(item, bool):
                    raise InvalidRequestError(
                        f"{field}[{index}] must be a string (or a token id), got {item!r}",
                        field=f"{field}[{index}]",
                    )
            stop = tuple(item if isinstance(item, str) else str(int(item)) for item in self.stop)
            object.__setattr__(self, "stop", stop)

    def to_wire(self) -> dict[str, Any]:
        """The ``SamplingParams`` wire dict: the set fields only."""
        wire = _set_fields(self)
        if self.stop is not None:
            wire["stop"] = list(self.stop)
        return wire


def params_from(
    cls: type[ParamsT], value: ParamsT | Mapping[str, Any] | None, **given: Any
) -> ParamsT | None:
    """A ``cls`` from ``value`` (one, or a dict of its fields), or from the keyword fields that
    are set; refused when both are given."""
    label = "adam_params" if cls is AdamParams else "sampling_params"
    set_given = {key: field for key, field in given.items() if field is not None}
    if value is None:
        return cls(**set_given) if set_given else None
    if set_given:
        fields_given = ", ".join(sorted(set_given))
        raise InvalidRequestError(
            f"pass {label} or the fields ({fields_given}), not both", field=label
        )
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise InvalidRequestError(
            f"{label} must be a {cls.__name__} or a dict, got {type(value).__name__}", field=label
        )
    known_keys(label, value, (f.name for f in fields(cls)), cls.__name__)
    return cls(**dict(value))


def build_forward_backward(
    samples: Sequence[Any] | Any,
    loss: Loss | Mapping[str, Any],
    *,
    forward_only: bool = False,
    return_loss_fn_outputs: bool = False,
) -> dict[str, Any]:
    """The checked wire body of a forward-backward request (flags only when set, as the
    official SDK sends them)."""
    if hasattr(loss, "to_dict") and not isinstance(loss, Loss | Mapping):
        loss = loss.to_dict()
    loss_wire, builder = normalize_loss(loss)
    required, name = builder.required_sample_inputs(), builder.wire_type
    body: dict[str, Any] = {
        "samples": [
            normalize_sample(i, s, required, name) for i, s in enumerate(sample_list(samples))
        ],
        "loss": loss_wire,
    }
    if forward_only:
        body["forward_only"] = True
    if return_loss_fn_outputs:
        body["return_loss_fn_outputs"] = True
    return body


def build_optim_step(
    adam_params: AdamParams | None, muon_params: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The ``OptimStepBody``: ``adam_params`` only when given (or when a field is set)."""
    body: dict[str, Any] = {}
    if adam_params is not None:
        body["adam_params"] = adam_params.to_wire()
    if muon_params is not None:
        if not isinstance(muon_params, Mapping):
            raise InvalidRequestError("muon_params must be a dict", field="muon_params")
        body["muon_params"] = dict(muon_params)
    return body


def _model_input(index: int, value: Any) -> dict[str, Any]:
    label = f"model_inputs[{index}]"
    if isinstance(value, Mapping):
        if not isinstance(value.get("chunks"), list) or not value["chunks"]:
            field = f"{label}.chunks"
            raise InvalidRequestError(f"{field} must be a non-empty list", field=field)
        return dict(value)
    if isinstance(value, Sample):
        value = value.tokens
    if isinstance(value, str | bytes) or not isinstance(value, np.ndarray | Sequence):
        raise InvalidRequestError(
            f"{label} must be a list (or numpy array) of token ids, got {type(value).__name__}",
            field=label,
        )
    tokens = as_int_vector(label, value)
    if len(tokens) == 0 or int(tokens.min()) < 0:
        raise InvalidRequestError(f"{label} must be token ids (>= 0), not empty", field=label)
    return {"chunks": [{"encoded_text": {"tokens": tokens}}]}


def build_sample(
    model_inputs: Sequence[Any] | Any,
    *,
    num_samples: int = 1,
    sampling_params: SamplingParams | None = None,
    prompt_logprobs: bool = False,
    topk_prompt_logprobs: int = 0,
) -> dict[str, Any]:
    """The ``SampleBody``. ``model_inputs``: a list of prompts, each a token list, a 1-D numpy
    array or a wire ``ModelInput`` dict; a single token list/array is one prompt."""
    if isinstance(model_inputs, np.ndarray) or (
        isinstance(model_inputs, Sequence)
        and len(model_inputs) > 0
        and isinstance(model_inputs[0], numbers.Integral)
    ):
        model_inputs = [model_inputs]
    if isinstance(model_inputs, Mapping | str | bytes) or not isinstance(model_inputs, Sequence):
        raise InvalidRequestError("model_inputs must be a list of prompts", field="model_inputs")
    if len(model_inputs) == 0:
        raise InvalidRequestError("model_inputs must not be empty", field="model_inputs")
    if not isinstance(prompt_logprobs, bool):
        raise InvalidRequestError("prompt_logprobs must be a boolean", field="prompt_logprobs")
    body: dict[str, Any] = {
        "model_inputs": [_model_input(i, value) for i, value in enumerate(model_inputs)],
        "num_samples": check_value("num_samples", num_samples, SampleBody, "num_samples", True),
    }
    if sampling_params is not None and (params := sampling_params.to_wire()):
        body["sampling_params"] = params
    if prompt_logprobs:
        body["prompt_logprobs"] = True
    name = "topk_prompt_logprobs"
    if topk := check_value(name, topk_prompt_logprobs, SampleBody, name, True):
        body[name] = topk
    return body


def build_weights_sync(weight_sync_type: str) -> dict[str, Any]:
    """The ``WeightsSyncBody``; short names (``"synchronous"``) are expanded."""
    return {"weight_sync_type": check_enum("weight_sync_type", weight_sync_type, WeightSyncType)}


def _gradient(index: int, value: Any, length: int) -> dict[str, Any]:
    field = f"gradients[{index}].data"
    dtype = GradientDType.D_TYPE_FLOAT32.value
    if isinstance(value, Mapping):
        dtype, value = str(value.get("dtype", dtype)), value.get("data")
    if value is None or isinstance(value, str | bytes):
        raise InvalidRequestError(f"{field} must be a list of numbers", field=field)
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise InvalidRequestError(f"{field} must be one-dimensional", field=field)
        data: Any = np.ascontiguousarray(value, dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(data))
        if bad.size:
            raise InvalidRequestError(
                f"{field} holds a non-finite value (at position {int(bad[0])})", field=field
            )
    else:
        data = list(value)
        if all_of_type(data, numbers.Real) and all(map(math.isfinite, data)):
            data = [float(v) for v in data]
        else:  # name the first bad element
            data = [number(f"{field}[{i}]", v) for i, v in enumerate(data)]
    if len(data) != length:
        raise InvalidRequestError(
            f"{field} has {len(data)} values but samples[{index}] has {length} tokens",
            field=field,
        )
    return {"data": data, "dtype": dtype}


def build_custom_forward_backward(
    samples: Sequence[Any], gradients: Sequence[Any]
) -> dict[str, Any]:
    """The ``CustomForwardBackwardBody``: one gradient (dLoss/dlogp per token; a list, a numpy
    array or a ``Gradient`` dict) per sample, each as long as its sample. Custom gradients need
    only ``target_tokens`` of each sample (weights or mask optional)."""
    samples = sample_list(samples)
    if isinstance(gradients, Mapping) or not isinstance(gradients, np.ndarray | Sequence):
        raise InvalidRequestError("gradients must be a list (one per sample)", field="gradients")
    if len(gradients) != len(samples):
        raise InvalidRequestError(
            f"gradients has {len(gradients)} entries but there are {len(samples)} samples",
            field="gradients",
        )
    required = frozenset({"target_tokens"})
    wire_samples = [
        normalize_sample(i, sample, required, "custom-forward-backward")
        for i, sample in enumerate(samples)
    ]
    wire_gradients = [
        _gradient(i, gradient, len(sample["loss_fn_inputs"]["target_tokens"]["data"]))
        for i, (sample, gradient) in enumerate(zip(wire_samples, gradients, strict=True))
    ]
    return {"samples": wire_samples, "gradients": wire_gradients}


_JSON_OPTIONS = orjson.OPT_SERIALIZE_NUMPY
_NULL = re.compile(rb"null")


def _first_non_finite(values: Any) -> tuple[int, str] | None:
    if isinstance(values, np.ndarray):
        if values.dtype.kind != "f":
            return None
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size == 0:
            return None
        position = int(bad[0])
        return position, "NaN" if math.isnan(values[position]) else "Infinity"
    for position, value in enumerate(values):
        if isinstance(value, float) and not math.isfinite(value):
            return position, "NaN" if math.isnan(value) else "Infinity"
    return None


def find_non_finite(body: Mapping[str, Any]) -> InvalidRequestError | None:
    """The error naming the first non-finite number of a body, if there is one."""
    for index, sample in enumerate(body.get("samples") or ()):
        for key, tensor in sample["loss_fn_inputs"].items():
            found = _first_non_finite(tensor["data"])
            if found is not None:
                field = f"samples[{index}].loss_fn_inputs.{key}"
                return InvalidRequestError(
                    f"{field} contains {found[1]} (at position {found[0]}); JSON cannot carry "
                    "non-finite numbers",
                    field=field,
                )
    return None


def encode_body(body: Mapping[str, Any]) -> bytes:
    """orjson-encode an operation body, refusing non-finite numbers in sample tensors (orjson
    would silently write them as null; the other bodies' builders check their numbers)."""
    try:
        payload = orjson.dumps(body, option=_JSON_OPTIONS)
    except orjson.JSONEncodeError as exc:
        raise InvalidRequestError(f"the request body cannot be encoded as JSON: {exc}") from exc
    if _NULL.search(payload):  # a regex scans 5 MB about 2.5x faster than `b"null" in`
        error = find_non_finite(body)
        if error is not None:
            raise error
    return payload


def encode_json(value: Any) -> bytes:
    """orjson-encode a small body (sessions, model resources)."""
    return orjson.dumps(value, option=_JSON_OPTIONS)
