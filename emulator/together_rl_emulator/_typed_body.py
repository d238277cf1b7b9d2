"""A large body's long arrays (a batch's `samples`) decoded by msgspec into types built from
the spec (`_typed_schema.py`): one C pass validates each item while it decodes it, and makes no
dict. The rest of the body (`loss`, flags: a few bytes) is decoded by orjson, as the plain path
does, and the schema check runs on it with one item of each array standing in for the array.

`TypedBody.open` then `check` say "valid" (each batch of typed items passed to the caller on
the way, then dropped: the body's items are never all alive at once), or raise the plain path's
own 400, or say "unsure" (None, False) whenever they are not sure (the caller then takes the
plain path, whose error is the one reported):

- the body is not a JSON object of distinct members, a member is not JSON orjson reads (the
  plain decoder's verdict), nested deeper than the idempotency digest encodes;
- the types refuse an item the schema check accepts (the types are stricter in a few places).

When the types refuse item `k` of an array, the items before it are valid (the types accept no
more than the schema), so the schema's first error is the one of the body with item `k` alone
in that array, at index `k`: the check runs on that body, and its path is moved to `k`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec
import numpy as np
import orjson

from ._errors import invalid
from ._typed_schema import typed_items
from ._validation import schema_violation

__all__ = ["BATCH", "TYPED_DECODE_MIN_BYTES", "TypedBody", "Visit"]

# Smaller bodies take the plain path (a few tens of milliseconds at most).
TYPED_DECODE_MIN_BYTES = 4 * 1024 * 1024
BATCH = 2_000  # items decoded per msgspec call: each call holds the GIL for a few milliseconds
# Between two members of the top-level object: a comma, then the next member's key and colon.
_BETWEEN = re.compile(rb'\s*,\s*"(?:[^"\\]|\\.)*"\s*:\s*', re.DOTALL)
_FIRST = re.compile(rb'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*', re.DOTALL)
_LAST = re.compile(rb"\s*\}\s*")


# Called with each batch of an array's typed items, and the index of the first of them; the
# items are dropped after the call (a large body's items are never all alive at once).
Visit = Callable[[str, list[Any], int], None]


class _Unsure(Exception):
    pass


_UNSURE: tuple[type[Exception], ...] = (
    msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError, _Unsure,
    orjson.JSONEncodeError, TypeError, ValueError, RecursionError,
)  # fmt: skip


class TypedBody:
    """A JSON object whose long arrays are decoded into the spec's types a batch at a time."""

    def __init__(
        self,
        members: dict[str, Any],
        texts: dict[str, list[msgspec.Raw]],
        order: list[str],
        schema_name: str,
    ) -> None:
        self.members = members  # the other members, decoded plainly
        self._texts = texts  # each array's items' JSON texts
        self._order = order  # the members' names, in the body's order
        self._schema_name = schema_name

    @classmethod
    def open(cls, raw: bytes, schema_name: str, array_names: Sequence[str]) -> TypedBody | None:
        """The body's members and its arrays' item texts, or None when unsure."""
        if any(typed_items(schema_name, name) is None for name in array_names):
            return None
        try:
            top = _members(raw)
            if not set(array_names) <= top.keys():
                return None
            members = {name: orjson.loads(memoryview(text)) for name, text in top.items()
                       if name not in array_names}  # fmt: skip
            orjson.dumps(members, option=orjson.OPT_SORT_KEYS)  # the digest can encode them
            texts = {
                name: msgspec.json.decode(top[name], type=list[msgspec.Raw]) for name in array_names
            }
        except _UNSURE:
            return None
        return cls(members, texts, list(top), schema_name)

    def count(self, name: str) -> int:
        return len(self._texts[name])

    def plain(self, name: str, index: int) -> Any:
        """Item `index` of array `name` as the plain decoder reads it."""
        return orjson.loads(memoryview(self._texts[name][index]))

    def batches(self, name: str) -> Iterator[tuple[int, list[Any]]]:
        """`(index of the first, typed items)` of array `name`, `BATCH` at a time (the body
        passed `check`)."""
        decoder = msgspec.json.Decoder(list[typed_items(self._schema_name, name)])  # type: ignore[misc]
        texts = self._texts[name]
        for start in range(0, len(texts), BATCH):
            yield start, decoder.decode(b"[" + b",".join(texts[start : start + BATCH]) + b"]")

    def check(self, visit: Visit) -> bool:
        """Decode every array into its types, passing each batch to `visit`, then check the
        body against the schema: True when valid, raises the plain path's 400, False when
        unsure (the body takes the plain path)."""
        refused: dict[str, int] = {}
        try:
            for name, texts in self._texts.items():
                refused_at = _typed_items(name, texts, typed_items(self._schema_name, name), visit)
                if refused_at is not None:
                    refused[name] = refused_at
                    _check_plain(texts[refused_at + 1 :])
            stand_ins = {
                name: [self.plain(name, refused.get(name, 0))] if texts else []
                for name, texts in self._texts.items()
            }
        except _UNSURE:
            return False
        body = {name: stand_ins[name] if name in stand_ins else self.members[name]
                for name in self._order}  # fmt: skip
        violation = schema_violation(self._schema_name, body)
        if violation is None:
            return not refused
        param = violation.param or ""
        for name in self._texts:
            head = f"{name}[0]"
            if param == head or param.startswith((f"{head}.", f"{head}[")):
                if name not in refused:
                    return False  # the types accepted an item the schema refuses: unsure
                param = f"{name}[{refused[name]}]{param[len(head) :]}"
        raise invalid(param or None, violation.reason, emulator_rule=violation.emulator_rule)

    def release(self) -> None:
        """Free the item texts a batch at a time: freeing them all in one go would hold the GIL
        for a long while (other requests wait meanwhile)."""
        for texts in self._texts.values():
            while texts:
                del texts[-BATCH:]


def _members(raw: bytes) -> dict[str, msgspec.Raw]:
    """The top-level members' texts (zero-copy slices of `raw`), each key once."""
    top = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
    base = np.frombuffer(raw, dtype=np.uint8).ctypes.data
    # A repeated key keeps one member (whose text no one would check): the texts must tile
    # `raw` with only punctuation, whitespace and one key between two of them.
    at = 0
    gap = _FIRST
    for text in top.values():
        start = np.frombuffer(text, dtype=np.uint8).ctypes.data - base
        if not at <= start <= len(raw) or not gap.fullmatch(raw, at, start):
            raise _Unsure("a repeated key")
        at = start + len(text)
        gap = _BETWEEN
    if not top or not _LAST.fullmatch(raw, at):
        raise _Unsure("no member, or text after the last one")
    return top


def _typed_items(name: str, texts: list[msgspec.Raw], item_type: Any, visit: Visit) -> int | None:
    """Decode the items `BATCH` at a time, each batch passed to `visit`, up to the first one the
    types refuse: its index (the items before it in its batch are visited), or None."""
    batch_decoder = msgspec.json.Decoder(list[item_type])
    for start in range(0, len(texts), BATCH):
        batch = texts[start : start + BATCH]
        try:
            items = batch_decoder.decode(b"[" + b",".join(batch) + b"]")
        except msgspec.ValidationError:
            item_decoder = msgspec.json.Decoder(item_type)
            items = []
            for offset, text in enumerate(batch):
                try:
                    items.append(item_decoder.decode(text))
                except msgspec.ValidationError:
                    visit(name, items, start)
                    return start + offset
            raise _Unsure("a batch refused, no item of it") from None
        visit(name, items, start)
        del items
    return None


def _check_plain(texts: list[msgspec.Raw]) -> None:
    """Raise unless orjson reads every text (the plain decoder would refuse the body)."""
    for start in range(0, len(texts), BATCH):
        orjson.loads(b"[" + b",".join(texts[start : start + BATCH]) + b"]")
