"""Reading the document: parsing (through the one YAML loader, `_loading.parse_data`), `$ref`s,
schemas, enums, operations and the facts that are numbers (the upload threshold); routes and the
server path are in `_routes`, the enum facts in `_facts`. Every function takes the parsed
document's root mapping (`SpecRoot`) as `root`; without it, the installed spec
(`spec_document()`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from ._files import SPEC_FILE, spec_bytes
from ._loading import DocumentError, parse_data
from ._refs import Resolver
from ._wire import wire_document

__all__ = [
    "SERVER_DEFAULT_KEYWORD",
    "UPLOAD_THRESHOLD_KEYWORD",
    "SpecRoot",
    "default",
    "defaults",
    "enum_value",
    "enum_values",
    "find_operation",
    "format_path",
    "parse_document",
    "request_example",
    "resolve_ref",
    "schema",
    "spec_document",
    "upload_threshold_bytes",
]

#: The keyword of a default the server applies but a client must not send for the user.
SERVER_DEFAULT_KEYWORD = "x-server-default"
#: The keyword of the `x-rules` entry that states the upload threshold as a number.
UPLOAD_THRESHOLD_KEYWORD = "x-upload-threshold-bytes"

#: A parsed document's root mapping, as every reading function takes it (`root`).
SpecRoot = dict[str, Any]


def parse_document(data: bytes | str, source: str = SPEC_FILE) -> SpecRoot:
    """A YAML (or JSON) OpenAPI document parsed by the one loader (`parse_data`: a safe loader,
    dates kept as strings); ValueError names `source` when it is not a mapping, DocumentError
    where it is not YAML."""
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    loaded = parse_data(text, source)
    if not isinstance(loaded, dict):
        raise ValueError(f"{source} is not a YAML mapping")
    return loaded


@functools.cache
def spec_document() -> SpecRoot:
    """The installed spec, parsed once, as the wire reads it (`wire_document`: an
    `x-decimal-string` integer is the `oneOf` of its two forms). Shared: callers must not
    mutate it."""
    return wire_document(parse_document(spec_bytes()))


def root_or_installed(root: SpecRoot | None) -> SpecRoot:
    return spec_document() if root is None else root


@functools.cache
def _installed_resolver() -> Resolver:
    return Resolver(spec_document(), SPEC_FILE)


def resolve_ref(node: dict[str, Any], root: SpecRoot | None = None) -> dict[str, Any]:
    """Follow a chain of `$ref`s (through the one resolver, `Resolver`) to the node it names;
    KeyError naming the `$ref` when it names nothing (a `root` without files beside it: a
    reference to another file names nothing) or loops."""
    resolver = _installed_resolver() if root is None else Resolver(root, SPEC_FILE)
    seen: set[str] = set()
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or ref in seen:
            raise KeyError(f"unresolvable $ref {ref!r}")
        seen.add(ref)
        try:
            node = resolver.target(ref)
        except DocumentError as error:
            raise KeyError(f"unresolvable $ref {ref!r}: {error.reason}") from None
    return node


def schema(name: str, root: SpecRoot | None = None) -> dict[str, Any]:
    """`#/components/schemas/<name>`, `$ref`s followed; KeyError if there is none."""
    return resolve_ref(root_or_installed(root)["components"]["schemas"][name], root)


def enum_values(name: str, root: SpecRoot | None = None) -> tuple[str, ...]:
    """The values of the enum schema `name`, in the document's order."""
    return tuple(schema(name, root)["enum"])


def enum_value(name: str, suffix: str, root: SpecRoot | None = None) -> str:
    """The one value of enum `name` ending in `_<suffix>` (`OperationStatus`, `PENDING` ->
    `TRAINING_OPERATION_STATUS_PENDING`); KeyError when there is not exactly one."""
    found = [value for value in enum_values(name, root) if value.endswith(f"_{suffix}")]
    if len(found) != 1:
        raise KeyError(f"the spec's {name} has no single value ending in _{suffix}: {found}")
    return found[0]


def find_operation(operation_id: str, root: SpecRoot | None = None) -> tuple[str, str, Any]:
    """`(path, method, operation)` of the operation with this `operationId`; KeyError if none."""
    for path, item in root_or_installed(root)["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return path, method, operation
    raise KeyError(f"no operation {operation_id!r} in the spec")


def default(node: dict[str, Any], root: SpecRoot | None = None) -> tuple[bool, Any]:
    """`(found, value)`: a node's `default`, else its `x-server-default` (a default the server
    applies that no client sends for the user: see the spec's info), else its `$ref` target's."""
    for keyword in ("default", SERVER_DEFAULT_KEYWORD):
        if keyword in node:
            return True, node[keyword]
    if "$ref" in node:
        return default(resolve_ref({"$ref": node["$ref"]}, root), root)
    return False, None


def defaults(schema_or_name: str | dict[str, Any], root: SpecRoot | None = None) -> dict[str, Any]:
    """The default (`default` or `x-server-default`, on the property or the schema it refers
    to) of each property of an object schema (a component's name or a node) that declares one."""
    node = schema(schema_or_name, root) if isinstance(schema_or_name, str) else schema_or_name
    found = {
        name: default(prop, root)
        for name, prop in resolve_ref(node, root).get("properties", {}).items()
    }
    return {name: value for name, (has, value) in found.items() if has}


def request_example(operation_id: str, name: str, root: SpecRoot | None = None) -> Any:
    """The value of the JSON request-body example `name` of `operation_id`; KeyError naming
    the examples there are when it has none of that name."""
    _, _, operation = find_operation(operation_id, root)
    body = resolve_ref(operation.get("requestBody") or {}, root)
    examples = ((body.get("content") or {}).get("application/json") or {}).get("examples") or {}
    if name not in examples:
        raise KeyError(f"{operation_id} has no request example {name!r} (has {sorted(examples)})")
    return resolve_ref(examples[name], root)["value"]


def upload_threshold_bytes(root: SpecRoot | None = None) -> int:
    """Operation bodies whose compact JSON is longer than this many bytes are uploaded: the
    number of the one `x-rules` entry with `x-upload-threshold-bytes`."""
    found = [
        rule[UPLOAD_THRESHOLD_KEYWORD]
        for item in root_or_installed(root)["paths"].values()
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
