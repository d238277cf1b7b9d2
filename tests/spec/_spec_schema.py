"""Shared helpers of the spec tests: load `spec/openapi.yaml`, validate against its components,
match a captured HTTP request to the spec operation it calls, and read `spec/examples/`.

Import it from a test module next to it (`from _spec_schema import ...`): pytest puts this
folder on `sys.path` because it has no `__init__.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs
import yaml
from jsonschema import Draft202012Validator, ValidationError
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012
from together_rl_spec import wire_document

REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = REPO_ROOT / "spec" / "openapi.yaml"
EXAMPLES_DIR = REPO_ROOT / "spec" / "examples"
VALID_EXAMPLES_DIR = EXAMPLES_DIR / "valid"
INVALID_EXAMPLES_DIR = EXAMPLES_DIR / "invalid"

# The one place that maps an example file's prefix (the part before its first dot) to the
# component schema it is a body of.
EXAMPLE_SCHEMAS: Mapping[str, str] = {
    "forward_backward": "ForwardBackwardBody",
    "custom_forward_backward": "CustomForwardBackwardBody",
    "optim_step": "OptimStepBody",
    "sample": "SampleBody",
    "weights_sync": "WeightsSyncBody",
    "model_resources_create": "ModelResourcesCreate",
    "session_create": "SessionCreate",
    "session_update": "SessionUpdate",
    "model_resources_extend_expiry": "ModelResourcesExtendExpiry",
    "rollouts_estimate": "RolloutEstimateRequest",
}
# ... and to the operation it is the body of (for sending it to a server).
EXAMPLE_OPERATIONS: Mapping[str, str] = {
    "forward_backward": "forwardBackward",
    "custom_forward_backward": "customForwardBackward",
    "optim_step": "optimStep",
    "sample": "sample",
    "weights_sync": "weightsSync",
    "model_resources_create": "createModelResources",
    "session_create": "startTrainingSession",
    "session_update": "updateTrainingSession",
    "model_resources_extend_expiry": "extendModelResourcesExpiry",
    "rollouts_estimate": "estimateRollouts",
}

SPEC_URI = "urn:together-rl:openapi"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@cache
def load_spec() -> dict[str, Any]:
    """The parsed spec (cached; do not mutate)."""
    with SPEC_PATH.open(encoding="utf-8") as handle:
        spec: dict[str, Any] = yaml.safe_load(handle)
    return spec


@cache
def spec_registry() -> Registry:
    """A registry holding the whole spec document as the wire reads it (an `x-decimal-string`
    integer takes its string form too), so `#/components/...` refs resolve."""
    resource = Resource.from_contents(wire_document(load_spec()), default_specification=DRAFT202012)
    return Registry().with_resource(SPEC_URI, resource)


def validator_for(schema: Mapping[str, Any]) -> Draft202012Validator:
    """A Draft 2020-12 validator of `schema`, whose `#/components/...` refs point into the spec."""
    return Draft202012Validator(_rebase_refs(schema), registry=spec_registry())


@cache
def component_validator(name: str) -> Draft202012Validator:
    """A validator of `#/components/schemas/<name>`."""
    if name not in load_spec()["components"]["schemas"]:
        raise KeyError(f"no schema {name!r} in components.schemas")
    return validator_for({"$ref": f"#/components/schemas/{name}"})


@cache
def fast_component_validator(name: str) -> jsonschema_rs.Validator:
    """A compiled (Rust) validator of `#/components/schemas/<name>`, for large bodies where the
    pure-Python one takes seconds; its errors are plainer (no `error_params`)."""
    components = load_spec()["components"]
    if name not in components["schemas"]:
        raise KeyError(f"no schema {name!r} in components.schemas")
    schema = {"$ref": f"#/components/schemas/{name}", "components": components}
    return jsonschema_rs.Draft202012Validator(schema)


def _rebase_refs(node: Any) -> Any:
    """Copy of `node` with local refs (`#/...`) turned into refs into the registered spec."""
    if isinstance(node, dict):
        return {
            key: (
                SPEC_URI + value
                if key == "$ref" and isinstance(value, str) and value.startswith("#")
                else _rebase_refs(value)
            )
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [_rebase_refs(item) for item in node]
    return node


def resolve(node: Any) -> Any:
    """Follow a local `$ref` (repeatedly) to the spec object it names."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError(f"only local refs are supported, got {ref!r}")
        target: Any = load_spec()
        for part in ref[2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


# ----------------------------------------------------------------------------- error paths


def param_path(path: Sequence[str | int]) -> str:
    """`['samples', 0, 'loss_fn_inputs']` -> `samples[0].loss_fn_inputs`."""
    text = ""
    for part in path:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text


def iter_leaf_errors(
    errors: Iterator[ValidationError] | Sequence[ValidationError],
) -> Iterator[ValidationError]:
    """Every error, and for `oneOf`/`anyOf` failures also the errors of each branch."""
    for error in errors:
        yield error
        if error.context:
            yield from iter_leaf_errors(error.context)


def error_params(error: ValidationError) -> list[str]:
    """The field paths an error is about, in the `param` notation of the examples.

    For `required` and `additionalProperties` the error sits on the parent object; the field
    named is the missing or unexpected property itself.
    """
    base = list(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, dict):
        missing = [name for name in error.validator_value if name not in instance]
        return [param_path([*base, name]) for name in missing]
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        declared = set(error.schema.get("properties", {}))
        patterns = list(error.schema.get("patternProperties", {}))
        extra = [
            name
            for name in instance
            if name not in declared and not any(re.search(p, name) for p in patterns)
        ]
        return [param_path([*base, name]) for name in extra]
    return [param_path(base)]


# ----------------------------------------------------------------------------- examples


@dataclass(frozen=True)
class ValidExample:
    path: Path
    schema: str
    body: Any


@dataclass(frozen=True)
class InvalidExample:
    path: Path
    schema: str
    rule: str
    description: str
    schema_valid: bool
    param: str
    keyword: str | None
    body: Any
    # The rule is the emulator's own (the live API may accept the body): Muon on AdamW
    # resources, stop strings.
    emulator_only: bool = False


def schema_of_example(path: Path) -> str:
    prefix = path.name.split(".", 1)[0]
    if prefix not in EXAMPLE_SCHEMAS:
        raise KeyError(f"{path.name}: unknown example prefix {prefix!r}; add it to EXAMPLE_SCHEMAS")
    return EXAMPLE_SCHEMAS[prefix]


def valid_examples() -> list[ValidExample]:
    return [
        ValidExample(path, schema_of_example(path), json.loads(path.read_text(encoding="utf-8")))
        for path in sorted(VALID_EXAMPLES_DIR.glob("*.json"))
    ]


def invalid_examples() -> list[InvalidExample]:
    examples = []
    for path in sorted(INVALID_EXAMPLES_DIR.glob("*.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        examples.append(
            InvalidExample(
                path=path,
                schema=schema_of_example(path),
                rule=path.name.split(".")[1],
                description=doc["description"],
                schema_valid=doc["schema_valid"],
                param=doc["param"],
                keyword=doc.get("keyword"),
                body=doc["body"],
                emulator_only=doc.get("emulator_only", False),
            )
        )
    return examples


# ----------------------------------------------------------------------------- operations


@dataclass(frozen=True)
class Operation:
    """One operation of the spec: its path template, method and OpenAPI object."""

    path_template: str
    method: str
    spec: Mapping[str, Any] = field(repr=False)

    @property
    def operation_id(self) -> str:
        return str(self.spec["operationId"])

    def parameters(self) -> list[dict[str, Any]]:
        """Path-item and operation parameters, refs resolved (operation ones win)."""
        path_item = load_spec()["paths"][self.path_template]
        merged: dict[tuple[str, str], dict[str, Any]] = {}
        for raw in [*path_item.get("parameters", []), *self.spec.get("parameters", [])]:
            param = resolve(raw)
            merged[(param["name"], param["in"])] = param
        return list(merged.values())

    def request_body_schema(self) -> dict[str, Any] | None:
        body = self.spec.get("requestBody")
        if body is None:
            return None
        schema: dict[str, Any] = resolve(body)["content"]["application/json"]["schema"]
        return schema

    def response_schema(self, status: str) -> dict[str, Any] | None:
        response = resolve(self.spec["responses"][status])
        content = response.get("content", {}).get("application/json")
        return None if content is None else content["schema"]


def server_path_prefix() -> str:
    """The path part of the first server URL (`/v1`)."""
    url: str = load_spec()["servers"][0]["url"]
    return re.sub(r"^[a-z]+://[^/]+", "", url).rstrip("/")


def operations() -> list[Operation]:
    found = []
    for template, item in load_spec()["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                found.append(Operation(template, method.upper(), item[method]))
    return found


def operation_by_id(operation_id: str) -> Operation:
    for operation in operations():
        if operation.operation_id == operation_id:
            return operation
    raise KeyError(operation_id)


def _template_regex(template: str) -> re.Pattern[str]:
    parts = re.split(r"(\{[^}]+\})", template)
    pattern = "".join(
        f"(?P<{part[1:-1]}>[^/]+)" if part.startswith("{") else re.escape(part) for part in parts
    )
    return re.compile(f"^{pattern}$")


def match_operation(method: str, url_path: str) -> tuple[Operation, dict[str, str]]:
    """The spec operation a request calls, and its path parameters.

    `url_path` is the full URL path (with the server prefix, e.g. `/v1/rl/...`). Raises
    `LookupError` naming the reason when no path template or no method matches.
    """
    prefix = server_path_prefix()
    if not url_path.startswith(prefix + "/"):
        raise LookupError(f"{url_path!r} is not under the server prefix {prefix!r}")
    relative = url_path[len(prefix) :]
    templates = [t for t in load_spec()["paths"] if _template_regex(t).match(relative)]
    # A literal segment beats a parameter (`/rl/supported-models` before `/rl/{x}`).
    templates.sort(key=lambda t: t.count("{"))
    if not templates:
        raise LookupError(f"no spec path matches {relative!r}")
    for template in templates:
        item = load_spec()["paths"][template]
        if method.lower() in item:
            match = _template_regex(template).match(relative)
            assert match is not None
            return Operation(template, method.upper(), item[method.lower()]), match.groupdict()
    raise LookupError(f"{method} is not an operation of {templates[0]!r}")
