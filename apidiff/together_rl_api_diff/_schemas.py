"""One flat view of a schema: `allOf` merged, 3.0 and 3.1 spellings made one, `$ref`s followed.

`SchemaViews.view(node)` is what the comparison reads; `fingerprint(node)` says whether two
schemas accept the same values (used to match renamed properties and `oneOf` variants).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from ._refs import Resolver

__all__ = ["LOWER_BOUNDS", "RULE_KEYWORDS", "UPPER_BOUNDS", "SchemaView", "SchemaViews"]

LOWER_BOUNDS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
UPPER_BOUNDS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")
_OTHER_KEYWORDS = ("multipleOf", "uniqueItems", "pattern", "format")
#: Extension keywords that state a rule for clients or servers; every other `x-` keyword
#: (`x-source`, `x-internal`, ...) changes nothing on the wire and is never a change.
RULE_KEYWORDS = (
    "x-input-dtypes",
    "x-exclusive-inputs",
    "x-tensor-length",
    "x-required-inputs",
    "x-requires-inputs-when-positive",
    "x-at-least",
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
    default: Any = _MISSING
    server_default: Any = _MISSING
    rules: dict[str, Any] = field(default_factory=dict)  # RULE_KEYWORDS and x-rules

    @property
    def has_default(self) -> bool:
        return self.default is not _MISSING

    @property
    def has_server_default(self) -> bool:
        return self.server_default is not _MISSING


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


def _x_rules(node: dict[str, Any]) -> Any:
    rules = node.get("x-rules")
    if not isinstance(rules, list) or not rules:
        return _MISSING
    texts = []
    for rule in rules:
        if isinstance(rule, dict):
            texts.append({k: v for k, v in rule.items() if k != "x-source"})
        else:
            texts.append(rule)
    return sorted(texts, key=lambda item: json.dumps(item, sort_keys=True, default=str))


class SchemaViews:
    """Views and fingerprints of one document's schemas, cached by node."""

    def __init__(self, resolver: Resolver) -> None:
        self.resolver = resolver
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
        if "default" in node:
            view.default = node["default"]
        if "x-server-default" in node:
            view.server_default = node["x-server-default"]
        if view.types is not None and view.types <= _NUMERIC | {"null"}:
            view.default = _as_number(view.default)
            view.server_default = _as_number(view.server_default)
            for keyword, value in list(view.keywords.items()):
                if keyword in (*LOWER_BOUNDS, *UPPER_BOUNDS, "multipleOf"):
                    view.keywords[keyword] = _as_number(value)
        for keyword in RULE_KEYWORDS:
            if keyword in node:
                view.rules[keyword] = node[keyword]
        x_rules = _x_rules(node)
        if x_rules is not _MISSING:
            view.rules["x-rules"] = x_rules
        for keyword in ("oneOf", "anyOf"):
            if isinstance(node.get(keyword), list):
                self._add_variants(view, node[keyword], keyword, active)
        if isinstance(node.get("allOf"), list):
            for member in node["allOf"]:
                resolved, _ = self.follow(member)
                self._merge(view, self._build(resolved, active))
        return view

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
        if other.has_default:
            into.default = other.default
        if other.has_server_default:
            into.server_default = other.server_default
        into.rules.update(other.rules)

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
            "default": repr(view.default) if view.has_default else None,
            "server_default": repr(view.server_default) if view.has_server_default else None,
            "rules": json.dumps(view.rules, sort_keys=True, default=str),
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
