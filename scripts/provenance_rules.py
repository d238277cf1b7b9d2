"""Every rule of `spec/openapi.yaml` with its `x-source`: the one walker of the spec's rule keys
(what counts as a rule: `provenance_table.py`'s docstring and docs/provenance.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "NON_RULE_EXTENSIONS",
    "RULE_KEYWORDS",
    "Rule",
    "iter_rules",
    "rule_keywords",
    "value_text",
]

#: The JSON Schema keywords that restrict what a value may be, plus the defaults. `type`,
#: `format`, `items`, `properties` and the other structural keywords are the shape of the API,
#: held to the official SDK as a whole, not rules with a source each (docs/provenance.md).
RULE_KEYWORDS: tuple[str, ...] = (
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "required",
    "enum",
    "const",
    "additionalProperties",  # only `false`; a schema there is the type of a map's values
    "default",
)
#: Extensions that are not rules; every other `x-` key of a schema is a rule keyword.
NON_RULE_EXTENSIONS = frozenset({"x-source", "x-rules", "x-upstream-differs"})

_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs")
_SUBSCHEMA_LISTS = ("oneOf", "anyOf", "allOf", "prefixItems")
_SUBSCHEMA_SINGLE = ("items", "additionalProperties", "not", "contains")
_SUFFIXES = {"items": "[]", "additionalProperties": "{}"}
_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def value_text(value: Any) -> str:
    """A rule's value as the reports print it (compact JSON, unicode kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


@dataclass(frozen=True)
class Rule:
    """One rule of the spec: where it is, which keyword, its value and its `x-source`
    (`None` when it has none)."""

    location: str
    keyword: str
    value: Any
    source: str | None
    status: str | None = None


# ----------------------------------------------------------------------------- walking


def rule_keywords(node: Mapping[str, Any]) -> list[str]:
    """The keys of a schema node that are rules (`RULE_KEYWORDS`, extensions, a closed map)."""
    found = []
    for key, value in node.items():
        if key == "additionalProperties":
            if value is False:
                found.append(key)
        elif key in RULE_KEYWORDS or (key.startswith("x-") and key not in NON_RULE_EXTENSIONS):
            found.append(key)
    return found


def _source_of(node: Mapping[str, Any], keyword: str) -> str | None:
    source = node.get("x-source")
    if isinstance(source, Mapping):
        value = source.get(keyword)
        return value if isinstance(value, str) else None
    return source if isinstance(source, str) else None


def _keyword_rules(location: str, node: Mapping[str, Any], keywords: list[str]) -> Iterator[Rule]:
    for keyword in keywords:
        yield Rule(location, keyword, node[keyword], _source_of(node, keyword))


def _x_rules(location: str, node: Mapping[str, Any]) -> Iterator[Rule]:
    for entry in node.get("x-rules", []) or []:
        if not isinstance(entry, Mapping):
            yield Rule(location, "x-rules", entry, None)
            continue
        source = entry.get("x-source")
        status = entry.get("status")
        yield Rule(
            location,
            "x-rules",
            entry.get("rule"),
            source if isinstance(source, str) else None,
            str(status) if status is not None else None,
        )


def _schema_rules(location: str, schema: Any) -> Iterator[Rule]:
    """The rules of one schema object and of every schema inline in it ($refs are not
    followed: a component is walked once, under its own name)."""
    if not isinstance(schema, Mapping) or ("$ref" in schema and len(schema) == 1):
        return
    yield from _keyword_rules(location, schema, rule_keywords(schema))
    yield from _x_rules(location, schema)
    for key in _SUBSCHEMA_MAPS:
        for name, sub in (schema.get(key) or {}).items():
            yield from _schema_rules(f"{location}.{name}", sub)
    for key in _SUBSCHEMA_LISTS:
        for index, sub in enumerate(schema.get(key) or []):
            yield from _schema_rules(f"{location}.{key}[{index}]", sub)
    for key in _SUBSCHEMA_SINGLE:
        sub = schema.get(key)
        if isinstance(sub, Mapping):
            yield from _schema_rules(f"{location}{_SUFFIXES.get(key, '.' + key)}", sub)


def _required_flag(location: str, node: Mapping[str, Any]) -> Iterator[Rule]:
    """`required: true` on a parameter (other than a path parameter, which OpenAPI requires
    to be required), a header or a request body."""
    if node.get("required") is True and node.get("in") != "path":
        yield Rule(location, "required", True, _source_of(node, "required"))


def _parameter_rules(location: str, parameter: Any) -> Iterator[Rule]:
    if not isinstance(parameter, Mapping) or "$ref" in parameter:
        return
    yield from _required_flag(location, parameter)
    yield from _x_rules(location, parameter)
    yield from _schema_rules(location, parameter.get("schema"))


def _content_rules(location: str, holder: Mapping[str, Any]) -> Iterator[Rule]:
    for media, content in (holder.get("content") or {}).items():
        yield from _schema_rules(f"{location} {media}", content.get("schema"))


def _header_rules(location: str, header: Any) -> Iterator[Rule]:
    if not isinstance(header, Mapping) or "$ref" in header:
        return
    yield from _required_flag(location, header)
    yield from _schema_rules(location, header.get("schema"))


def _response_rules(location: str, response: Any) -> Iterator[Rule]:
    if not isinstance(response, Mapping) or "$ref" in response:
        return
    yield from _x_rules(location, response)
    for name, header in (response.get("headers") or {}).items():
        yield from _header_rules(f"{location} header {name}", header)
    yield from _content_rules(location, response)


def iter_rules(spec: Mapping[str, Any]) -> Iterator[Rule]:
    """Every rule of the spec: the operations (paths in order, methods in `_HTTP_METHODS`
    order), then the components."""
    for template, item in (spec.get("paths") or {}).items():
        for parameter in item.get("parameters", []):
            yield from _parameter_rules(
                f"{template} {parameter.get('in')} {parameter.get('name')}", parameter
            )
        for method in _HTTP_METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            name = operation.get("operationId", f"{method.upper()} {template}")
            yield from _x_rules(name, operation)
            for parameter in operation.get("parameters", []):
                yield from _parameter_rules(
                    f"{name} {parameter.get('in')} {parameter.get('name')}", parameter
                )
            body = operation.get("requestBody")
            if isinstance(body, Mapping) and "$ref" not in body:
                yield from _required_flag(f"{name} requestBody", body)
                yield from _content_rules(f"{name} requestBody", body)
            for status, response in (operation.get("responses") or {}).items():
                yield from _response_rules(f"{name} {status}", response)
    components = spec.get("components") or {}
    for name, parameter in (components.get("parameters") or {}).items():
        yield from _parameter_rules(f"parameters.{name}", parameter)
    for name, header in (components.get("headers") or {}).items():
        yield from _header_rules(f"headers.{name}", header)
    for name, body in (components.get("requestBodies") or {}).items():
        yield from _required_flag(f"requestBodies.{name}", body)
        yield from _content_rules(f"requestBodies.{name}", body)
    for name, response in (components.get("responses") or {}).items():
        yield from _response_rules(f"responses.{name}", response)
    for name, schema in (components.get("schemas") or {}).items():
        yield from _schema_rules(name, schema)
