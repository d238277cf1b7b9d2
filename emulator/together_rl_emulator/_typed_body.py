"""A large body's long arrays (a batch's `samples`) decoded by msgspec into types built from
the spec (`_typed_schema.py`): one C pass validates each item while it decodes it, and makes no
dict. The rest of the body (`loss`, flags: a few bytes) is decoded by orjson, as the plain path
does, and the schema check runs on it with one item of each array standing in for the array.

`decode_typed` says "valid, here are the typed items" or raises the plain path's own 400, or
returns None whenever it is not sure (the caller then takes the plain path, whose error is the
one reported):

- the body is not a JSON object of distinct members, a member is not JSON orjson reads (the
  plain decoder's verdict), nested deeper than the idempotency digest encodes;
- the types refuse an item the schema check accepts (the types are stricter in a few places).

When the types refuse item `k` of an array, the items before it are valid (the types accept no
more than the schema), so the schema's first error is the one of the body with item `k` alone
in that array, at index `k`: the check runs on that body, and its path is moved to `k`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np
import orjson

from ._errors import invalid
from ._typed_schema import typed_items
from ._validation import schema_violation

__all__ = ["BATCH", "TYPED_DECODE_MIN_BYTES", "TypedArray", "TypedBody", "decode_typed"]

# Smaller bodies take the plain path (a few tens of milliseconds at most).
TYPED_DECODE_MIN_BYTES = 4 * 1024 * 1024
BATCH = 1_000  # items decoded per msgspec call: each call holds the GIL for about a millisecond
# Between two members of the top-level object: a comma, then the next member's key and colon.
_BETWEEN = re.compile(rb'\s*,\s*"(?:[^"\\]|\\.)*"\s*:\s*', re.DOTALL)
_FIRST = re.compile(rb'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*', re.DOTALL)
_LAST = re.compile(rb"\s*\}\s*")


@dataclass(frozen=True)
class TypedArray:
    texts: list[msgspec.Raw]  # each item's JSON text
    items: list[Any]  # each item decoded into its type

    def plain(self, index: int) -> Any:
        """Item `index` as the plain decoder reads it."""
        return orjson.loads(memoryview(self.texts[index]))


@dataclass(frozen=True)
class TypedBody:
    members: dict[str, Any]  # the other members, decoded plainly
    arrays: dict[str, TypedArray]


class _Unsure(Exception):
    pass


def decode_typed(raw: bytes, schema_name: str, array_names: Sequence[str]) -> TypedBody | None:
    """`raw` as a `TypedBody` when it is valid against the spec's `schema_name`; raises the
    plain path's 400 when it is not; None when unsure (see the module's notes)."""
    item_types = [typed_items(schema_name, name) for name in array_names]
    if any(item_type is None for item_type in item_types):
        return None
    try:
        top = _members(raw)
        if not set(array_names) <= top.keys():
            return None
        members = {name: orjson.loads(memoryview(text)) for name, text in top.items()
                   if name not in array_names}  # fmt: skip
        orjson.dumps(members, option=orjson.OPT_SORT_KEYS)  # the digest can encode them
        arrays: dict[str, TypedArray] = {}
        refused: dict[str, int] = {}
        for name, item_type in zip(array_names, item_types, strict=True):
            texts = msgspec.json.decode(top[name], type=list[msgspec.Raw])
            items, refused_at = _typed_items(texts, item_type)
            arrays[name] = TypedArray(texts, items)
            if refused_at is not None:
                refused[name] = refused_at
                _check_plain(texts[refused_at + 1 :])
        stand_ins = {
            name: [array.plain(refused.get(name, 0))] if array.texts else []
            for name, array in arrays.items()
        }
    except (msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError, _Unsure):
        return None
    except (orjson.JSONEncodeError, TypeError, ValueError, RecursionError):
        return None
    body = {name: stand_ins[name] if name in stand_ins else members[name] for name in top}
    violation = schema_violation(schema_name, body)
    if violation is None:
        return None if refused else TypedBody(members, arrays)
    param = violation.param or ""
    for name in array_names:
        head = f"{name}[0]"
        if param == head or param.startswith((f"{head}.", f"{head}[")):
            if name not in refused:
                return None  # the types accepted an item the schema refuses: unsure
            param = f"{name}[{refused[name]}]{param[len(head) :]}"
    raise invalid(param or None, violation.reason, emulator_rule=violation.emulator_rule)


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


def _typed_items(texts: list[msgspec.Raw], item_type: Any) -> tuple[list[Any], int | None]:
    """The items decoded `BATCH` at a time, up to the first one the types refuse (its index,
    or None)."""
    batch_decoder = msgspec.json.Decoder(list[item_type])
    items: list[Any] = []
    for start in range(0, len(texts), BATCH):
        batch = texts[start : start + BATCH]
        try:
            items += batch_decoder.decode(b"[" + b",".join(batch) + b"]")
        except msgspec.ValidationError:
            item_decoder = msgspec.json.Decoder(item_type)
            for offset, text in enumerate(batch):
                try:
                    items.append(item_decoder.decode(text))
                except msgspec.ValidationError:
                    return items, start + offset
            raise _Unsure("a batch refused, no item of it") from None
    return items, None


def _check_plain(texts: list[msgspec.Raw]) -> None:
    """Raise unless orjson reads every text (the plain decoder would refuse the body)."""
    for start in range(0, len(texts), BATCH):
        orjson.loads(b"[" + b",".join(texts[start : start + BATCH]) + b"]")
