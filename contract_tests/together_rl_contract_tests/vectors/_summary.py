"""A stand-in for a JSON body too large for a vector file: what a port can check of it.

A digest of the whole body would hash full-precision floats, whose last bits depend on the BLAS
kernel, the CPU and the thread count; no port (nor this project on another machine) could match
it. So the summary digests only exact data, and gives floats as values to compare within the
vectors' tolerance (:mod:`together_rl_contract_tests.vectors._compare`)::

    {"<summary>": {
        "bytes": <size of the body as served>,
        "members": [<sorted top-level keys>],
        "columns": {<column path>: <column summary>, ...}}}

A *column path* names every leaf of the document that sits at the same place, with ``[]`` for
"each item of a list": ``results[].sequences[].tokens[]`` is every token of every sequence of
every result. A column summary has the JSON ``type`` of its leaves, their ``count`` and the
column's ``shape``: the lengths of the lists of its projection (below) level by level,
``[1, 64, 1024]`` for one result of 64 sequences of 1,024 tokens, or ``null`` when the lists of
one level differ in length. Then, by type:

- ``"int"``: ``min``, ``max``, ``sha256``;
- ``"string"``: ``values`` (``{value: how many}``), ``sha256``;
- ``"bool"``, ``"null"``: ``sha256``;
- ``"float"``: ``min``, ``max``, ``sum`` (``math.fsum``, the exactly rounded sum; a plain
  left-to-right sum differs from it by far less than the tolerance), ``head`` (the first
  :data:`HEAD` leaves in document order) and, when the leaves sit in lists (the path ends in
  ``[]``), ``sums``: the projection with each innermost list replaced by its ``math.fsum`` (for
  ``results[].sequences[].logprobs[]``, each sequence's log-likelihood, ``[[s_1, ..., s_64]]``);
- ``"mixed"`` (leaves of several JSON types): nothing more.

``sha256`` is the hex digest of the column's *projection*: the document with everything but that
column removed, lists kept (so the grouping is hashed too), serialised as compact JSON
(``json.dumps(projection, separators=(",", ":"), ensure_ascii=False)``, UTF-8). The projection of
``results[].sequences[].tokens[]`` over ``{"results": [{"sequences": [{"tokens": [1, 2]},
{"tokens": [3]}]}]}`` is ``[[[1,2],[3]]]``; a key missing from one object projects to ``null``.
Floats are never hashed.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from typing import Any

__all__ = ["HEAD", "SUMMARY_KEY", "column_projection", "summarise_json"]

SUMMARY_KEY = "<summary>"
#: How many leading values of a float column the summary lists.
HEAD = 4


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    raise TypeError(f"not a JSON leaf: {value!r}")


def _leaf_paths(value: Any, path: str, out: dict[str, list[Any]]) -> None:
    if isinstance(value, dict):
        for key in sorted(value):
            _leaf_paths(value[key], f"{path}.{key}" if path else str(key), out)
    elif isinstance(value, list):
        for item in value:
            _leaf_paths(item, f"{path}[]", out)
    else:
        out.setdefault(path, []).append(value)


def column_projection(document: Any, path: str) -> Any:
    """``document`` reduced to the column ``path`` (lists kept, dict keys dropped)."""
    steps = _split(path)
    return _project(document, steps)


def _split(path: str) -> list[str]:
    """``a.b[].c[]`` -> ``["a", "b", "[]", "c", "[]"]``."""
    steps: list[str] = []
    for part in path.split("."):
        name = part.rstrip("[]")
        if name:
            steps.append(name)
        steps.extend(["[]"] * ((len(part) - len(name)) // 2))
    return steps


def _project(value: Any, steps: list[str]) -> Any:
    if not steps:
        return value
    head, rest = steps[0], steps[1:]
    if head == "[]":
        return [_project(item, rest) for item in value] if isinstance(value, list) else None
    return _project(value.get(head), rest) if isinstance(value, dict) else None


def _shape(projection: Any) -> list[int] | None:
    """The lengths of the nested lists of ``projection`` level by level (``[1, 64, 1024]``), or
    None when lists of one level differ in length."""
    if not isinstance(projection, list):
        return []
    shapes = [_shape(item) for item in projection]
    if any(shape is None or shape != shapes[0] for shape in shapes):
        return None
    return [len(projection), *(shapes[0] if shapes else [])]


def _inner_sums(projection: Any) -> Any:
    """``projection`` with each innermost list of numbers replaced by its ``math.fsum``."""
    if isinstance(projection, list) and all(not isinstance(x, list) for x in projection):
        return math.fsum(x for x in projection if isinstance(x, float))
    return [_inner_sums(x) for x in projection] if isinstance(projection, list) else projection


def _digest(projection: Any) -> str:
    text = json.dumps(projection, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _column(document: Any, path: str, leaves: list[Any]) -> dict[str, Any]:
    types = {_json_type(leaf) for leaf in leaves}
    kind = types.pop() if len(types) == 1 else "mixed"
    summary: dict[str, Any] = {
        "type": kind,
        "count": len(leaves),
        "shape": _shape(column_projection(document, path)),
    }
    if kind == "float":
        return (
            summary
            | {
                "min": min(leaves),
                "max": max(leaves),
                "sum": math.fsum(leaves),
                "head": leaves[:HEAD],
            }
            | (
                {"sums": _inner_sums(column_projection(document, path))}
                if path.endswith("[]")
                else {}
            )
        )
    if kind == "mixed":
        return summary
    if kind == "int":
        summary |= {"min": min(leaves), "max": max(leaves)}
    elif kind == "string":
        summary["values"] = dict(sorted(Counter(leaves).items()))
    summary["sha256"] = _digest(column_projection(document, path))
    return summary


def summarise_json(content: bytes) -> dict[str, Any]:
    """The ``{"<summary>": ...}`` stand-in for the JSON body ``content`` (see the module doc)."""
    document = json.loads(content)
    columns: dict[str, list[Any]] = {}
    _leaf_paths(document, "", columns)
    return {
        SUMMARY_KEY: {
            "bytes": len(content),
            "members": sorted(document) if isinstance(document, dict) else None,
            "columns": {path: _column(document, path, leaves) for path, leaves in columns.items()},
        }
    }
