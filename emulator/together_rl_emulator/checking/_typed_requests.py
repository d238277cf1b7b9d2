"""The forward-backward and custom-forward-backward requests of a large body of many short
samples, checked from its typed decoding (`_typed_body.py`) instead of Python dicts.

The rules and messages are those of `_requests.py` and `_custom_requests.py`: the schema check
is `TypedBody.check`'s, the loss is checked by `validated_loss`, and the samples' rules run a
column at a time over each piece of typed samples (`_typed_samples.py`); a sample that check
flags is decoded plainly and goes through `_validate_sample`, so the first bad sample and its
message are the plain path's own. A body found valid is decoded plainly (its idempotency digest
needs that decoding anyway) and its request made by the plain path's own code, after the
schema check it no longer needs. None (take the plain path) whenever `TypedBody` is unsure,
and for a body the array decoder (`_fast_decode.py`, long number lists) suits better.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..base import LOSS_INPUTS, ApiError, invalid
from ._custom_requests import (
    _CUSTOM_FB_INPUTS,
    _CUSTOM_FB_LABEL,
    CustomForwardBackwardRequest,
    custom_forward_backward_request,
)
from ._fast_decode import MIN_LIST_BYTES
from ._loss_request import validated_loss
from ._requests import (
    ForwardBackwardRequest,
    RequiredInput,
    _keys_ok,
    _required_inputs,
    _validate_sample,
    forward_backward_request,
)
from ._sample_batch import Rules
from ._typed_body import TYPED_DECODE_MIN_BYTES, TypedBody
from ._typed_samples import flagged_samples

__all__ = ["typed_custom_forward_backward", "typed_forward_backward"]

_NUMBER_ERRORS = (OverflowError, ValueError, TypeError, RecursionError)
_NOT_A_NUMBER = "the request holds a value that cannot be used as a number"


def typed_forward_backward(
    raw: bytes, vocab_size: int, plain: Callable[[], Any], min_bytes: int | None = None
) -> ForwardBackwardRequest | None:
    """`validate_forward_backward` of the body `raw` (`plain()`: the body decoded plainly,
    needed only when it is valid), or None: validate it plainly (also for a body under
    `min_bytes`, by default `TYPED_DECODE_MIN_BYTES`)."""
    if len(raw) < _min_bytes(min_bytes) or raw.count(b"[") * MIN_LIST_BYTES <= len(raw):
        return None  # small, or mostly long lists: the other decoders suit it better
    body = TypedBody.open(raw, "ForwardBackwardBody", ("samples",))
    if body is None:
        return None
    try:
        verdicts = _Verdicts(_rules_of_loss(body.members), vocab_size)
        if not body.check(verdicts):
            return None
        if verdicts.flagged is not None:
            loss = validated_loss(body.members["loss"])
            required = _required_inputs(loss)
            _refuse_first_bad(body, verdicts.flagged, loss["type"], required, vocab_size)
    finally:
        body.release()
    return forward_backward_request(plain(), vocab_size)


def typed_custom_forward_backward(
    raw: bytes, vocab_size: int, plain: Callable[[], Any], min_bytes: int | None = None
) -> CustomForwardBackwardRequest | None:
    """`validate_custom_forward_backward` of the body `raw`, as `typed_forward_backward`."""
    if len(raw) < _min_bytes(min_bytes):
        return None
    body = TypedBody.open(raw, "CustomForwardBackwardBody", ("samples", "gradients"))
    if body is None:
        return None
    try:
        verdicts = _Verdicts(_rules(_CUSTOM_FB_INPUTS), vocab_size)
        if not body.check(verdicts):
            return None
        # The plain path's order: the counts, the samples, then the gradients (plainly).
        if body.count("samples") == body.count("gradients") and verdicts.flagged is not None:
            flagged = verdicts.flagged
            _refuse_first_bad(body, flagged, _CUSTOM_FB_LABEL, _CUSTOM_FB_INPUTS, vocab_size)
    finally:
        body.release()
    return custom_forward_backward_request(plain(), vocab_size)


def _refuse_first_bad(
    body: TypedBody,
    flagged: list[int],
    loss_type: str,
    required: list[RequiredInput],
    vocab_size: int,
) -> None:
    """Raise the per-sample checks' 400 for the first bad sample among `flagged` (the samples
    not flagged pass every rule), if any."""
    try:
        for index in flagged:
            sample = body.plain("samples", index)
            _validate_sample(index, sample, loss_type, required, vocab_size)
    except _NUMBER_ERRORS as exc:
        raise invalid(None, _NOT_A_NUMBER) from exc


def _min_bytes(given: int | None) -> int:
    return TYPED_DECODE_MIN_BYTES if given is None else given


def _rules(required: list[RequiredInput]) -> Rules:
    return Rules(
        lambda keys: _keys_ok(keys, required),
        lambda key, dtype: dtype in LOSS_INPUTS.dtypes.get(key, (dtype,)),
    )


def _rules_of_loss(members: dict[str, Any]) -> Rules | None:
    """The samples' rules for the body's loss, or None when the loss is refused (the plain
    path says so, after the schema check)."""
    try:
        return _rules(_required_inputs(validated_loss(members["loss"])))
    except (ApiError, KeyError, AttributeError, *_NUMBER_ERRORS):
        return None


class _Verdicts:
    """Visits the pieces of typed samples (`TypedBody.check`): `flagged` holds the indices of
    the samples that may break a rule, in order (None: leave every sample to the plain path)."""

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
