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
in that array, at index `k`: the check runs on that body, and its path is moved to `k`. Unless
that error is inside item `k` (of the one refused array), item `k` may be valid for the schema
and a later item hold the first error: then it is unsure.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import msgspec
import numpy as np
import orjson

from ..base import invalid
from ._schema_blocks import per_item_array
from ._typed_arrays import ArrayItems
from ._typed_schema import typed_items
from ._validation import schema_violation

__all__ = ["TYPED_DECODE_MIN_BYTES", "TypedBody", "Visit"]

# Smaller bodies take the plain path (a few tens of milliseconds at most).
TYPED_DECODE_MIN_BYTES = 4 * 1024 * 1024
# Between two members of the top-level object: a comma, then the next member's key and colon.
_BETWEEN = re.compile(rb'\s*,\s*"(?:[^"\\]|\\.)*"\s*:\s*', re.DOTALL)
_FIRST = re.compile(rb'\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*', re.DOTALL)
_LAST = re.compile(rb"\s*\}\s*")


# Called with an array's name, a piece of its typed items and the index of the first of them;
# the items are dropped after the call (a large body's items are never all alive at once).
Visit = Callable[[str, list[Any], int], None]


class _Unsure(Exception):
    pass


_UNSURE: tuple[type[Exception], ...] = (
    msgspec.DecodeError, msgspec.ValidationError, orjson.JSONDecodeError, _Unsure,
    orjson.JSONEncodeError, TypeError, ValueError, RecursionError,
)  # fmt: skip


class TypedBody:
    """A JSON object whose long arrays are decoded into the spec's types a piece at a time."""

    def __init__(
        self,
        members: dict[str, Any],
        arrays: dict[str, ArrayItems],
        order: list[str],
        schema_name: str,
    ) -> None:
        self.members = members  # the other members, decoded plainly
        self._arrays = arrays
        self._order = order  # the members' names, in the body's order
        self._schema_name = schema_name

    @classmethod
    def open(cls, raw: bytes, schema_name: str, array_names: Sequence[str]) -> TypedBody | None:
        """The body's members, its arrays ready to decode; None when unsure."""
        for name in array_names:  # one item stands in for the array in the schema check
            if typed_items(schema_name, name) is None or not per_item_array(schema_name, name):
                return None
        try:
            top = _members(raw)
            if not set(array_names) <= top.keys():
                return None
            members = {name: orjson.loads(raw[start:stop]) for name, (start, stop) in top.items()
                       if name not in array_names}  # fmt: skip
            orjson.dumps(members, option=orjson.OPT_SORT_KEYS)  # the digest can encode them
        except _UNSURE:
            return None
        arrays = {name: ArrayItems(raw, *top[name]) for name in array_names}
        if any(raw[top[name][0] : top[name][0] + 1] != b"[" for name in array_names):
            return None  # not an array: the plain path says so
        return cls(members, arrays, list(top), schema_name)

    def count(self, name: str) -> int:
        """How many items array `name` has (the body passed `check`)."""
        return self._arrays[name].count

    def plain(self, name: str, index: int) -> Any:
        """Item `index` of array `name` as the plain decoder reads it."""
        return orjson.loads(self._arrays[name].text(index))

    def check(self, visit: Visit) -> bool:
        """Decode every array into its types, passing each piece's items to `visit`, then check
        the body against the schema: True when valid, raises the plain path's 400, False when
        unsure (the body takes the plain path)."""
        refused: dict[str, int] = {}
        try:
            for name, array in self._arrays.items():
                item_type = typed_items(self._schema_name, name)
                refused_at = array.decode(item_type, functools.partial(visit, name))
                if refused_at is not None:
                    refused[name] = refused_at
            stand_ins = {
                name: [self.plain(name, refused.get(name, 0))]
                if array.count or name in refused
                else []
                for name, array in self._arrays.items()
            }
        except _UNSURE:
            return False
        body = {name: stand_ins[name] if name in stand_ins else self.members[name]
                for name in self._order}  # fmt: skip
        violation = schema_violation(self._schema_name, body)
        if violation is None:
            return not refused
        param = violation.param or ""
        inside = [name for name in self._arrays if _names_item(param, f"{name}[0]")]
        if inside and inside[0] not in refused:
            return False  # the types accepted an item the schema refuses: unsure
        if len(refused) > len(inside):
            # A refused item the schema accepts (the types are stricter) may hide the error
            # of a later item of its array, which the full check could meet first: unsure.
            return False
        if inside:
            head = f"{inside[0]}[0]"
            param = f"{inside[0]}[{refused[inside[0]]}]{param[len(head) :]}"
        raise invalid(param or None, violation.reason, emulator_rule=violation.emulator_rule)

    def release(self) -> None:
        for array in self._arrays.values():
            array.release()


def _names_item(param: str, head: str) -> bool:
    """Whether the error's `param` is item `head` (`samples[0]`) or inside it."""
    return param == head or param.startswith((f"{head}.", f"{head}["))


def _members(raw: bytes) -> dict[str, tuple[int, int]]:
    """Where each top-level member's text is in `raw`, each key once."""
    top = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])
    spans: dict[str, tuple[int, int]] = {}
    base = np.frombuffer(raw, dtype=np.uint8).ctypes.data
    # A repeated key keeps one member (whose text no one would check): the texts must tile
    # `raw` with only punctuation, whitespace and one key between two of them.
    at = 0
    gap = _FIRST
    for name, text in top.items():
        start = np.frombuffer(text, dtype=np.uint8).ctypes.data - base
        if not at <= start <= len(raw) or not gap.fullmatch(raw, at, start):
            raise _Unsure("a repeated key")
        at = start + len(text)
        spans[name] = (start, at)
        gap = _BETWEEN
    if not top or not _LAST.fullmatch(raw, at):
        raise _Unsure("no member, or text after the last one")
    return spans
