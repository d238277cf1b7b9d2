"""Scenarios are data: YAML or JSON files validated by `scenario.schema.json` (its fault `action`
enum filled from the referee's registry, `_faults.FAULT_ACTIONS`), loaded here into the typed
scenarios of `_types` (enum expansions applied, request bodies built from the spec's examples)."""

from __future__ import annotations

import copy
import json
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from . import _spec
from ._faults import FAULT_ACTIONS
from ._rules import RULES
from ._types import FEATURES, Call, Expect, Fault, Scenario

__all__ = ["ScenarioError", "builtin_scenario_files", "load_scenarios"]


class ScenarioError(ValueError):
    """A scenario file the schema or the spec refuses; the message names the file and place."""


def builtin_scenario_files() -> list[Path]:
    """The scenario files shipped with the kit, in name order."""
    folder = resources.files("together_rl_client_kit") / "scenarios"
    return sorted(Path(str(item)) for item in folder.iterdir() if item.name.endswith(".yaml"))


def _schema() -> dict[str, Any]:
    """`scenario.schema.json`, with the referee's fault actions as the enum of `action`."""
    text = (resources.files("together_rl_client_kit") / "scenario.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    loaded["$defs"]["fault"]["properties"]["action"]["enum"] = list(FAULT_ACTIONS)
    return loaded


def load_scenarios(paths: list[Path] | None = None) -> list[Scenario]:
    """Every scenario of ``paths`` (default: the built-in files), validated; ids are unique."""
    import jsonschema  # here, not at the top: a driver importing the package never loads it

    validator = jsonschema.Draft202012Validator(_schema())
    scenarios: list[Scenario] = []
    for path in paths if paths is not None else builtin_scenario_files():
        try:
            document = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as error:
            raise ScenarioError(f"{path}: cannot read: {error}") from error
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(str(part) for part in errors[0].absolute_path) or "(top)"
            raise ScenarioError(f"{path}: {where}: {errors[0].message}")
        for index, raw in enumerate(document["scenarios"]):
            for expanded in _expand(raw):
                scenarios.append(_build(expanded, f"{path.name}#{index}"))
    seen: set[str] = set()
    for scenario in scenarios:
        if scenario.id in seen:
            raise ScenarioError(f"{scenario.source}: duplicate scenario id {scenario.id!r}")
        seen.add(scenario.id)
    return scenarios


def _expand(raw: dict[str, Any]) -> list[dict[str, Any]]:
    """One scenario per value of its `for_each` enum, `{value}` and `{name}` substituted."""
    if "for_each" not in raw:
        return [raw]
    values = _spec.enum_values(raw["for_each"]["enum"])
    prefix = _common_prefix(values)
    out = []
    for value in values:
        text = json.dumps({k: v for k, v in raw.items() if k != "for_each"})
        name = value[len(prefix) :].lower().replace("_", "-")
        out.append(json.loads(text.replace("{value}", value).replace("{name}", name)))
    return out


def _common_prefix(values: tuple[str, ...]) -> str:
    prefix = values[0]
    for value in values[1:]:
        while not value.startswith(prefix):
            prefix = prefix[:-1]
    return prefix


def _build(raw: dict[str, Any], source: str) -> Scenario:
    where = f"{source} ({raw['id']})"
    unknown_rules = [rule for rule in raw["rules"] if rule not in RULES]
    if unknown_rules:
        raise ScenarioError(f"{where}: unknown rules {unknown_rules} (known: {sorted(RULES)})")
    unknown = [f for f in raw["requires"] if f not in FEATURES]
    if unknown:
        raise ScenarioError(f"{where}: unknown features {unknown} (known: {sorted(FEATURES)})")
    calls = []
    for call in raw["calls"]:
        try:
            _spec.route(call["op"])
            body = _body(call["op"], call["body"]) if "body" in call else None
        except KeyError as error:
            raise ScenarioError(f"{where}: {error.args[0]}") from None
        calls.append(Call(call["op"], body, bool(call.get("caller_key", False))))
    faults = tuple(Fault(**fault) for fault in raw.get("faults", []))
    for fault in faults:
        if fault.error_code is not None and fault.error_code not in _spec.enum_values(
            "OperationErrorCode"
        ):
            raise ScenarioError(f"{where}: {fault.error_code!r} is not an OperationErrorCode")
        if fault.target == "poll" and _spec.poll_route(calls[0].op) is None:
            raise ScenarioError(f"{where}: {calls[0].op} creates no operation to poll")
    return Scenario(
        id=raw["id"],
        level=raw["level"],
        title=raw["title"],
        requires=tuple(raw["requires"]),
        rules=tuple(raw["rules"]),
        calls=tuple(calls),
        expect=Expect(**raw["expect"]),
        faults=faults,
        source=source,
    )


def _body(operation_id: str, spec: dict[str, Any]) -> dict[str, Any]:
    """The spec's request example, its first sample repeated and its number lists stretched."""
    body: dict[str, Any] = copy.deepcopy(_spec.request_example(operation_id, spec["example"]))
    if "samples" in spec or "tokens" in spec:
        first = body["samples"][0]
        if "tokens" in spec:
            first = _stretch(first, spec["tokens"])
        body["samples"] = [copy.deepcopy(first) for _ in range(spec.get("samples", 1))]
    body.update(spec.get("set", {}))
    return body


def _stretch(node: Any, length: int) -> Any:
    """Every list of numbers inside ``node`` cycled to ``length`` elements."""
    if isinstance(node, dict):
        return {key: _stretch(value, length) for key, value in node.items()}
    if isinstance(node, list):
        if node and all(isinstance(v, int | float) and not isinstance(v, bool) for v in node):
            return [node[i % len(node)] for i in range(length)]
        return [_stretch(value, length) for value in node]
    return node
