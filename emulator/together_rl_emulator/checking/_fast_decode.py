"""Decode a large request body with its long number lists straight into numpy arrays.

`orjson.loads` makes a Python object of every number of a 64 x 2048 batch, and the scan
(`_body_scan.py`) then converts them again. pysimdjson parses the text into its own tape and
copies a flat list of numbers into an array at C speed, so the numbers never become Python
objects. `decode_fast(raw)` returns what `orjson.loads(raw)` and `scan_body` of it give, except
that each scanned list is its array (`BodyScan.arrays_in_body`), or None whenever it cannot be
sure of that; the caller then decodes plainly (`DecodedBody.of(orjson.loads(raw))`). It is
never sure of:

- a body orjson would refuse or read differently: a parse error, a byte order mark (simdjson
  skips it, orjson refuses it), an object with a repeated key (orjson keeps the last value);
- a top level that is not an object;
- nested lists hiding in a number list (`as_buffer` flattens them): every `[` of the text must be
  a list this decoder made, so a `[` inside a string also sends the body the plain way.

A list is an int list when simdjson reads every item as an int64, a float list when it reads
every item as a number and none is integral (an int always is); any other list, and every list
below `MAX_DEPTH` or shorter than `MIN_LENGTH`, is decoded to Python and scanned as
`scan_body` does.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import orjson
import simdjson

from ..base import ApiError
from ._body_scan import (
    FLOATS,
    INTS,
    MAX_DEPTH,
    MIN_LENGTH,
    BodyScan,
    NumberList,
    scan_body,
    scan_list,
)
from ._chunked_decode import decode_in_chunks

__all__ = ["FAST_DECODE_MIN_BYTES", "DecodedBody", "Validator", "decode_body", "decode_fast"]

# Below this size the plain decode is as fast (the parser's set-up dominates).
FAST_DECODE_MIN_BYTES = 256 * 1024
# The fewest bytes per JSON list for which building arrays pays: a body with more lists than
# len / MIN_LIST_BYTES is mostly short lists, which this decoder builds one Python call at a
# time (a 29 MB batch of 150,000 four-token samples: 9 s here, against 2 s plainly).
MIN_LIST_BYTES = 4 * MIN_LENGTH
_BYTE_ORDER_MARK = b"\xef\xbb\xbf"
# (body, the session's vocabulary size, the body's scan if made) -> the validated request;
# raises ApiError 400. What each operation kind of `_kinds.py` has.
Validator = Callable[[Any, int, BodyScan | None], Any]


@dataclass(frozen=True)
class DecodedBody:
    """A request body and its scan. When `decode_fast` made it (`scan.arrays_in_body`), the
    value holds arrays in place of its scanned lists; `plain()` is then the body as
    `orjson.loads` gives it, for the paths that need lists."""

    value: Any
    scan: BodyScan
    lazy_digest = False  # the service digests it at once (`_raw_body.RawBody`: when needed)

    @classmethod
    def of(cls, value: Any) -> DecodedBody:
        return cls(value, scan_body(value))

    def encoded(self) -> bytes:
        """The body as JSON. Exact for the arrays too: an int64 array holds ints, a float64
        one non-integral floats, written as the shortest text that reads back the same."""
        return orjson.dumps(self.value, option=orjson.OPT_SERIALIZE_NUMPY)

    def plain(self) -> Any:
        return orjson.loads(self.encoded()) if self.scan.arrays_in_body else self.value

    def has_member(self, name: str) -> bool:
        """Whether the JSON object has the top-level member `name`."""
        return name in self.value

    def validated(self, validate: Validator, vocab_size: int) -> Any:
        """`validate`'s request for this body. A body `decode_fast` made and `validate` refuses
        is validated again as `plain()`, so a refusal is always the plain path's own error."""
        try:
            return validate(self.value, vocab_size, self.scan)
        except ApiError:
            if not self.scan.arrays_in_body:
                raise
        return validate(self.plain(), vocab_size, None)


def decode_body(raw: bytes, parse: Callable[[bytes], Any], *, fast: bool) -> DecodedBody:
    """`raw` decoded by `decode_fast` when `fast` and it can, else by `parse` (orjson, with the
    caller's errors for a body it refuses) and scanned."""
    decoded = decode_fast(raw) if fast else None
    if decoded is not None:
        return decoded
    chunked = decode_in_chunks(raw)
    return DecodedBody.of(parse(raw) if chunked is None else chunked)


def decode_fast(raw: bytes, min_bytes: int | None = None) -> DecodedBody | None:
    """The JSON object `raw` with its long number lists as arrays, or None (decode plainly);
    None too for a body shorter than `min_bytes` (default `FAST_DECODE_MIN_BYTES`)."""
    if min_bytes is None:
        min_bytes = FAST_DECODE_MIN_BYTES
    if len(raw) < min_bytes or raw.startswith(_BYTE_ORDER_MARK):
        return None
    if raw.count(b"[") * MIN_LIST_BYTES > len(raw):
        return None  # many short lists (a batch of short samples): the arrays would not pay
    parser = _PARSERS.take()
    try:
        doc = parser.parse(raw)
        if not isinstance(doc, simdjson.Object):
            return None
        builder = _Builder()
        value, _ = builder.build(doc, 0)
    except Exception:  # any doubt: orjson decodes it, and says what is wrong
        return None
    finally:
        doc = None  # the parser is reusable once no proxy of its document is left
        _PARSERS.give(parser, len(raw))
    if raw.count(b"[") != builder.lists:
        return None
    return DecodedBody(value, builder.scan)


class _ParserPool:
    """Idle parsers: a new one costs about a third of a 7 MB parse (its buffers, grown to the
    largest document it parsed, are allocated again)."""

    IDLE = 2
    MAX_KEPT_BYTES = 16 * 1024 * 1024  # a parser that read a larger body is not kept

    def __init__(self) -> None:
        self._idle: list[simdjson.Parser] = []
        self._lock = threading.Lock()

    def take(self) -> simdjson.Parser:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return simdjson.Parser()

    def give(self, parser: simdjson.Parser, parsed_bytes: int) -> None:
        if parsed_bytes <= self.MAX_KEPT_BYTES:
            with self._lock:
                if len(self._idle) < self.IDLE:
                    self._idle.append(parser)


_PARSERS = _ParserPool()


class _Unsure(Exception):
    pass


class _Builder:
    """Python values from simdjson's proxies, scanning as `_body_scan._visit` does."""

    def __init__(self) -> None:
        self.scan = BodyScan(arrays_in_body=True)
        self.lists = 0  # JSON lists made so far (each array counts as one)

    def build(self, node: Any, depth: int) -> tuple[Any, bool]:
        """`(value, whether it holds a scanned list)`."""
        if isinstance(node, simdjson.Object):
            return self._object(node, depth)
        if isinstance(node, simdjson.Array):
            return self._array(node, depth)
        return node, False

    def _object(self, node: simdjson.Object, depth: int) -> tuple[Any, bool]:
        if depth >= MAX_DEPTH:
            return self._whole(node.as_dict())
        keys = list(node.keys())
        if len(set(keys)) != len(keys):
            raise _Unsure("a repeated key")
        out: dict[str, Any] = {}
        holds = False
        for key in keys:
            out[key], held = self.build(node[key], depth + 1)
            holds = holds or held
        if holds:
            self.scan.carriers.add(id(out))
        return out, holds

    def _array(self, node: simdjson.Array, depth: int) -> tuple[Any, bool]:
        if depth >= MAX_DEPTH or len(node) == 0:
            return self._whole(node.as_list())
        first = node[0]
        if isinstance(first, simdjson.Object | simdjson.Array):
            self.lists += 1
            items: list[Any] = []
            holds = False
            for item in node:
                value, held = self.build(item, depth + 1)
                items.append(value)
                holds = holds or held
            if holds:
                self.scan.carriers.add(id(items))
            return items, holds
        numbers = _number_list(node) if len(node) >= MIN_LENGTH else None
        if numbers is not None:
            self.lists += 1
            self.scan.lists[id(numbers.values)] = numbers
            return numbers.values, True
        values, _ = self._whole(node.as_list())
        return values, scan_list(values, self.scan)

    def _whole(self, value: Any) -> tuple[Any, bool]:
        """A value decoded whole (not scanned): count its lists."""
        stack = [value]
        while stack:
            item = stack.pop()
            if type(item) is list:
                self.lists += 1
                stack.extend(item)
            elif type(item) is dict:
                stack.extend(item.values())
        return value, False


def _number_list(node: simdjson.Array) -> NumberList | None:
    """The list as an int64 (every item an int) or float64 (every item a non-integral number)
    array, else None. Nested lists are flattened here: `decode_fast` rules them out."""
    try:
        return NumberList(INTS, np.frombuffer(node.as_buffer(of_type="i"), dtype=np.int64))
    except ValueError:  # an int beyond int64
        return None
    except TypeError:  # an item that is not an int
        pass
    try:
        doubles = np.frombuffer(node.as_buffer(of_type="d"), dtype=np.float64)
    except (TypeError, ValueError):
        return None
    if (doubles == np.trunc(doubles)).any():  # maybe an int among the floats
        return None
    return NumberList(FLOATS, doubles)
