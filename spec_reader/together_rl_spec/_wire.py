"""The document as the wire reads it: an int64 schema takes both of its JSON forms.

gRPC-gateway reads an int64 as a JSON integer or as its decimal string, and writes the string.
Generators cannot read a `oneOf` of the two (Java's Jackson finds "2 classes match", Go and Rust
get a two-variant wrapper), so the spec shows them one form and names the other in an
extension:

- `type: integer, format: int64` + `x-decimal-string: <pattern>`: what a client sends (a seed, a
  token id); its decimal string is valid too;
- `type: string, format: int64, pattern` + `x-json-integer: true`: what the server writes (a
  step, a weights version); a JSON integer is valid too.

Every reader that validates or judges bodies (the emulator, the contract suite, the proxy, the
kit, the drift report) reads :func:`wire_document`, in which each such schema is the `oneOf` of
its two forms, each branch with its own `x-source`: what the wire accepts stays what it was.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["DECIMAL_STRING_KEYWORD", "JSON_INTEGER_KEYWORD", "wire_document", "wire_schema"]

#: The keyword of an integer schema whose decimal string is valid as well (value: its pattern).
DECIMAL_STRING_KEYWORD = "x-decimal-string"
#: The keyword of an int64 string schema whose JSON integer is valid as well (value: true).
JSON_INTEGER_KEYWORD = "x-json-integer"

# What stays on the outer schema (says something about the value, whatever its form).
_OUTER = frozenset({"description", "title", "x-rules", "examples", "example", "deprecated"})
_INT64 = {"type": "integer", "format": "int64", "minimum": -(2**63), "maximum": 2**63 - 1}


def _split_source(source: Any, keyword: str) -> tuple[Any, Any]:
    """`(the x-source of the schema's own keywords, the x-source of `keyword`)`."""
    if not isinstance(source, dict):
        return source, source
    rest = {k: v for k, v in source.items() if k != keyword}
    return rest or None, source.get(keyword)


def _with_source(node: dict[str, Any], source: Any) -> dict[str, Any]:
    return {**node, "x-source": source} if source is not None else node


def wire_schema(node: dict[str, Any]) -> dict[str, Any]:
    """`node` as its wire forms: unchanged without either keyword, else the `oneOf` of the
    integer and its decimal string, with the annotations outside and `x-source` split."""
    if DECIMAL_STRING_KEYWORD in node and node.get("type") == "integer":
        keyword = DECIMAL_STRING_KEYWORD
    elif node.get(JSON_INTEGER_KEYWORD) is True and node.get("type") == "string":
        keyword = JSON_INTEGER_KEYWORD
    else:
        return node  # (an `x-source` mapping names the keywords too: not a schema)
    own, other = _split_source(node.get("x-source"), keyword)
    shape = {k: v for k, v in node.items() if k not in _OUTER | {keyword, "x-source"}}
    if keyword == DECIMAL_STRING_KEYWORD:
        integer = _with_source(shape, own)
        text = _with_source({"type": "string", "pattern": node[keyword]}, other)
    else:
        integer = _with_source(dict(_INT64), other)
        text = _with_source({k: v for k, v in shape.items() if k != "format"}, own)
    outer = {k: v for k, v in node.items() if k in _OUTER}
    return {**outer, "oneOf": [integer, text]}


def _expand(node: Any) -> Any:
    if isinstance(node, dict):
        return wire_schema({k: _expand(v) for k, v in node.items()})
    if isinstance(node, list):
        return [_expand(item) for item in node]
    return node


def wire_document(document: dict[str, Any]) -> dict[str, Any]:
    """A copy of `document` with every int64 schema of one shown form as its two wire forms."""
    expanded: dict[str, Any] = _expand(copy.deepcopy(document))
    return expanded
