"""The sample builder: prompt + completion tokens in, one wire ``Sample`` out."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

from together_rl_client.models import DType

from ._checks import all_of_type
from ._errors import InvalidRequestError
from ._numpy import HAVE_NUMPY, is_array, np

__all__ = ["INPUT_DTYPES", "Sample"]

_INT64, _FLOAT32 = DType.INT64.value, DType.FLOAT32.value
#: The dtypes each known loss input key may have (the spec's ``LossFnInputs`` description, a
#: rule its schema cannot state), the first being the one sent for a bare array or list.
INPUT_DTYPES: dict[str, tuple[str, ...]] = {
    "target_tokens": (_INT64,),
    "logprobs": (_FLOAT32,),
    "advantages": (_FLOAT32,),
    "reference_logprobs": (_FLOAT32,),
    "weights": (_FLOAT32, _INT64),
    "mask": (_INT64, _FLOAT32),
}


def _as_int_vector(name: str, values: Any) -> Any:
    if is_array(values):
        if values.ndim != 1:
            raise InvalidRequestError(f"{name} must be one-dimensional", field=name)
        if values.dtype.kind not in "iub":
            raise InvalidRequestError(f"{name} must hold integers, got {values.dtype}", field=name)
        return values.astype(np.int64, copy=False)
    tokens = list(values)
    if not all_of_type(tokens, numbers.Integral):
        for token in tokens:  # name the first bad token
            if isinstance(token, bool) or not isinstance(token, numbers.Integral):
                raise InvalidRequestError(f"{name} must hold integers, got {token!r}", field=name)
    if HAVE_NUMPY:
        return np.asarray(tokens, dtype=np.int64)
    return [int(token) for token in tokens]


def _as_float_vector(name: str, values: Any, length: int) -> Any:
    """Per-completion-token values: a sequence of ``length`` numbers, or one number."""
    if isinstance(values, numbers.Real) and not isinstance(values, bool):
        if HAVE_NUMPY:
            return np.full(length, float(values), dtype=np.float64)
        return [float(values)] * length
    if is_array(values):
        if values.ndim != 1:
            raise InvalidRequestError(f"{name} must be one-dimensional", field=name)
        vector = values.astype(np.float64, copy=False)  # _shifted copies it
    else:
        seq = list(values)
        vector = np.asarray(seq, dtype=np.float64) if HAVE_NUMPY else [float(v) for v in seq]
    if len(vector) != length:
        raise InvalidRequestError(
            f"{name} must have one value per completion token ({length}), got {len(vector)}",
            field=name,
        )
    return vector


def _shifted(values: Any, prompt_slots: int) -> Any:
    """Prompt slots (masked) get 0.0; the completion values fill the last slots."""
    if HAVE_NUMPY:
        out = np.zeros(prompt_slots + len(values), dtype=np.float64)
        out[prompt_slots:] = values
        return out
    return [0.0] * prompt_slots + list(values)


class Sample:
    """One training sample: the model input tokens and its per-slot loss tensors.

    Build it with :meth:`from_completion` (which does the shift and the masking), or directly
    from already-aligned ``tokens`` and ``loss_fn_inputs`` (each value a ``TensorData`` dict, a
    numpy array or a list). A plain wire dict is accepted wherever a Sample is.
    """

    __slots__ = ("loss_fn_inputs", "routed_experts_key", "tokens")

    def __init__(
        self,
        tokens: Sequence[int] | Any,
        loss_fn_inputs: Mapping[str, Any],
        *,
        routed_experts_key: str | None = None,
    ) -> None:
        self.tokens = _as_int_vector("model_input.tokens", tokens)
        self.loss_fn_inputs = dict(loss_fn_inputs)
        self.routed_experts_key = routed_experts_key

    @classmethod
    def from_completion(
        cls,
        prompt_tokens: Sequence[int] | Any,
        completion_tokens: Sequence[int] | Any,
        *,
        logprobs: Sequence[float] | Any | None = None,
        advantages: float | Sequence[float] | Any | None = None,
        reference_logprobs: Sequence[float] | Any | None = None,
        weights: float | Sequence[float] | Any | None = None,
        routed_experts_key: str | None = None,
    ) -> Sample:
        """Align a sampled completion with the wire format (the spec's ``Sample``).

        ``model_input`` is ``(prompt + completion)[:-1]`` and ``target_tokens`` is
        ``(prompt + completion)[1:]``: slot ``t`` predicts token ``t + 1``. The per-completion-
        token values (``logprobs``, ``advantages`` (or one number per sequence),
        ``reference_logprobs``, ``weights``) go to the last ``len(completion)`` slots, the ones
        that predict completion tokens; the prompt slots are masked: ``weights`` 0 and every
        other tensor 0.0. ``weights`` defaults to 1.0 on every completion slot.
        """
        prompt = _as_int_vector("prompt_tokens", prompt_tokens)
        completion = _as_int_vector("completion_tokens", completion_tokens)
        if len(prompt) < 1:
            raise InvalidRequestError("prompt_tokens must not be empty", field="prompt_tokens")
        if len(completion) < 1:
            raise InvalidRequestError(
                "completion_tokens must not be empty", field="completion_tokens"
            )
        if HAVE_NUMPY:
            full = np.concatenate([prompt, completion])
        else:
            full = list(prompt) + list(completion)
        n_completion = len(completion)
        prompt_slots = len(prompt) - 1
        inputs: dict[str, Any] = {"target_tokens": full[1:]}
        for name, values in (
            ("logprobs", logprobs),
            ("advantages", advantages),
            ("reference_logprobs", reference_logprobs),
        ):
            if values is not None:
                inputs[name] = _shifted(_as_float_vector(name, values, n_completion), prompt_slots)
        completion_weights = _as_float_vector(
            "weights", 1.0 if weights is None else weights, n_completion
        )
        inputs["weights"] = _shifted(completion_weights, prompt_slots)
        return cls(full[:-1], inputs, routed_experts_key=routed_experts_key)

    def to_wire(self) -> dict[str, Any]:
        """The wire ``Sample`` dict (tensors stay numpy arrays; the encoder serialises them)."""
        tensors: dict[str, Any] = {}
        for key, value in self.loss_fn_inputs.items():
            if isinstance(value, Mapping):
                tensors[key] = value
            else:
                dtype = INPUT_DTYPES.get(key, (_FLOAT32,))[0]
                tensors[key] = {"data": value, "dtype": dtype}
        wire: dict[str, Any] = {
            "model_input": {"chunks": [{"encoded_text": {"tokens": self.tokens}}]},
            "loss_fn_inputs": tensors,
        }
        if self.routed_experts_key is not None:
            wire["routed_experts_key"] = self.routed_experts_key
        return wire

    def __len__(self) -> int:
        return len(self.tokens)

    def __repr__(self) -> str:
        return f"Sample(tokens={len(self.tokens)}, inputs={sorted(self.loss_fn_inputs)})"
