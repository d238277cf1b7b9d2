"""The forward-backward and custom-forward-backward requests of a large body of many short
samples, validated from its typed decoding (`_typed_body.py`) instead of Python dicts.

The rules and messages are those of `_requests.py` and `_custom_requests.py`: the schema check
is `decode_typed`'s, the loss is checked by `validated_loss`, and the samples' rules run as
`_sample_batch.py`'s one numpy pass per block over the typed samples; a sample it flags is
decoded plainly and goes through `_validate_sample`, so the first bad sample and its message
are the plain path's own. None (take the plain path) whenever `decode_typed` is unsure, and for
a body the array decoder (`_fast_decode.py`, long number lists) suits better.
"""

from __future__ import annotations

import itertools
from typing import Any

import msgspec
import numpy as np

from ._custom_requests import (
    _CUSTOM_FB_INPUTS,
    _CUSTOM_FB_LABEL,
    CustomForwardBackwardRequest,
    _gradient,
)
from ._errors import ApiError, invalid
from ._fast_decode import MIN_LIST_BYTES
from ._loss_request import validated_loss
from ._requests import (
    ForwardBackwardRequest,
    RequiredInput,
    ValidatedSample,
    _keys_ok,
    _required_inputs,
    _validate_sample,
)
from ._sample_batch import Rules, checked_with_rules
from ._spec import LOSS_INPUTS
from ._typed_body import TYPED_DECODE_MIN_BYTES, TypedBody
from ._typed_samples import flagged_samples, gather_structs

__all__ = ["typed_custom_forward_backward", "typed_forward_backward"]

_NUMBER_ERRORS = (OverflowError, ValueError, TypeError, RecursionError)
_NOT_A_NUMBER = "the request holds a value that cannot be used as a number"


def typed_forward_backward(
    raw: bytes, vocab_size: int, min_bytes: int | None = None
) -> ForwardBackwardRequest | None:
    """`validate_forward_backward` of the body `raw`, or None: validate it plainly (also
    for a body under `min_bytes`, by default `TYPED_DECODE_MIN_BYTES`)."""
    if len(raw) < _min_bytes(min_bytes) or raw.count(b"[") * MIN_LIST_BYTES <= len(raw):
        return None  # small, or mostly long lists: the other decoders suit it better
    body = TypedBody.open(raw, "ForwardBackwardBody", ("samples",))
    if body is None:
        return None
    members = body.members
    try:
        verdicts = _Verdicts(_rules_of_loss(members), vocab_size)
        if not body.check(verdicts):
            return None
        try:
            loss = validated_loss(members["loss"])
            required = _required_inputs(loss)
            samples = _samples(body, verdicts.flagged, loss["type"], required, vocab_size)
        except _NUMBER_ERRORS as exc:
            raise invalid(None, _NOT_A_NUMBER) from exc
    finally:
        body.release()
    return ForwardBackwardRequest(
        samples=samples,
        loss=dict(loss),
        forward_only=bool(members.get("forward_only", False)),
        return_loss_fn_outputs=bool(members.get("return_loss_fn_outputs", False)),
    )


def typed_custom_forward_backward(
    raw: bytes, vocab_size: int, min_bytes: int | None = None
) -> CustomForwardBackwardRequest | None:
    """`validate_custom_forward_backward` of the body `raw`, or None: validate it plainly
    (also for a body under `min_bytes`, by default `TYPED_DECODE_MIN_BYTES`)."""
    if len(raw) < _min_bytes(min_bytes):
        return None
    body = TypedBody.open(raw, "CustomForwardBackwardBody", ("samples", "gradients"))
    if body is None:
        return None
    try:
        verdicts = _Verdicts(_rules(_CUSTOM_FB_INPUTS), vocab_size)
        if not body.check(verdicts):
            return None
        n_samples, n_gradients = body.count("samples"), body.count("gradients")
        if n_gradients != n_samples:
            raise invalid(
                "gradients",
                f"has {n_gradients} entries but there are {n_samples} samples"
                " (one gradient per sample)",
            )
        try:
            samples = _samples(
                body, verdicts.flagged, _CUSTOM_FB_LABEL, _CUSTOM_FB_INPUTS, vocab_size
            )
            values = _gradients(body, [sample.tokens.size for sample in samples])
        except _NUMBER_ERRORS as exc:
            raise invalid(None, _NOT_A_NUMBER) from exc
    finally:
        body.release()
    return CustomForwardBackwardRequest(samples=samples, gradients=values)


def _min_bytes(given: int | None) -> int:
    return TYPED_DECODE_MIN_BYTES if given is None else given


def _rules(required: list[RequiredInput]) -> Rules:
    return Rules(
        lambda keys: _keys_ok(keys, required),
        lambda key, dtype: dtype in LOSS_INPUTS.dtypes.get(key, (dtype,)),
    )


def _rules_of_loss(members: dict[str, Any]) -> Rules | None:
    """The samples' rules for the body's loss, or None when the loss is refused (it is said
    after the schema check, as the plain path says it)."""
    try:
        return _rules(_required_inputs(validated_loss(members["loss"])))
    except (ApiError, KeyError, AttributeError, *_NUMBER_ERRORS):
        return None


class _Verdicts:
    """Visits the batches of typed samples (`TypedBody.check`): `flagged` holds the indices of
    the samples that may break a rule, in order (None: check every sample alone)."""

    def __init__(self, rules: Rules | None, vocab_size: int) -> None:
        self._rules = rules
        self._vocab_size = vocab_size
        self.flagged: list[int] | None = None if rules is None else []

    def __call__(self, name: str, items: list[Any], start: int) -> None:
        if name != "samples" or self.flagged is None or self._rules is None:
            return
        found = flagged_samples(items, self._vocab_size, self._rules)
        if found is None:
            self.flagged = None
        else:
            self.flagged += [start + index for index in found]


def _samples(
    body: TypedBody,
    flagged: list[int] | None,
    loss_type: str,
    required: list[RequiredInput],
    vocab_size: int,
) -> list[ValidatedSample]:
    """`_requests._validated_samples` of a checked body's samples, `flagged` by `_Verdicts`."""

    def checked_alone(index: int) -> ValidatedSample:
        sample = body.plain("samples", index)
        return _validate_sample(index, sample, loss_type, required, vocab_size)

    if flagged is None:
        return [checked_alone(index) for index in range(body.count("samples"))]
    # The first bad sample raises here, before any sample's arrays are made.
    alone = {index: checked_alone(index) for index in flagged}
    rules = _rules(required)
    out: list[ValidatedSample] = []
    for start, items in body.batches("samples"):
        arrays = checked_with_rules(items, vocab_size, rules, gather_structs)
        for index, sample in enumerate(items, start):
            checked = None if arrays is None else arrays[index - start]
            if checked is None:
                out.append(alone[index] if index in alone else checked_alone(index))
            else:
                out.append(
                    ValidatedSample(*checked, routed_experts_key=_routed_experts_key(sample))
                )
    return out


def _routed_experts_key(sample: Any) -> str | None:
    key = sample.routed_experts_key
    return None if key is msgspec.UNSET else key


def _gradients(body: TypedBody, lengths: list[int]) -> list[np.ndarray]:
    """Each gradient's data as `_custom_requests._gradient` returns it (JSON numbers are
    finite: only a length differs, and that gradient goes through `_gradient`)."""
    out: list[np.ndarray] = []
    for start, items in body.batches("gradients"):
        data = [gradient.data for gradient in items]
        values = np.fromiter(
            itertools.chain.from_iterable(data), dtype=np.float64, count=sum(map(len, data))
        )
        bounds = np.cumsum([0, *map(len, data)]).tolist()
        for offset, values_of in enumerate(data):
            index, n_tokens = start + offset, lengths[start + offset]
            if len(values_of) != n_tokens:
                out.append(_gradient(index, body.plain("gradients", index), n_tokens))
            else:
                out.append(values[bounds[offset] : bounds[offset + 1]])
    return out
