"""One pass over the number lists of a decoded JSON body, shared by the idempotency digest and by
validation, so that a large batch's numbers are classified and converted once, at C speed.

- a list of floats only (no int, no bool) becomes a float64 array: the digest takes its
  IEEE-754 doubles (no float formatting), and validation needs no second conversion;
- a list of ints only (no bool, no float) that fit int64 becomes an int64 array, and the digest
  takes its JSON text (`[1,-2,3]`, also its canonical JSON);
- any other list is left alone: the digest encodes it with orjson, and validation checks it with
  the full JSON Schema.

A scan is keyed by the identity of the lists, so it is valid only while its body is alive and
unchanged (the span of one request). It also names the containers that hold such a list, so the
digest can encode every other container whole, in one orjson call. `_fast_decode.py` makes the
same scan while decoding, with each scanned list decoded straight into its array.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson

__all__ = [
    "FLOATS",
    "INTS",
    "MAX_DEPTH",
    "MIN_LENGTH",
    "BodyScan",
    "NumberList",
    "extend_scan",
    "scan_body",
    "scan_list",
    "skeleton",
]

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
    values: npt.NDArray[np.float64] | npt.NDArray[np.int64]  # float64 for FLOATS, int64 for INTS
    text: bytes | None = None  # INTS: the JSON text, when the scan had it

    def digest_payload(self) -> npt.NDArray[Any] | bytes:
        """What the idempotency digest takes: the doubles (FLOATS) or the JSON text (INTS)."""
        if self.kind == FLOATS:
            return self.values
        if self.text is None:
            return orjson.dumps(self.values, option=orjson.OPT_SERIALIZE_NUMPY)
        return self.text


@dataclass
class BodyScan:
    lists: dict[int, NumberList] = field(default_factory=dict)  # by id() of the list
    carriers: set[int] = field(default_factory=set)  # id() of containers holding one of them
    # The body holds the arrays themselves in place of the lists (decoded by `_fast_decode`).
    arrays_in_body: bool = False


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
        else:
            return scan_list(value, scan)
    if holds:
        scan.carriers.add(id(value))
    return holds


def extend_scan(body: dict[str, Any], scan: BodyScan) -> BodyScan:
    """`scan`, made of some of `body`'s member values where they came from (as members of
    another body: at the same depth), completed for `body`: the other members are scanned, and
    `body` is a carrier if it holds a scanned list."""
    known = scan.lists.keys() | scan.carriers
    holds = False
    for value in body.values():
        scanned = id(value) in known
        if scanned or (type(value) in (dict, list) and _visit(value, scan, 1)):
            holds = True
    if holds:
        scan.carriers.add(id(body))
    return scan


def scan_list(values: list[Any], scan: BodyScan) -> bool:
    """Scan a list whose first item is not a container; whether it became a scan entry."""
    if len(values) < MIN_LENGTH:
        return False
    first = type(values[0])
    if first is float:
        if not _all_floats(values):
            return False
        doubles = np.fromiter(values, dtype=np.float64, count=len(values))
        scan.lists[id(values)] = NumberList(FLOATS, doubles)
        return True
    if first is int:
        text = _int_list_text(values)
        if text is None:
            return False
        try:
            ints = np.fromiter(values, dtype=np.int64, count=len(values))
        except OverflowError:  # beyond int64: left to the general paths
            return False
        scan.lists[id(values)] = NumberList(INTS, ints, text)
        return True
    return False


def skeleton(value: Any, scan: BodyScan, stand_ins: set[int]) -> Any:
    """A body that holds arrays in place of lists (`scan.arrays_in_body`), for a JSON Schema
    validator that leaves the items of the lists `stand_ins` names (by id) unchecked: each of
    those becomes `_STAND_IN`, which meets the rules on their length that this validator admits
    (`_validation._skeleton_validator`), and any other array its values as a list. The
    containers that hold one are copied; nothing else is."""
    if id(value) in scan.lists:
        if id(value) in stand_ins:
            return _STAND_IN
        return value.tolist() if isinstance(value, np.ndarray) else value
    if id(value) not in scan.carriers:
        return value
    if type(value) is dict:
        return {key: skeleton(item, scan, stand_ins) for key, item in value.items()}
    return [skeleton(item, scan, stand_ins) for item in value]


_STAND_IN = (0,) * MIN_LENGTH  # every scanned list has at least MIN_LENGTH items


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
