"""The checked wire bodies of every operation, built as plain dicts (numpy arrays stay arrays;
orjson serialises them natively), not through the generated attrs models, whose per-element loops
cost on 64 x 2048 batches (``docs/benchmarks.md`` measures both paths), and the typed parameter
objects :class:`AdamParams` and :class:`SamplingParams` (or the same fields as keywords). Bounds and
limits are read from the spec (through the generated models); a bad value raises
:class:`InvalidRequestError` naming the wire field before anything is sent."""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from together_rl_client.models import AdamParams as AdamParamsModel
from together_rl_client.models import GradientDType, SampleBody, WeightSyncType
from together_rl_client.models import SamplingParams as SamplingParamsModel

from ._checks import all_of_type, known_keys, number
from ._errors import InvalidRequestError
from ._samples import Sample, as_int_vector, normalize_sample, sample_list, wire_array
from ._schema import check_enum, check_fields, check_integer, set_fields
from .losses import Loss, normalize_loss

__all__ = [
    "AdamParams",
    "SamplingParams",
    "adam_params_from",
    "build_custom_forward_backward",
    "build_forward_backward",
    "build_optim_step",
    "build_sample",
    "build_weights_sync",
    "sampling_params_from",
]


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


def _set_fields(name: str, value: object, given: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword fields that are set, refused beside an explicit ``name`` object."""
    set_fields = {key: field for key, field in given.items() if field is not None}
    if value is not None and set_fields:
        raise InvalidRequestError(
            f"pass {name} or the fields ({', '.join(sorted(set_fields))}), not both", field=name
        )
    return set_fields


def adam_params_from(
    adam_params: AdamParams | Mapping[str, Any] | None, **given: float | None
) -> AdamParams | None:
    """``adam_params`` or the keyword fields (only the set ones), not both."""
    set_fields = _set_fields("adam_params", adam_params, given)
    if adam_params is not None:
        return AdamParams.from_value(adam_params)
    return AdamParams(**set_fields) if set_fields else None


def sampling_params_from(
    sampling_params: SamplingParams | Mapping[str, Any] | None, **given: Any
) -> SamplingParams | Mapping[str, Any] | None:
    """``sampling_params`` or the keyword fields (only the set ones), not both."""
    set_fields = _set_fields("sampling_params", sampling_params, given)
    if sampling_params is not None:
        return sampling_params
    return SamplingParams(**set_fields) if set_fields else None


# ----------------------------------------------------------------------------- optim-step


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

    def to_wire(self) -> dict[str, float]:
        """The ``AdamParams`` wire dict: the set fields only."""
        return set_fields(self)

    @classmethod
    def from_value(cls, value: AdamParams | Mapping[str, Any]) -> AdamParams:
        """An ``AdamParams`` as given, or checked from a dict of its fields."""
        if isinstance(value, AdamParams):
            return value
        if not isinstance(value, Mapping):
            raise InvalidRequestError(
                f"adam_params must be an AdamParams or a dict, got {type(value).__name__}",
                field="adam_params",
            )
        known_keys("adam_params", value, (f.name for f in fields(cls)), "AdamParams")
        return cls(**dict(value))


def build_optim_step(
    adam_params: AdamParams | Mapping[str, Any] | None,
    muon_params: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``OptimStepBody``: ``adam_params`` only when given (or when a field is set)."""
    body: dict[str, Any] = {}
    if adam_params is not None:
        body["adam_params"] = AdamParams.from_value(adam_params).to_wire()
    if muon_params is not None:
        if not isinstance(muon_params, Mapping):
            raise InvalidRequestError("muon_params must be a dict", field="muon_params")
        body["muon_params"] = dict(muon_params)
    return body


# ----------------------------------------------------------------------------- sample


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
        p = "sampling_params"
        check_fields(self, p, SamplingParamsModel, skip="stop")
        if self.stop is not None:
            if isinstance(self.stop, str | bytes) or not isinstance(self.stop, Sequence):
                raise InvalidRequestError(f"{p}.stop must be a list of strings", field=f"{p}.stop")
            stop: list[str] = []
            for index, item in enumerate(self.stop):
                if isinstance(item, str):
                    stop.append(item)
                elif isinstance(item, numbers.Integral) and not isinstance(item, bool):
                    stop.append(str(int(item)))
                else:
                    field = f"{p}.stop[{index}]"
                    raise InvalidRequestError(
                        f"{field} must be a string (or a token id), got {item!r}", field=field
                    )
            object.__setattr__(self, "stop", tuple(stop))

    def to_wire(self) -> dict[str, Any]:
        """The ``SamplingParams`` wire dict: the set fields only."""
        wire = set_fields(self)
        if self.stop is not None:
            wire["stop"] = list(self.stop)
        return wire


def _model_input(index: int, value: Any) -> dict[str, Any]:
    label = f"model_inputs[{index}]"
    if isinstance(value, Mapping):
        chunks = value.get("chunks")
        if not isinstance(chunks, list) or not chunks:
            field = f"{label}.chunks"
            raise InvalidRequestError(f"{field} must be a non-empty list", field=field)
        return dict(value)
    if isinstance(value, Sample):
        tokens = value.tokens
    else:
        if isinstance(value, str | bytes) or not (isinstance(value, (np.ndarray, Sequence))):
            raise InvalidRequestError(
                f"{label} must be a list (or numpy array) of token ids, got {type(value).__name__}",
                field=label,
            )
        tokens = as_int_vector(label, value)
    if len(tokens) == 0:
        raise InvalidRequestError(f"{label} must not be empty", field=label)
    if (
        min(int(t) for t in tokens) if not isinstance(tokens, np.ndarray) else int(tokens.min())
    ) < 0:
        raise InvalidRequestError(f"{label} holds a negative token id", field=label)
    wire_tokens = wire_array(tokens) if isinstance(tokens, np.ndarray) else list(tokens)
    return {"chunks": [{"encoded_text": {"tokens": wire_tokens}}]}


def build_sample(
    model_inputs: Sequence[Any] | Any,
    *,
    num_samples: int = 1,
    sampling_params: SamplingParams | Mapping[str, Any] | None = None,
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
    body: dict[str, Any] = {
        "model_inputs": [_model_input(i, value) for i, value in enumerate(model_inputs)],
        "num_samples": check_integer("num_samples", num_samples, SampleBody, "num_samples"),
    }
    if sampling_params is not None:
        if isinstance(sampling_params, Mapping):
            try:
                sampling_params = SamplingParams(**dict(sampling_params))
            except TypeError as exc:
                raise InvalidRequestError(
                    f"sampling_params: {exc}", field="sampling_params"
                ) from exc
        params = sampling_params.to_wire()
        if params:
            body["sampling_params"] = params
    if not isinstance(prompt_logprobs, bool):
        raise InvalidRequestError("prompt_logprobs must be a boolean", field="prompt_logprobs")
    if prompt_logprobs:
        body["prompt_logprobs"] = True
    topk = check_integer(
        "topk_prompt_logprobs", topk_prompt_logprobs, SampleBody, "topk_prompt_logprobs"
    )
    if topk:
        body["topk_prompt_logprobs"] = topk
    return body


# ----------------------------------------------------------------------------- weights-sync


def build_weights_sync(weight_sync_type: str) -> dict[str, Any]:
    """The ``WeightsSyncBody``; short names (``"synchronous"``) are expanded."""
    return {"weight_sync_type": check_enum("weight_sync_type", weight_sync_type, WeightSyncType)}


# ------------------------------------------------------------------ custom-forward-backward


def _gradient(index: int, value: Any, length: int) -> dict[str, Any]:
    field = f"gradients[{index}].data"
    dtype = GradientDType.D_TYPE_FLOAT32.value
    if isinstance(value, Mapping):
        dtype = str(value.get("dtype", dtype))
        value = value.get("data")
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
    array or a ``Gradient`` dict) per sample, each as long as its sample."""
    samples = sample_list(samples)
    if isinstance(gradients, Mapping) or not (isinstance(gradients, (np.ndarray, Sequence))):
        raise InvalidRequestError("gradients must be a list (one per sample)", field="gradients")
    if len(gradients) != len(samples):
        raise InvalidRequestError(
            f"gradients has {len(gradients)} entries but there are {len(samples)} samples",
            field="gradients",
        )
    # Custom gradients need only target_tokens (weights or mask optional).
    required = frozenset({"target_tokens"})
    wire_samples = [
        normalize_sample(i, sample, required, "custom-forward-backward")
        for i, sample in enumerate(samples)
    ]
    wire_gradients = []
    for index, (sample, gradient) in enumerate(zip(wire_samples, gradients, strict=True)):
        length = len(sample["loss_fn_inputs"]["target_tokens"]["data"])
        wire_gradients.append(_gradient(index, gradient, length))
    return {"samples": wire_samples, "gradients": wire_gradients}
