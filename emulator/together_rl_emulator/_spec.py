"""The OpenAPI spec installed with the package: its bytes (served at `GET /openapi.yaml`), parsed.

The emulator never reads `spec/` from the working directory: what it serves and validates with is
the copy shipped inside `together_rl_emulator`.
"""

from __future__ import annotations

import functools
import importlib.resources
from typing import Any

import yaml

__all__ = [
    "enum_value",
    "enum_values",
    "find_operation",
    "load_spec",
    "resolve_ref",
    "schema",
    "spec_bytes",
]

_PACKAGE = "together_rl_emulator"
_SPEC_FILE = "openapi.yaml"


@functools.cache
def spec_bytes() -> bytes:
    """The installed `openapi.yaml`, byte for byte (read once)."""
    return (importlib.resources.files(_PACKAGE) / _SPEC_FILE).read_bytes()


@functools.cache
def load_spec() -> dict[str, Any]:
    """The parsed spec (parsed once). Shared: callers must not mutate it."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spec = yaml.load(spec_bytes(), Loader=loader)  # a safe loader either way
    if not isinstance(spec, dict):
        raise RuntimeError(f"{_SPEC_FILE} of {_PACKAGE} is not a YAML mapping")
    return spec


def find_operation(operation_id: str) -> tuple[str, str, dict[str, Any]]:
    """`(path, method, operation)` of the operation with this `operationId`; KeyError if none."""
    for path, item in load_spec()["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return path, method, operation
    raise KeyError(f"no operation {operation_id!r} in the spec")


def resolve_ref(node: dict[str, Any]) -> dict[str, Any]:
    """Follow a local `$ref` (`#/components/...`) chain to the node it names."""
    spec = load_spec()
    seen: set[str] = set()
    while "$ref" in node:
        ref = node["$ref"]
        if not isinstance(ref, str) or not ref.startswith("#/") or ref in seen:
            raise KeyError(f"unresolvable $ref {ref!r}")
        seen.add(ref)
        target: Any = spec
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def schema(name: str) -> dict[str, Any]:
    """`#/components/schemas/<name>`, `$ref`s followed; KeyError if the spec has none."""
    return resolve_ref(load_spec()["components"]["schemas"][name])


def enum_values(name: str) -> tuple[str, ...]:
    """The values of the enum schema `name`, in the spec's order."""
    return tuple(schema(name)["enum"])


def enum_value(name: str, suffix: str) -> str:
    """The one value of enum `name` ending in `_<suffix>` (`OperationStatus`, `PENDING` ->
    `TRAINING_OPERATION_STATUS_PENDING`); KeyError when the spec has no such value."""
    found = [value for value in enum_values(name) if value.endswith("_" + suffix)]
    if len(found) != 1:
        raise KeyError(f"the spec's {name} has no single value ending in _{suffix}: {found}")
    return found[0]
