"""The suite's own judgement of values against the spec, with where each broken rule comes from.

A body, a parameter or a header is validated against the spec's JSON Schema (Draft 2020-12 over
the spec's components): ``jsonschema_rs`` says quickly whether it is valid; only an invalid value
is walked with ``jsonschema``, whose errors carry the schema object holding the broken keyword.
That object's ``x-source`` (one string for every constraint keyword of the object, or a mapping
keyword -> source) says where the rule comes from. A :class:`Problem` whose rules are all
``x-source: emulator`` is this project's choice, which the live API was never asked about:
against another server its breach is a *difference*, never a failure. A rule without a source
counts as sourced (a breach stays a failure, as before sources existed).

Nothing here uses the emulator's code: the judge of a server never shares the code it judges.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
from collections.abc import Iterable
from typing import Any

import jsonschema
import jsonschema_rs
from together_rl_spec import format_path

from together_rl_contract_tests._spec import operation_in, resolve_ref, spec

__all__ = [
    "EMULATOR_SOURCE",
    "SOURCED_KEYWORDS",
    "Problem",
    "Rule",
    "SpecJudge",
    "format_path",
    "installed_judge",
    "only_emulator_choices",
    "source_of",
]

EMULATOR_SOURCE = "emulator"
_DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
#: An invalid value is walked for at most this many errors (a batch of wrong numbers has many).
MAX_ERRORS = 50
_INTEGER_TEXT = re.compile(r"-?[0-9]{1,30}")
_NUMBER_TEXT = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")


#: The keywords one ``x-source`` string applies to (with ``x-`` rule keywords): the spec's rules.
#: A structural keyword (``type``, ``$ref``, ``oneOf``) has no source: its breach is a failure.
SOURCED_KEYWORDS = frozenset({
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength",
    "pattern", "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems",
    "multipleOf", "enum", "required", "const", "additionalProperties", "default",
})  # fmt: skip


def source_of(node: dict[str, Any], keyword: str) -> str | None:
    """The ``x-source`` of ``keyword`` in the schema or parameter object ``node``, or None."""
    declared = node.get("x-source")
    if isinstance(declared, str):
        sourced = keyword in SOURCED_KEYWORDS or keyword.startswith("x-")
        return declared if sourced else None
    if isinstance(declared, dict):
        found = declared.get(keyword)
        return found if isinstance(found, str) else None
    return None


@dataclasses.dataclass(frozen=True)
class Rule:
    """One rule of the spec: a keyword, where it sits, and its ``x-source`` (None: none)."""

    keyword: str
    where: str  # a JSON pointer into the spec, e.g. #/components/schemas/Sample/properties/x
    source: str | None

    @property
    def is_emulator_choice(self) -> bool:
        return self.source is not None and self.source.strip() == EMULATOR_SOURCE

    def describe(self) -> str:
        return f"`{self.keyword}` at {self.where} (x-source: {self.source or 'none'})"


@dataclasses.dataclass(frozen=True)
class Problem:
    """One way a value departs from the spec: where, why, and the rules it breaks."""

    field: str | None
    reason: str
    rules: tuple[Rule, ...] = ()

    @property
    def emulator_choice(self) -> bool:
        """Whether every rule broken is this project's choice (``x-source: emulator``)."""
        return bool(self.rules) and all(rule.is_emulator_choice for rule in self.rules)


def only_emulator_choices(problems: Iterable[Problem]) -> bool:
    """Whether there are problems and every one breaks only ``x-source: emulator`` rules."""
    found = list(problems)
    return bool(found) and all(problem.emulator_choice for problem in found)


class SpecJudge:
    """Validation against one spec document (default: the installed spec)."""

    def __init__(self, document: dict[str, Any] | None = None) -> None:
        self.document = spec() if document is None else document
        self._fast: dict[str, jsonschema_rs.Validator] = {}
        self._pointers: dict[int, str] | None = None

    # ------------------------------------------------------------------ values
    def value_problems(self, schema: dict[str, Any], instance: object) -> list[Problem]:
        """Every problem of ``instance`` against ``schema`` (a schema object of the spec)."""
        frozen = json.dumps(schema, sort_keys=True)
        fast = self._fast.get(frozen)
        if fast is None:
            fast = self._fast[frozen] = jsonschema_rs.validator_for(self._root(schema))
        try:
            if fast.is_valid(instance):
                return self.at_least_problems(schema, instance)
        except (ValueError, TypeError, OverflowError, RecursionError):
            pass
        validator = jsonschema.Draft202012Validator(self._root(schema))
        problems: list[Problem] = []
        try:
            for error in validator.iter_errors(instance):
                problems.append(self._problem(error))
                if len(problems) >= MAX_ERRORS:
                    break
        except RecursionError:
            problems.append(Problem(None, "is nested too deeply"))
        return problems or [Problem(None, "does not match the API schema")]

    def at_least_problems(self, schema: dict[str, Any], instance: object) -> list[Problem]:
        """The breaches of the object schema's ``x-at-least`` (property -> the property it is at
        least, when both are present) by a schema-valid ``instance``."""
        node = self.resolve(schema)
        rules = node.get("x-at-least") or {}
        if not isinstance(instance, dict) or not isinstance(rules, dict):
            return []
        problems = []
        for name, other in rules.items():
            value, bound = instance.get(name), instance.get(other)
            numbers = all(isinstance(v, int | float) for v in (value, bound))
            if numbers and value < bound:  # type: ignore[operator]
                rule = Rule("x-at-least", self.pointer(node), source_of(node, "x-at-least"))
                reason = f"{value} is less than {other} ({bound})"
                problems.append(Problem(name, reason, (rule,)))
        return problems

    def _root(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "$schema": _DRAFT_2020_12,
            **schema,
            "components": self.document.get("components", {}),
        }

    def _problem(self, error: jsonschema.ValidationError) -> Problem:
        field = format_path(list(error.absolute_path))
        if error.validator in ("required", "additionalProperties"):
            named = re.search(r"'([^']+)'", error.message)
            if named:
                field = format_path([*error.absolute_path, named.group(1)])
        return Problem(field, _short(error.message), tuple(self._rules(error)))

    def _rules(self, error: jsonschema.ValidationError) -> list[Rule]:
        """The rules ``error`` breaks; through ``oneOf``/``anyOf``, those of the branch the value
        came closest to (one that is only emulator choices when there is such a branch)."""
        keyword = str(error.validator)
        if keyword in ("oneOf", "anyOf") and error.context:
            branches: dict[object, list[jsonschema.ValidationError]] = {}
            for sub in error.context:
                branches.setdefault(sub.relative_schema_path[0], []).append(sub)
            ruled = [[r for sub in subs for r in self._rules(sub)] for subs in branches.values()]
            for rules in ruled:
                if rules and all(rule.is_emulator_choice for rule in rules):
                    return rules
        node = error.schema if isinstance(error.schema, dict) else {}
        return [Rule(keyword, self.pointer(node), source_of(node, keyword))]

    def pointer(self, node: dict[str, Any]) -> str:
        """Where ``node`` sits in the spec (a JSON pointer), or ``(inline)``."""
        if self._pointers is None:
            self._pointers = dict(_walk(self.document, "#"))
        return self._pointers.get(id(node), "(inline)")

    # ------------------------------------------------------------------ operations
    def operation(self, operation_id: str) -> dict[str, Any]:
        return operation_in(self.document, operation_id)

    def resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        return resolve_ref(node, self.document)

    def parameter_problems(
        self, operation_id: str, parameter: dict[str, Any], raw: str | list[str] | None
    ) -> list[Problem]:
        """Problems of one path/query/header parameter as received (None: absent; a list: a
        repeated query parameter). Integers are decimal text; arrays are comma-separated."""
        name = parameter["name"]
        values = [raw] if isinstance(raw, str) else list(raw or [])
        if not values:
            if not parameter.get("required"):
                return []
            where = self.pointer(parameter)
            rule = Rule("required", where, source_of(parameter, "required"))
            return [Problem(name, "is required", (rule,))]
        schema = self.resolve(parameter.get("schema") or {})
        value: object
        if schema.get("type") == "array":
            items = self.resolve(schema.get("items") or {})
            parts = [part for text in values for part in text.split(",")]
            coerced = [_coerce(part, items) for part in parts]
            value = coerced
        elif len(values) > 1:
            return [Problem(name, "must be given only once")]
        else:
            value = _coerce(values[0], schema)
        if isinstance(value, _NotCoerced) or (
            isinstance(value, list) and any(isinstance(v, _NotCoerced) for v in value)
        ):
            wrong = value if isinstance(value, _NotCoerced) else _first_wrong(value)
            return [Problem(name, wrong.reason)]
        found = self.value_problems(parameter.get("schema") or {}, value)
        return [dataclasses.replace(p, field=name) for p in found]

    def status_rules(self, operation_id: str, status: int | None = None) -> list[Rule]:
        """The status rules (``x-rules`` entries with a ``status``; that one when given) of the
        operation, of its parameters and of the schemas of its 4xx answers (``ErrorData``)."""
        operation = self._raw_operation(operation_id)
        holders: list[dict[str, Any]] = [operation]
        holders += self.operation(operation_id)["parameters"]
        for code, answer in (operation.get("responses") or {}).items():
            if not str(code).startswith("4"):
                continue
            media = (self.resolve(answer).get("content") or {}).get("application/json") or {}
            if "schema" in media:
                holders.append(self.resolve(media["schema"]))
        rules: list[Rule] = []
        for holder in {id(h): h for h in holders}.values():
            for index, entry in enumerate(holder.get("x-rules") or []):
                if not isinstance(entry, dict) or "status" not in entry:
                    continue
                if status is not None and str(entry["status"]) != str(status):
                    continue
                source = entry.get("x-source")
                where = f"{self.pointer(holder)}/x-rules/{index}"
                text = f"x-rules: {entry.get('rule', '')} ({entry['status']})"
                rules.append(Rule(text, where, source if isinstance(source, str) else None))
        return rules

    def _raw_operation(self, operation_id: str) -> dict[str, Any]:
        for item in self.document["paths"].values():
            for operation in item.values():
                if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                    return operation
        raise KeyError(operation_id)


def _walk(node: object, pointer: str) -> Iterable[tuple[int, str]]:
    if isinstance(node, dict):
        yield id(node), pointer
        for key, value in node.items():
            yield from _walk(value, f"{pointer}/{str(key).replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _walk(value, f"{pointer}/{index}")


@dataclasses.dataclass(frozen=True)
class _NotCoerced:
    reason: str


def _first_wrong(values: list[object]) -> _NotCoerced:
    return next(v for v in values if isinstance(v, _NotCoerced))


def _coerce(text: str, schema: dict[str, Any]) -> object:
    kind = schema.get("type")
    if kind == "integer":
        return (
            int(text)
            if _INTEGER_TEXT.fullmatch(text)
            else _NotCoerced(f"{text!r} is not an integer")
        )
    if kind == "number":
        if _NUMBER_TEXT.fullmatch(text) and math.isfinite(float(text)):
            return float(text)
        return _NotCoerced(f"{text!r} is not a number")
    if kind == "boolean":
        return (
            text == "true"
            if text in ("true", "false")
            else _NotCoerced(f"{text!r} is not true or false")
        )
    return text


def _short(message: str) -> str:
    return message if len(message) <= 200 else message[:200] + "..."


@functools.cache
def installed_judge() -> SpecJudge:
    """The judge of the installed spec (built once)."""
    return SpecJudge()
