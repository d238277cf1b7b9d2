"""The schema facts the contract suite acts on, read from `spec/openapi.yaml` (never typed again).

Code names a value it gives a meaning to by the suffix the spec spells it with
(``enum_value("OperationStatus", "COMPLETED")``) and an operation kind by its path segment
(``operation_kind("optim-step")``), so a value or kind the spec drops fails at import instead of
drifting. The proto zero values (``*_UNSPECIFIED``) are never a client's choice.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import yaml

from contract_tests._target import SPEC_PATH

__all__ = [
    "LOSS_TYPES",
    "OPERATION_KINDS",
    "PARAMS_KEYS",
    "choices",
    "enum_value",
    "enum_values",
    "operation_kind",
    "params_defaults",
    "spec",
]

_UNSPECIFIED = "_UNSPECIFIED"
_KIND_PATH = re.compile(r"^/rl/training-sessions/\{session_id\}/operations/([a-z-]+)$")


@functools.cache
def spec() -> dict[str, Any]:
    """The parsed spec."""
    loaded: dict[str, Any] = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    return loaded


def _schema(name: str) -> dict[str, Any]:
    node: dict[str, Any] = spec()["components"]["schemas"][name]
    return node


def enum_values(name: str) -> tuple[str, ...]:
    """Every value of the enum schema ``name``, in the spec's order."""
    return tuple(_schema(name)["enum"])


def choices(name: str) -> tuple[str, ...]:
    """The values of an enum a client may choose: all but the proto zero value."""
    return tuple(v for v in enum_values(name) if not v.endswith(_UNSPECIFIED))


def enum_value(name: str, suffix: str) -> str:
    """The one value of enum ``name`` ending in ``_<suffix>``."""
    found = [v for v in enum_values(name) if v.endswith(f"_{suffix}")]
    if len(found) != 1:
        raise LookupError(f"the spec's {name} has no single value ending in _{suffix}: {found}")
    return found[0]


def _operation_kinds() -> dict[str, tuple[str, str]]:
    paths: dict[str, Any] = spec()["paths"]
    kinds: dict[str, tuple[str, str]] = {}
    for path, item in paths.items():
        match = _KIND_PATH.match(path)
        if match and "post" in item:
            kind = match.group(1)
            poll = paths[f"{path}/{{operation_id}}"]["get"]["operationId"]
            kinds[kind] = (item["post"]["operationId"], poll)
    return kinds


#: Operation kind (its path segment) -> (operationId of its POST, operationId of its GET).
OPERATION_KINDS: dict[str, tuple[str, str]] = _operation_kinds()


def operation_kind(kind: str) -> str:
    """``kind``, checked to be an operation kind of the spec."""
    if kind not in OPERATION_KINDS:
        raise LookupError(f"the spec has no operation kind {kind!r}: {sorted(OPERATION_KINDS)}")
    return kind


LOSS_TYPES: tuple[str, ...] = choices("LossType")


def _params_keys() -> dict[str, str]:
    """Loss type -> the `LossConfig` property holding its params (`LOSS_TYPE_PPO` -> `ppo_params`);
    a type whose params object the spec does not declare (importance sampling) has none."""
    prefix = enum_value("LossType", "UNSPECIFIED").removesuffix("UNSPECIFIED")
    declared = _schema("LossConfig")["properties"]
    keys = {t: t.removeprefix(prefix).lower() + "_params" for t in LOSS_TYPES}
    return {t: key for t, key in keys.items() if key in declared}


PARAMS_KEYS: dict[str, str] = _params_keys()


def _default(node: dict[str, Any]) -> tuple[bool, Any]:
    """A node's `default`, else its `x-server-default` (a default the server applies that no
    client sends for the user: see the spec's info), else its `$ref` target's."""
    for keyword in ("default", "x-server-default"):
        if keyword in node:
            return True, node[keyword]
    if "$ref" in node:
        return _default(_schema(node["$ref"].rsplit("/", 1)[-1]))
    return False, None


def params_defaults(params_key: str) -> dict[str, Any]:
    """The default of every property of the params object ``params_key`` that declares one."""
    node = _schema("LossConfig")["properties"][params_key]
    if "$ref" in node:
        node = _schema(node["$ref"].rsplit("/", 1)[-1])
    found = {name: _default(prop) for name, prop in node.get("properties", {}).items()}
    return {name: value for name, (has, value) in found.items() if has}
