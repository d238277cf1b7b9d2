"""The spec as the contract suite and the proxy read it: schema facts, routes, sources.

The document is the installed tree's one copy, read by ``together_rl_spec`` (the one reader of
the spec: parsing, ``$ref``, schemas, enums, routes, the server path, the loss types), never a
path of the checkout, so an installed suite finds it too; this module adds the suite's own facts
(operation kinds and labels, invalid examples, wire paths) and every judgement is the suite's
own. Code names a value it gives a meaning to by the suffix the spec spells it with
(``enum_value("OperationStatus", "COMPLETED")``) and an operation kind by its path segment
(``operation_kind("optim-step")``), so a value or kind the spec drops fails at import instead of
drifting. The proto zero values (``*_UNSPECIFIED``) are never a client's choice.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import re
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from typing import Any

from together_rl_spec import (
    Route,
    choices,
    defaults,
    enum_value,
    enum_values,
    loss_types,
    match_route,
    params_keys,
    resolve_ref,
    route,
    schema,
    spec_document,
)

__all__ = [
    "LOSS_TYPES",
    "OPERATION_KINDS",
    "PARAMS_KEYS",
    "Route",
    "all_operations",
    "choices",
    "enum_value",
    "enum_values",
    "find_route",
    "invalid_examples",
    "operation_id",
    "operation_in",
    "operation_kind",
    "operation_labels",
    "operation_spec",
    "params_defaults",
    "resolve_ref",
    "schema",
    "spec",
    "spec_version",
    "wire_path",
]

_KIND_PATH = re.compile(r"^/rl/training-sessions/\{session_id\}/operations/([a-z-]+)$")
_PACKAGE_FILES = importlib.resources.files("together_rl_contract_tests")


def spec() -> dict[str, Any]:
    """The parsed spec (parsed once by ``together_rl_spec``; callers must not mutate it)."""
    return spec_document()


def invalid_examples() -> list[Traversable]:
    """The spec's invalid request examples (``spec/examples/invalid/*.json``), by name."""
    folder = _PACKAGE_FILES / "invalid_examples"
    return sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)


def spec_version() -> str:
    """``info.version`` of the spec the suite checks against."""
    return str(spec().get("info", {}).get("version", "unknown"))


# ----------------------------------------------------------------------------- operations


def _operations() -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """``(path, METHOD, path item, operation)`` of every operation, in the spec's order."""
    for path, item in spec()["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "operationId" in operation:
                yield path, method.upper(), item, operation


def all_operations() -> list[str]:
    """Every operation id of the spec, in the spec's order."""
    return [operation["operationId"] for _, _, _, operation in _operations()]


def operation_labels() -> dict[str, str]:
    """operationId -> label (``"GET /rl/supported-models"``), in the spec's order."""
    return {op["operationId"]: f"{method} {path}" for path, method, _, op in _operations()}


@functools.cache
def operation_spec(operation_id: str) -> dict[str, Any]:
    """The operation object, with ``parameters`` (path-level ones too) resolved."""
    return operation_in(spec(), operation_id)


def operation_in(document: dict[str, Any], operation_id: str) -> dict[str, Any]:
    """The operation ``operation_id`` of ``document`` (a spec), ``parameters`` resolved."""
    for item in document["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                declared = [*item.get("parameters", []), *operation.get("parameters", [])]
                resolved = [resolve_ref(p, document) for p in declared]
                return {**operation, "parameters": resolved}
    raise KeyError(operation_id)


def _operation_kinds() -> dict[str, tuple[str, str]]:
    paths: dict[str, Any] = spec()["paths"]
    kinds: dict[str, tuple[str, str]] = {}
    for path, item in paths.items():
        match = _KIND_PATH.match(path)
        if match and "post" in item:
            poll = paths[f"{path}/{{operation_id}}"]["get"]["operationId"]
            kinds[match.group(1)] = (item["post"]["operationId"], poll)
    return kinds


#: Operation kind (its path segment) -> (operationId of its POST, operationId of its GET).
OPERATION_KINDS: dict[str, tuple[str, str]] = _operation_kinds()


def operation_kind(kind: str) -> str:
    """``kind``, checked to be an operation kind of the spec."""
    if kind not in OPERATION_KINDS:
        raise LookupError(f"the spec has no operation kind {kind!r}: {sorted(OPERATION_KINDS)}")
    return kind


# ----------------------------------------------------------------------------- routes


def operation_id(name: str) -> str:
    """``name``, checked to be an operationId of the spec (one the spec drops fails at import)."""
    if name not in operation_labels():
        raise LookupError(f"the spec has no operation {name!r}")
    return name


def wire_path(operation: str, /, **path_params: str) -> str:
    """The path on the wire (``/v1/...``) of the operation with this operationId, its path
    parameters filled in."""
    return route(operation).path(path_params)


def find_route(method: str, path: str) -> Route | None:
    """The operation of the spec this request is, its path parameters in ``path_params``, or
    None for a route the spec does not have."""
    found = match_route(method, path)  # a literal segment wins over a parameter
    if found is None:
        return None
    matched, params = found
    return dataclasses.replace(matched, path_params=params)


# ----------------------------------------------------------------------------- losses


LOSS_TYPES: tuple[str, ...] = loss_types()
#: Loss type -> its params key, for the types whose params object the spec declares.
PARAMS_KEYS: dict[str, str] = {t: key for t, key in params_keys().items() if key is not None}


def params_defaults(params_key: str) -> dict[str, Any]:
    """The default of every property of the params object ``params_key`` that declares one."""
    return defaults(schema("LossConfig")["properties"][params_key])
