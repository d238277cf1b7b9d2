"""Scenarios are data: YAML or JSON files validated by `scenario.schema.json`, loaded here into
typed scenarios (enum expansions applied, request bodies built from the spec's examples)."""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from . import _spec
from ._rules import RULES

__all__ = [
    "FEATURES",
    "Call",
    "Expect",
    "Fault",
    "Scenario",
    "ScenarioError",
    "builtin_scenario_files",
    "load_scenarios",
]

#: What a driver may declare in `supports` besides the operationIds it can perform.
FEATURES: dict[str, str] = {
    "idempotency-key": (
        "sends one Idempotency-Key per logical operation call, the same on its retries"
    ),
    "caller-idempotency-key": "uses the caller's own idempotency_key when one is given",
    "retries": (
        "retries dropped connections, truncated answers, 429 and 5xx; never 400/401/403/404/422"
    ),
    "retry-after": "waits the Retry-After seconds of a 429/503 before retrying",
    "retry-after-http-date": "waits until the HTTP date of a Retry-After",
    "retry-after-ms": "waits the retry-after-ms milliseconds",
    "polling": "polls an operation until COMPLETED or FAILED, through any other status",
    "upload": "sends bodies over the spec's threshold through upload-url and a presigned PUT",
    "download": "completes an offloaded result through download-url and a presigned GET",
}


class ScenarioError(ValueError):
    """A scenario file the schema or the spec refuses; the message names the file and place."""


@dataclass(frozen=True)
class Fault:
    """What the referee does to the call's requests (``target: call``) or to the GETs that poll
    its operation (``target: poll``)."""

    target: str
    action: str
    count: int = 1
    status: int | None = None
    commit: bool = False
    retry_after: str | None = None
    delay_ms: int = 0
    poll_status: str | None = None
    for_ms: int = 0
    error_code: str | None = None


@dataclass(frozen=True)
class Call:
    """One logical call the driver is asked to perform."""

    op: str
    body: dict[str, Any] | None = None
    caller_key: bool = False


@dataclass(frozen=True)
class Expect:
    ok: bool
    status: int | None = None
    error_code: str | None = None


@dataclass(frozen=True)
class Scenario:
    id: str
    level: str
    title: str
    requires: tuple[str, ...]
    rules: tuple[str, ...]
    calls: tuple[Call, ...]
    expect: Expect
    faults: tuple[Fault, ...] = field(default=())
    source: str = ""

    def features(self) -> set[str]:
        """The driver features this scenario needs: its `requires` and the ops of its calls."""
        return set(self.requires) | {call.op for call in self.calls}


def builtin_scenario_files() -> list[Path]:
    """The scenario files shipped with the kit, in name order."""
    folder = resources.files("together_rl_client_kit") / "scenarios"
    return sorted(Path(str(item)) for item in folder.iterdir() if item.name.endswith(".yaml"))


def _schema() -> dict[str, Any]:
    text = (resources.files("together_rl_client_kit") / "scenario.schema.json").read_text()
    loaded: dict[str, Any] = json.loads(text)
    return loaded


def load_scenarios(paths: list[Path] | None = None) -> list[Scenario]:
    """Every scenario of ``paths`` (default: the built-in files), validated; ids are unique."""
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
    body = copy.deepcopy(_spec.request_example(operation_id, spec["example"]))
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
