"""One flat view of a schema: `allOf` merged, 3.0 and 3.1 spellings made one, `$ref`s followed.

`SchemaViews.view(node)` is what the comparison reads; `fingerprint(node)` says whether two
schemas accept the same values (used to match renamed properties and `oneOf` variants).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from together_rl_spec import Resolver

from ._keywords import PROJECT_KEYWORDS, Keywords

__all__ = [
    "CONTENT_KEYWORDS",
    "LOWER_BOUNDS",
    "RULE_KEYWORDS",
    "UPPER_BOUNDS",
    "SchemaView",
    "SchemaViews",
    "rule_list",
]

LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
CONTENT_KEYWORDS = ("contentMediaType", "contentEncoding")
_OTHER_KEYWORDS = ("multipleOf", "uniqueItems", "pattern", "format", *CONTENT_KEYWORDS)
#: this project's extension keywords that state a rule (the configuration is `_keywords`)
RULE_KEYWORDS = PROJECT_KEYWORDS.rules
#: keywords read into the view, and keywords that never change what is valid; any other
#: keyword that changes is reported as a change this tool does not judge (`keyword-changed`)
_MODELLED = frozenset(
    {
        *("type", "nullable", "enum", "const", "properties", "required", "additionalProperties"),
        *("items", "prefixItems", "oneOf", "anyOf", "allOf", "not", "if", "then", "else"),
        *("dependentRequired", "dependentSchemas", "unevaluatedProperties", "readOnly"),
        *("writeOnly", "default", "$ref", *LOWER_BOUNDS, *UPPER_BOUNDS, *_OTHER_KEYWORDS),
    }
)
_ANNOTATIONS = frozenset(
    {
        *("title", "description", "summary", "example", "examples", "externalDocs", "xml"),
        *("deprecated", "$comment", "$id", "$schema", "$anchor", "$dynamicAnchor", "$defs"),
        "definitions",
    }
)
_MISSING: Any = object()
_NUMERIC = frozenset({"integer", "number"})


@dataclass
class SchemaView:
    """What a schema accepts, in one spelling."""

    types: frozenset[str] | None = None  # None: any type
    enum: list[Any] | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    additional: Any = True  # True, False or a schema node
    items: Any = None
    variants: list[Any] | None = None  # oneOf / anyOf members (null-only members removed)
    variant_keyword: str = "oneOf"
    keywords: dict[str, Any] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)  # `default` and x- default keywords
    rules: dict[str, Any] = field(default_factory=dict)  # x- rule keywords and rule lists
    read_only: bool = False
    write_only: bool = False
    prefix_items: list[Any] | None = None
    unevaluated: Any = True  # unevaluatedProperties: True, False or a schema node
    negated: list[Any] = field(default_factory=list)  # `not` members (allOf merges add up)
    conditions: list[dict[str, Any]] = field(default_factory=list)  # {if, then, else} each
    dependent_required: dict[str, frozenset[str]] = field(default_factory=dict)
    dependent_schemas: dict[str, Any] = field(default_factory=dict)
    unjudged: dict[str, Any] = field(default_factory=dict)  # keywords not modelled
    extensions: dict[str, Any] = field(default_factory=dict)  # x- keywords not configured


def _as_number(value: Any) -> Any:
    """A numeric default written as a string (`default: "0.5"`) is the number."""
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return value
        return int(number) if number.is_integer() and "." not in value else number
    return value


def _types_of(node: dict[str, Any]) -> frozenset[str] | None:
    declared = node.get("type")
    if isinstance(declared, str):
        types = {declared}
    elif isinstance(declared, list):
        types = {str(item) for item in declared}
    elif "properties" in node or "additionalProperties" in node:
        types = {"object"}
    elif "items" in node or "prefixItems" in node:
        types = {"array"}
    else:
        return None
    if node.get("nullable") is True:
        types.add("null")
    return frozenset(types)


def rule_list(rules: Any, annotations: tuple[str, ...]) -> Any:
    """A list of rules compared without the entries' annotation keys (`x-source`); a sentinel
    (never equal to a list) when there is none."""
    if not isinstance(rules, list) or not rules:
        return _MISSING
    texts = []
    for rule in rules:
        if isinstance(rule, dict):
            texts.append({k: v for k, v in rule.items() if k not in annotations})
        else:
            texts.append(rule)
    return sorted(texts, key=lambda item: json.dumps(item, sort_keys=True, default=str))


class SchemaViews:
    """Views and fingerprints of one document's schemas, cached by node."""

    def __init__(self, resolver: Resolver, keywords: Keywords = PROJECT_KEYWORDS) -> None:
        self.resolver = resolver
        self.keywords = keywords
        self._views: dict[int, SchemaView] = {}
        self._fingerprints: dict[int, str] = {}
        self._keep: list[Any] = []  # synthetic nodes stay alive, so their ids stay unique

    def follow(self, node: Any) -> tuple[Any, str | None]:
        return self.resolver.follow(node)

    def view(self, node: Any) -> SchemaView:
        resolved, _ = self.follow(node)
        cached = self._views.get(id(resolved))
        if cached is not None:
            return cached
        built = self._build(resolved, set())
        self._views[id(resolved)] = built
        return built

    def _synthetic_all_of(self, first: Any, second: Any) -> dict[str, Any]:
        merged = {"allOf": [first, second]}
        self._keep.append(merged)
        return merged

    def _build(self, node: Any, active: set[int]) -> SchemaView:
        if node is True or node is None or not isinstance(node, dict):
            return SchemaView(types=frozenset() if node is False else None)
        if id(node) in active:
            return SchemaView()
        active = active | {id(node)}
        view = SchemaView(types=_types_of(node))
        if "enum" in node and isinstance(node["enum"], list):
            view.enum = list(node["enum"])
        if "const" in node:
            view.enum = [node["const"]]
        if isinstance(node.get("properties"), dict):
            view.properties = dict(node["properties"])
        if isinstance(node.get("required"), list):
            view.required = frozenset(str(name) for name in node["required"])
        if "additionalProperties" in node:
            view.additional = node["additionalProperties"]
            if view.additional == {}:
                view.additional = True
        if "items" in node:
            view.items = node["items"]
        for keyword in (*LOWER_BOUNDS, *UPPER_BOUNDS, *_OTHER_KEYWORDS):
            if keyword in node:
                view.keywords[keyword] = node[keyword]
        for bound, plain in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            flag = view.keywords.get(bound)
            if isinstance(flag, bool):  # OpenAPI 3.0 spelling
                del view.keywords[bound]
                if flag and plain in view.keywords:
                    view.keywords[bound] = view.keywords.pop(plain)
        if view.keywords.get("uniqueItems") is False:
            del view.keywords["uniqueItems"]
        for keyword in ("default", *self.keywords.defaults):
            if keyword in node:
                view.defaults[keyword] = node[keyword]
        if view.types is not None and view.types <= _NUMERIC | {"null"}:
            view.defaults = {k: _as_number(v) for k, v in view.defaults.items()}
            for keyword, value in list(view.keywords.items()):
                if keyword in (*LOWER_BOUNDS, *UPPER_BOUNDS, "multipleOf"):
                    view.keywords[keyword] = _as_number(value)
        for keyword in self.keywords.rules:
            if keyword in node:
                view.rules[keyword] = node[keyword]
        for keyword in self.keywords.rule_lists:
            listed = rule_list(node.get(keyword), self.keywords.annotations)
            if listed is not _MISSING:
                view.rules[keyword] = listed
        self._read_json_schema_keywords(view, node)
        for keyword in ("oneOf", "anyOf"):
            if isinstance(node.get(keyword), list):
                self._add_variants(view, node[keyword], keyword, active)
        if isinstance(node.get("allOf"), list):
            for member in node["allOf"]:
                resolved, _ = self.follow(member)
                self._merge(view, self._build(resolved, active))
        return view

    def _read_json_schema_keywords(self, view: SchemaView, node: dict[str, Any]) -> None:
        """readOnly/writeOnly, tuples, conditionals, `not`, dependencies; the rest as unjudged."""
        view.read_only = node.get("readOnly") is True
        view.write_only = node.get("writeOnly") is True
        if isinstance(node.get("prefixItems"), list):
            view.prefix_items = list(node["prefixItems"])
        if "unevaluatedProperties" in node:
            view.unevaluated = node["unevaluatedProperties"]
            if view.unevaluated == {}:
                view.unevaluated = True
        if "not" in node:
            view.negated = [node["not"]]
        if any(keyword in node for keyword in ("then", "else")):
            view.conditions = [{k: node[k] for k in ("if", "then", "else") if k in node}]
        if isinstance(node.get("dependentRequired"), dict):
            view.dependent_required = {
                str(name): frozenset(map(str, needed))
                for name, needed in node["dependentRequired"].items()
                if isinstance(needed, list)
            }
        if isinstance(node.get("dependentSchemas"), dict):
            view.dependent_schemas = dict(node["dependentSchemas"])
        for keyword in node.keys() - _MODELLED - _ANNOTATIONS:
            name = str(keyword)
            if not name.startswith("x-"):
                view.unjudged[name] = node[keyword]
            elif not self.keywords.known(name):
                view.extensions[name] = node[keyword]

    def _add_variants(
        self, view: SchemaView, members: list[Any], keyword: str, active: set[int]
    ) -> None:
        kept = []
        nullable = False
        for member in members:
            resolved, _ = self.follow(member)
            if isinstance(resolved, dict) and resolved.get("type") == "null":
                nullable = True
            else:
                kept.append(member)
        if len(kept) == 1:
            resolved, _ = self.follow(kept[0])
            self._merge(view, self._build(resolved, active))
        elif kept:
            view.variants = kept
            view.variant_keyword = keyword
        if nullable and view.types is not None:
            view.types = view.types | {"null"}

    def _merge(self, into: SchemaView, other: SchemaView) -> None:
        if other.types is not None:
            into.types = other.types if into.types is None else into.types & other.types
        if other.enum is not None:
            if into.enum is None:
                into.enum = other.enum
            else:
                keys = {json.dumps(value, sort_keys=True) for value in other.enum}
                into.enum = [v for v in into.enum if json.dumps(v, sort_keys=True) in keys]
        for name, schema in other.properties.items():
            if name in into.properties and into.properties[name] is not schema:
                into.properties[name] = self._synthetic_all_of(into.properties[name], schema)
            else:
                into.properties[name] = schema
        into.required = into.required | other.required
        if other.additional is not True and into.additional is True:
            into.additional = other.additional
        elif other.additional is False:
            into.additional = False
        if other.items is not None:
            into.items = (
                other.items
                if into.items is None
                else self._synthetic_all_of(into.items, other.items)
            )
        if other.variants is not None and into.variants is None:
            into.variants = other.variants
            into.variant_keyword = other.variant_keyword
        for keyword, value in other.keywords.items():
            current = into.keywords.get(keyword, _MISSING)
            if current is _MISSING or not isinstance(value, int | float):
                into.keywords[keyword] = value
            elif keyword in LOWER_BOUNDS:
                into.keywords[keyword] = max(current, value)
            elif keyword in UPPER_BOUNDS:
                into.keywords[keyword] = min(current, value)
        into.defaults.update(other.defaults)
        into.rules.update(other.rules)
        into.read_only = into.read_only or other.read_only
        into.write_only = into.write_only or other.write_only
        if other.prefix_items is not None and into.prefix_items is None:
            into.prefix_items = other.prefix_items
        if other.unevaluated is not True and into.unevaluated is True:
            into.unevaluated = other.unevaluated
        into.negated = into.negated + other.negated
        into.conditions = into.conditions + other.conditions
        for name, needed in other.dependent_required.items():
            into.dependent_required[name] = into.dependent_required.get(name, frozenset()) | needed
        for name, schema in other.dependent_schemas.items():
            current = into.dependent_schemas.get(name)
            into.dependent_schemas[name] = (
                schema if current is None else self._synthetic_all_of(current, schema)
            )
        into.unjudged.update(other.unjudged)
        into.extensions.update(other.extensions)

    def fingerprint(self, node: Any) -> str:
        """Equal for two schemas that accept the same values (descriptions ignored)."""
        return self._fingerprint(node, set())

    def _fingerprint(self, node: Any, active: set[int]) -> str:
        resolved, ref = self.follow(node)
        key = id(resolved)
        cached = self._fingerprints.get(key)
        if cached is not None:
            return cached
        if key in active:
            return f"cycle:{ref}"
        active = active | {key}
        view = self.view(resolved)
        parts: dict[str, Any] = {
            "types": sorted(view.types) if view.types is not None else None,
            "enum": sorted(json.dumps(value, sort_keys=True) for value in view.enum)
            if view.enum is not None
            else None,
            "required": sorted(view.required),
            "keywords": {k: str(v) for k, v in sorted(view.keywords.items())},
            "defaults": {k: repr(v) for k, v in sorted(view.defaults.items())},
            "rules": json.dumps(view.rules, sort_keys=True, default=str),
            "access": [view.read_only, view.write_only],
            "other": json.dumps(
                [
                    view.unjudged,
                    view.extensions,
                    {k: sorted(v) for k, v in view.dependent_required.items()},
                ],
                sort_keys=True,
                default=str,
            ),
            "prefix": None
            if view.prefix_items is None
            else [self._fingerprint(member, active) for member in view.prefix_items],
            "unevaluated": view.unevaluated
            if isinstance(view.unevaluated, bool)
            else self._fingerprint(view.unevaluated, active),
            "not": sorted(self._fingerprint(member, active) for member in view.negated),
            "conditions": [
                {k: self._fingerprint(v, active) for k, v in sorted(condition.items())}
                for condition in view.conditions
            ],
            "dependent": {
                k: self._fingerprint(v, active) for k, v in sorted(view.dependent_schemas.items())
            },
            "properties": {
                name: self._fingerprint(schema, active)
                for name, schema in sorted(view.properties.items())
            },
            "additional": view.additional
            if isinstance(view.additional, bool)
            else self._fingerprint(view.additional, active),
            "items": None if view.items is None else self._fingerprint(view.items, active),
            "variants": None
            if view.variants is None
            else sorted(self._fingerprint(member, active) for member in view.variants),
        }
        digest = hashlib.sha1(json.dumps(parts, sort_keys=True).encode()).hexdigest()
        self._fingerprints[key] = digest
        return digest
