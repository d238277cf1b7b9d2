"""One pass over the number lists of a decoded JSON body, shared by the idempotency digest and by
validation, so that a large batch's numbers are classified and encoded once, at C speed.

- a list of floats only (no int, no bool) is kept as a float64 array: the digest takes its
  IEEE-754 doubles (no float formatting), and validation needs no second conversion;
- a list of ints only (no bool, no float) is kept as its JSON text (`[1,-2,3]`), which is also
  its canonical JSON;
- any other list is left alone: the digest encodes it with orjson, and validation checks it with
  the full JSON Schema.

A scan is keyed by the identity of the lists, so it is valid only while its body is alive and
unchanged (the span of one request). It also names the containers that hold such a list, so the
digest can encode every other container whole, in one orjson call.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

__all__ = ["FLOATS", "INTS", "MAX_DEPTH", "MIN_LENGTH", "BodyScan", "NumberList", "scan_body"]

FLOATS = "floats"
INTS = "ints"
# Lists nested deeper than this are not scanned (and the digest encodes such subtrees whole).
MAX_DEPTH = 32
# Shorter lists are not worth a scan entry (and the digest encodes them with orjson).
MIN_LENGTH = 64
_INT_LIST_TEXT = b"0123456789-,"  # everything between the brackets of a JSON list of ints


@dataclass(frozen=True)
class NumberList:
    kind: str  # FLOATS or INTS
    # FLOATS: the values as float64 (its buffer: the doubles, native order); INTS: the JSON text.
    encoded: npt.NDArray[np.float64] | bytes


@dataclass
class BodyScan:
    lists: dict[int, NumberList] = field(default_factory=dict)  # by id() of the list
    carriers: set[int] = field(default_factory=set)  # id() of containers holding one of them


def scan_body(body: Any) -> BodyScan:
    """Every list (of at least MIN_LENGTH items) of floats only or of ints only in `body`."""
    scan = BodyScan()
    _visit(body, scan, 0)
    return scan


def _visit(value: Any, scan: BodyScan, depth: int) -> bool:
    """Scan `value` (a dict or list); whether it holds a scanned list."""
    if depth >= MAX_DEPTH:
        return False
    holds = False
    if type(value) is dict:
        for item in value.values():
            if (type(item) is dict or type(item) is list) and _visit(item, scan, depth + 1):
                holds = True
    elif value:
        first = type(value[0])
        if first is dict or first is list:
            for item in value:
                if (type(item) is dict or type(item) is list) and _visit(item, scan, depth + 1):
                    holds = True
        elif len(value) < MIN_LENGTH:
            return False
        elif first is float:
            if not _all_floats(value):
                return False
            doubles = np.fromiter(value, dtype=np.float64, count=len(value))
            scan.lists[id(value)] = NumberList(FLOATS, doubles)
            return True
        elif first is int:
            text = _int_list_text(value)
            if text is None:
                return False
            scan.lists[id(value)] = NumberList(INTS, text)
            return True
    if holds:
        scan.carriers.add(id(value))
    return holds


def _all_floats(values: list[Any]) -> bool:
    """Every item a float: `float.is_integer` refuses any other type (ints and bools too)."""
    try:
        collections.deque(map(float.is_integer, values), maxlen=0)
    except TypeError:
        return False
    return True


def _int_list_text(values: list[Any]) -> bytes | None:
    """The JSON text of a list of ints only, else None (a bool, float, string, null or container
    leaves letters, dots, quotes or brackets between the outer brackets)."""
    try:
        text = orjson.dumps(values)
    except orjson.JSONEncodeError:  # an int beyond 64 bits: left to the general paths
        return None
    return None if text[1:-1].translate(None, _INT_LIST_TEXT) else text
