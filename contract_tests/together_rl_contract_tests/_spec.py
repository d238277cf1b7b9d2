"""The one reader of the spec for the contract suite and the proxy: schema facts, routes, sources.

The document is the installed tree's one copy, read by ``together_rl_spec`` (the one reader of
the spec: parsing, ``$ref``, schemas, enums), never a path of the checkout, so an installed suite
finds it too; every judgement is the suite's own. Code names a value it gives a meaning to by
the suffix the spec spells it with (``enum_value("OperationStatus", "COMPLETED")``) and an
operation kind by its path segment (``operation_kind("optim-step")``), so a value or kind the
spec drops fails at import instead of drifting. The proto zero values (``*_UNSPECIFIED``) are
never a client's choice.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.resources
import re
from collections.abc import Iterator
from importlib.resources.abc import Traversable
from typing import Any
from urllib.parse import urlsplit

from together_rl_spec import (
    defaults,
    enum_value,
    enum_values,
    match_route,
    resolve_ref,
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
    "server_prefix",
    "spec",
    "spec_version",
    "wire_path",
]

_UNSPECIFIED = "_UNSPECIFIED"
_KIND_PATH = re.compile(r"^/rl/training-sessions/\{session_id\}/operations/([a-z-]+)$")
_PARAM = re.compile(r"\{([^}/]+)\}")
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


# ----------------------------------------------------------------------------- enums


def choices(name: str) -> tuple[str, ...]:
    """The values of an enum a client may choose: all but the proto zero value."""
    return tuple(v for v in enum_values(name) if not v.endswith(_UNSPECIFIED))


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


@dataclasses.dataclass(frozen=True)
class Route:
    """Which operation of the spec a request is: ``(method, wire path)`` -> id and path params."""

    operation_id: str
    method: str  # upper case
    template: str  # the spec's path, e.g. /rl/training-sessions/{session_id}
    path_params: dict[str, str]

    @property
    def label(self) -> str:
        return f"{self.operation_id} ({self.method} {self.template})"


@functools.cache
def server_prefix() -> str:
    """The path of the spec's first server URL (``/v1``), prepended to every route on the wire."""
    servers = spec().get("servers") or [{"url": ""}]
    return urlsplit(servers[0]["url"]).path.rstrip("/")


def operation_id(name: str) -> str:
    """``name``, checked to be an operationId of the spec (one the spec drops fails at import)."""
    if name not in operation_labels():
        raise LookupError(f"the spec has no operation {name!r}")
    return name


def wire_path(operation: str, /, **path_params: str) -> str:
    """The path on the wire (``/v1/...``) of the operation with this operationId, its path
    parameters filled in."""
    template = operation_labels()[operation].split(" ", 1)[1]
    return server_prefix() + template.format(**path_params)


def find_route(method: str, path: str) -> Route | None:
    """The operation of the spec this request is, or None for a route the spec does not have."""
    found = match_route(method, path)  # a literal segment wins over a parameter
    if found is None:
        return None
    route, params = found
    return Route(route.operation_id, route.method, route.template, params)


# ----------------------------------------------------------------------------- losses


LOSS_TYPES: tuple[str, ...] = choices("LossType")


def _params_keys() -> dict[str, str]:
    """Loss type -> the `LossConfig` property holding its params (`LOSS_TYPE_PPO` -> `ppo_params`);
    a type whose params object the spec does not declare (importance sampling) has none."""
    prefix = enum_value("LossType", "UNSPECIFIED").removesuffix("UNSPECIFIED")
    declared = schema("LossConfig")["properties"]
    keys = {t: t.removeprefix(prefix).lower() + "_params" for t in LOSS_TYPES}
    return {t: key for t, key in keys.items() if key in declared}


PARAMS_KEYS: dict[str, str] = _params_keys()


def params_defaults(params_key: str) -> dict[str, Any]:
    """The default of every property of the params object ``params_key`` that declares one."""
    return defaults(schema("LossConfig")["properties"][params_key])
