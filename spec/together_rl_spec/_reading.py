"""Reading the document: parsing, `$ref`s, schemas, enums, operations and the facts that are
numbers (the upload threshold). Every function takes the parsed document as `root`; without
it, the installed spec (`spec_document()`)."""

from __future__ import annotations

import functools
import urllib.parse
from collections.abc import Sequence
from typing import Any

from ._files import SPEC_FILE, spec_bytes

__all__ = [
    "UPLOAD_THRESHOLD_KEYWORD",
    "enum_value",
    "enum_values",
    "find_operation",
    "format_path",
    "parse_document",
    "resolve_ref",
    "schema",
    "server_path",
    "spec_document",
    "upload_threshold_bytes",
]

#: The keyword of the `x-rules` entry that states the upload threshold as a number.
UPLOAD_THRESHOLD_KEYWORD = "x-upload-threshold-bytes"

Document = dict[str, Any]


def parse_document(data: bytes | str, source: str = SPEC_FILE) -> Document:
    """A YAML (or JSON) OpenAPI document parsed with a safe loader; ValueError names `source`
    when it is not a mapping."""
    import yaml  # only the readers of the document need PyYAML, not the wrapper

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    loaded = yaml.load(data, Loader=loader)  # a safe loader either way
    if not isinstance(loaded, dict):
        raise ValueError(f"{source} is not a YAML mapping")
    return loaded


@functools.cache
def spec_document() -> Document:
    """The installed spec, parsed once. Shared: callers must not mutate it."""
    return parse_document(spec_bytes())


def _root(root: Document | None) -> Document:
    return spec_document() if root is None else root


def resolve_ref(node: dict[str, Any], root: Document | None = None) -> dict[str, Any]:
    """Follow a chain of local `$ref`s (`#/components/...`) to the node it names; KeyError for
    a `$ref` that is not local, names nothing or loops."""
    document = _root(root)
    seen: set[str] = set()
    while "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/") or ref in seen:
            raise KeyError(f"unresolvable $ref {ref!r}")
        seen.add(ref)
        target: Any = document
        for part in ref[2:].split("/"):
            try:
                target = target[part.replace("~1", "/").replace("~0", "~")]
            except (KeyError, IndexError, TypeError):
                raise KeyError(f"unresolvable $ref {ref!r}") from None
        node = target
    return node


def schema(name: str, root: Document | None = None) -> dict[str, Any]:
    """`#/components/schemas/<name>`, `$ref`s followed; KeyError if there is none."""
    return resolve_ref(_root(root)["components"]["schemas"][name], root)


def enum_values(name: str, root: Document | None = None) -> tuple[str, ...]:
    """The values of the enum schema `name`, in the document's order."""
    return tuple(schema(name, root)["enum"])


def enum_value(name: str, suffix: str, root: Document | None = None) -> str:
    """The one value of enum `name` ending in `_<suffix>` (`OperationStatus`, `PENDING` ->
    `TRAINING_OPERATION_STATUS_PENDING`); KeyError when there is not exactly one."""
    found = [value for value in enum_values(name, root) if value.endswith(f"_{suffix}")]
    if len(found) != 1:
        raise KeyError(f"the spec's {name} has no single value ending in _{suffix}: {found}")
    return found[0]


def find_operation(operation_id: str, root: Document | None = None) -> tuple[str, str, Any]:
    """`(path, method, operation)` of the operation with this `operationId`; KeyError if none."""
    for path, item in _root(root)["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return path, method, operation
    raise KeyError(f"no operation {operation_id!r} in the spec")


def server_path(root: Document | None = None) -> str:
    """The path of the first server URL (`https://api.together.ai/v1` -> `/v1`; `` if none)."""
    servers = _root(root).get("servers") or [{}]
    return urllib.parse.urlsplit(str(servers[0].get("url", ""))).path.rstrip("/")


def upload_threshold_bytes(root: Document | None = None) -> int:
    """Operation bodies whose compact JSON is longer than this many bytes are uploaded: the
    number of the one `x-rules` entry with `x-upload-threshold-bytes`."""
    found = [
        rule[UPLOAD_THRESHOLD_KEYWORD]
        for item in _root(root)["paths"].values()
        for operation in item.values()
        if isinstance(operation, dict)
        for rule in operation.get("x-rules") or ()
        if isinstance(rule, dict) and UPLOAD_THRESHOLD_KEYWORD in rule
    ]
    if len(found) != 1 or not isinstance(found[0], int) or isinstance(found[0], bool):
        raise ValueError(f"the spec states {UPLOAD_THRESHOLD_KEYWORD} {len(found)} times: {found}")
    return found[0]


def format_path(parts: Sequence[str | int]) -> str | None:
    """`["samples", 2, "loss_fn_inputs", "x"]` -> `samples[2].loss_fn_inputs.x` (None if
    empty): how an error message names a place in a body."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or None
