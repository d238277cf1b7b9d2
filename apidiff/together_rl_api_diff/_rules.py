"""Every kind of change, one entry each: its id, its effect in a request and in a response, the
sentence that reports it, the row of the project's impact table it belongs to, and, where our
verdict departs from what the common diff tools say, why.

The comparers name a kind by its id (a literal string, so `grep` of an id finds where it is
emitted); `_judging` turns the effects into verdicts, `_messages` words a change from its
template, `_impact` picks the table row from `impact`. `tests/api_diff/test_rules_registry.py`
checks that every kind the comparers emit is here and that every entry is complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["RULES", "Effect", "ImpactGroup", "Rule", "Scope"]

#: narrows: fewer values valid (breaks their writer); widens: more values valid (breaks their
#: reader); undecided: the tool cannot tell, a person must look.
Effect = Literal["narrows", "widens", "both", "clients", "servers", "none", "undecided"]
#: where the kind can occur: one whole operation, only a request, only a response, or a schema
#: (in either)
Scope = Literal["operation", "request", "response", "schema"]
ImpactGroup = Literal[
    "operation-added", "enum-value-added", "default", "rule", "bound", "optional-property", "other"
]


@dataclass(frozen=True)
class Rule:
    id: str
    scope: Scope
    request: Effect
    response: Effect
    message: str  # format fields: {old}, {new}, {detail}
    impact: ImpactGroup = "other"
    why: str = ""  # where the verdict departs from oasdiff / openapi-diff / Redocly, the reason


_CLIENTS_ONLY = (
    "oasdiff ({}) does not fail on it; a client that sends or reads the field relies on it, "
    "and with `additionalProperties: false` the old request is now rejected"
)

_NUMERIC_FORMAT = (
    "oasdiff judges a format change by the values it admits; a number's or integer's format "
    "picks the type a generator emits (Go float32 without one, float64 for `double`, int32 or "
    "int64), so code written against the old bindings stops compiling or loses precision"
)

_ALL: tuple[Rule, ...] = (
    Rule("operation-added", "operation", "servers", "servers", "operation {new} added",
         "operation-added"),
    Rule("operation-removed", "operation", "clients", "clients", "operation {old} removed"),
    Rule("webhook-added", "operation", "servers", "servers", "{new} added"),
    Rule("webhook-removed", "operation", "clients", "clients", "{old} removed"),
    Rule("callback-added", "operation", "servers", "servers", "{new} added"),
    Rule("callback-removed", "operation", "clients", "clients", "{old} removed"),
    Rule("operation-rules-changed", "operation", "both", "both",
         "the operation's {detail} changed: entries {old} replaced by {new}", "rule",
         why="no other tool reads an operation's prose rules; a rule stated by an operation "
         "(the upload threshold, what it creates) binds both sides, so any change does"),
    Rule("parameter-added-required", "request", "narrows", "narrows",
         "required parameter {new} added"),
    Rule("parameter-added-optional", "request", "widens", "widens",
         "optional parameter {new} added"),
    Rule("parameter-removed", "request", "clients", "clients", "parameter {old} removed"),
    Rule("parameter-became-required", "request", "narrows", "narrows",
         "parameter became required"),
    Rule("parameter-became-optional", "request", "widens", "widens", "parameter became optional"),
    Rule("parameter-style-changed", "request", "both", "both",
         "parameter serialisation changed from {old} to {new}"),
    Rule("request-body-added-required", "request", "narrows", "narrows",
         "required request body added"),
    Rule("request-body-added-optional", "request", "widens", "widens",
         "optional request body added"),
    Rule("request-body-removed", "request", "clients", "clients", "request body removed"),
    Rule("request-body-became-required", "request", "narrows", "narrows",
         "request body became required"),
    Rule("request-body-became-optional", "request", "widens", "widens",
         "request body became optional"),
    Rule("media-type-added", "schema", "servers", "servers", "media type {new} added",
         why="a server must now accept (request) or produce (response) it; a client chooses "
         "its media types (`Content-Type`, `Accept`), so one more breaks none (oasdiff: "
         "`request-body-media-type-added`, `response-media-type-added` INFO)"),
    Rule("media-type-removed", "schema", "clients", "clients", "media type {old} removed",
         why="a client that sent it is refused, one that asked for it gets it no more "
         "(oasdiff: `request-body-media-type-removed`, `response-media-type-removed` ERR); a "
         "server has one less to serve"),
    Rule("response-status-added", "response", "widens", "widens", "response status {new} added",
         why="oasdiff's `response-success-status-added` is INFO; a client generated from the "
         "spec has no parser for a success status it was not told of"),
    Rule("response-error-status-added", "response", "none", "none",
         "error response status {new} added"),
    Rule("response-status-removed", "response", "narrows", "narrows",
         "response status {old} removed"),
    Rule("response-header-added-required", "response", "narrows", "narrows",
         "required response header {new} added"),
    Rule("response-header-added-optional", "response", "none", "none",
         "optional response header {new} added"),
    Rule("response-header-removed", "response", "clients", "clients",
         "response header {old} removed",
         why="oasdiff (since v1.30) does not fail on an optional response header removed; a "
         "client that reads it gets none"),
    Rule("response-header-became-required", "response", "narrows", "narrows",
         "response header became required"),
    Rule("response-header-became-optional", "response", "widens", "widens",
         "response header became optional"),
    Rule("response-header-style-changed", "response", "both", "both",
         "response header serialisation changed from {old} to {new}"),
    Rule("security-alternative-added", "request", "widens", "widens",
         "security requirement {new} added as an alternative"),
    Rule("security-alternative-added-covered", "request", "none", "none",
         "security requirement {new} added as an alternative (it accepts no new caller)"),
    Rule("security-alternative-removed", "request", "narrows", "narrows",
         "security requirement {old} removed"),
    Rule("security-alternative-removed-covered", "request", "none", "none",
         "security requirement {old} removed (its callers are still accepted)",
         why="oasdiff's `api-security-removed` is ERR whatever remains; here a removed "
         "alternative whose callers another alternative still accepts (`{}` added) breaks no one"),
    Rule("security-scheme-changed", "request", "both", "both",
         "security scheme's {detail} changed from {old} to {new}"),
    Rule("security-flow-added", "request", "widens", "widens", "OAuth flow {new} added"),
    Rule("security-flow-removed", "request", "narrows", "narrows", "OAuth flow {old} removed"),
    Rule("type-narrowed", "schema", "narrows", "narrows", "type narrowed from {old} to {new}"),
    Rule("type-widened", "schema", "widens", "widens", "type widened from {old} to {new}"),
    Rule("type-changed", "schema", "both", "both", "type changed from {old} to {new}"),
    Rule("enum-value-added", "schema", "widens", "widens", "enum value {new} added",
         "enum-value-added"),
    Rule("enum-value-removed", "schema", "narrows", "narrows", "enum value {old} removed"),
    Rule("enum-added", "schema", "narrows", "narrows", "enum {new} added (the values were free)"),
    Rule("enum-removed", "schema", "widens", "widens", "enum {old} removed (any value is valid)"),
    Rule("property-added-required", "schema", "narrows", "narrows",
         "required property {new} added",
         why="openapi-diff calls a required `writeOnly` response property made readable "
         "incompatible (`RESPONSE_WRITEONLY_REQUIRED_DECREASED`, with a TODO asking why); here "
         "it is a required property added to a response: servers must send it, clients read "
         "one field more"),
    Rule("property-added-optional", "schema", "widens", "none", "optional property {new} added",
         "optional-property"),
    Rule("property-removed", "schema", "clients", "clients", "property {old} removed",
         why=_CLIENTS_ONLY.format("`request-property-removed` is WARN; since v1.30 an optional "
                                  "response property removed is not an error")),
    Rule("property-became-read-only", "request", "clients", "clients",
         "property {old} became readOnly (no longer sent in requests)"),
    Rule("property-became-write-only", "response", "clients", "clients",
         "property {old} became writeOnly (no longer in responses)"),
    Rule("property-renamed", "schema", "both", "both", "property {old} renamed to {new}"),
    Rule("property-became-required", "schema", "narrows", "narrows", "property became required"),
    Rule("property-became-optional", "schema", "widens", "widens", "property became optional"),
    Rule("additional-properties-narrowed", "schema", "narrows", "narrows",
         "additionalProperties narrowed from {old} to {new}"),
    Rule("additional-properties-widened", "schema", "widens", "widens",
         "additionalProperties widened from {old} to {new}"),
    Rule("unevaluated-properties-narrowed", "schema", "narrows", "narrows",
         "unevaluatedProperties narrowed from {old} to {new}"),
    Rule("unevaluated-properties-widened", "schema", "widens", "widens",
         "unevaluatedProperties widened from {old} to {new}"),
    Rule("bound-tightened", "schema", "narrows", "narrows",
         "{detail} tightened from {old} to {new}", "bound",
         why="openapi-diff calls OpenAPI 3.0's `exclusiveMinimum: true` set on a schema without "
         "`minimum` incompatible; without its number the flag bounds nothing, so here it is no "
         "change (`minimum` and `exclusiveMinimum` are one lower bound, however spelled)"),
    Rule("bound-relaxed", "schema", "widens", "widens", "{detail} relaxed from {old} to {new}",
         "bound"),
    Rule("bound-changed", "schema", "both", "both", "{detail} changed from {old} to {new}",
         "bound"),
    Rule("pattern-added", "schema", "narrows", "narrows", "pattern {new} added"),
    Rule("pattern-removed", "schema", "widens", "widens", "pattern {old} removed"),
    Rule("pattern-narrowed", "schema", "narrows", "narrows",
         "pattern narrowed from {old} to {new}"),
    Rule("pattern-widened", "schema", "widens", "widens", "pattern widened from {old} to {new}"),
    Rule("pattern-changed", "schema", "undecided", "undecided",
         "pattern changed from {old} to {new} (neither accepts all the other does)"),
    Rule("format-added", "schema", "narrows", "narrows", "format {new} added"),
    Rule("format-removed", "schema", "widens", "widens", "format {old} removed"),
    Rule("format-changed", "schema", "both", "both", "format changed from {old} to {new}"),
    Rule("generator-hazard-added", "schema", "clients", "clients", "{new}",
         why="no other diff tool knows generators; a place that existed now takes a form "
         "generated clients read wrong (`_generator_hazards`: openapi-typescript makes a "
         "defaulted optional field required, Go reads a number without format as float32, a "
         "closed enum refuses a status clients must poll through, ...)"),
    Rule("numeric-format-added", "schema", "clients", "clients", "format {new} added",
         why=_NUMERIC_FORMAT),
    Rule("numeric-format-removed", "schema", "clients", "clients", "format {old} removed",
         why=_NUMERIC_FORMAT),
    Rule("numeric-format-changed", "schema", "clients", "clients",
         "format changed from {old} to {new}", why=_NUMERIC_FORMAT),
    Rule("content-keyword-added", "schema", "narrows", "narrows", "{detail} {new} added"),
    Rule("content-keyword-removed", "schema", "widens", "widens", "{detail} {old} removed"),
    Rule("content-keyword-changed", "schema", "both", "both",
         "{detail} changed from {old} to {new}"),
    Rule("items-added", "schema", "narrows", "narrows", "array items constrained"),
    Rule("items-removed", "schema", "widens", "widens", "array items no longer constrained"),
    Rule("prefix-items-added", "schema", "narrows", "narrows",
         "prefixItems entry {detail} constrained",
         why="oasdiff's `request-body-prefix-items-added` is INFO and `...-removed` ERR (the "
         "mirror in responses); where `items` constrained every element, a new entry replaces "
         "it at its index (2020-12), so the two are compared there (`string` -> `integer` is a "
         "`type-changed`, breaking both sides); only where nothing constrained it does it narrow"),
    Rule("prefix-items-removed", "schema", "widens", "widens",
         "prefixItems entry {detail} no longer constrained"),
    Rule("all-of-member-added", "schema", "none", "none", "allOf member {new} added",
         why="oasdiff's `request-body-all-of-added` is ERR for any new member; what a member "
         "constrains is compared through the merged schema (a required property, a type, a "
         "bound: each its own change), so a member that adds no constraint changes no valid "
         "value and breaks no one"),
    Rule("all-of-member-removed", "schema", "none", "none", "allOf member {old} removed",
         why="as for a member added: the constraints it took away are each their own change"),
    Rule("variant-added", "schema", "widens", "widens", "oneOf/anyOf variant {new} added"),
    Rule("variant-removed", "schema", "narrows", "narrows", "oneOf/anyOf variant {old} removed"),
    Rule("condition-added", "schema", "narrows", "narrows", "conditional {detail} added"),
    Rule("condition-removed", "schema", "widens", "widens", "conditional {detail} removed"),
    Rule("condition-changed", "schema", "undecided", "undecided",
         "condition `if` changed from {old} to {new}"),
    Rule("dependent-required-added", "schema", "narrows", "narrows",
         "dependentRequired: {detail} now required",
         why="oasdiff's `response-body-dependent-required-changed` is ERR for any change of a "
         "list; here each name is judged: one added to a response's list only narrows what "
         "servers send, so clients are safe"),
    Rule("dependent-required-removed", "schema", "widens", "widens",
         "dependentRequired: {detail} no longer required"),
    Rule("dependent-schema-added", "schema", "narrows", "narrows",
         "dependentSchemas entry {detail} added"),
    Rule("dependent-schema-removed", "schema", "widens", "widens",
         "dependentSchemas entry {detail} removed"),
    Rule("not-added", "schema", "narrows", "narrows", "`not` {new} added"),
    Rule("not-removed", "schema", "widens", "widens", "`not` {old} removed"),
    Rule("not-changed", "schema", "undecided", "undecided", "`not` changed from {old} to {new}",
         why="oasdiff judges a change inside `not` as if it were outside (a property removed "
         "under `not` is `request-property-removed`); a schema under `not` accepts what the "
         "whole refuses, so the direction is reversed and mostly undecidable: not judged"),
    Rule("keyword-changed", "schema", "undecided", "undecided",
         "{detail} changed from {old} to {new} (a keyword this tool does not judge)"),
    Rule("extension-changed", "schema", "undecided", "undecided",
         "{detail} changed from {old} to {new} (an extension keyword this tool does not know; "
         "name it in a keywords file)"),
    Rule("default-moved", "schema", "none", "none", "default moved from {old} to {new}, same value",
         "default",
         why="no other tool knows server-side default keywords: the value a server applies when "
         "the field is absent is the same; only who states it moved (`default`: generated "
         "clients send it, openapi-typescript requires the field; `x-server-default`: the "
         "server applies it)"),
    Rule("default-added", "schema", "servers", "none", "{detail} {new} added", "default"),
    Rule("default-removed", "schema", "clients", "none", "{detail} {old} removed", "default"),
    Rule("default-changed", "schema", "both", "none", "{detail} changed from {old} to {new}",
         "default",
         why="oasdiff (since v1.30) does not fail on a request default changed; a client that "
         "omits the field gets another behaviour, and a server must apply the new value"),
    Rule("rule-added", "schema", "narrows", "narrows", "rule {detail} added: {new}", "rule"),
    Rule("rule-removed", "schema", "widens", "widens", "rule {detail} removed", "rule"),
    Rule("rule-changed", "schema", "both", "both", "rule {detail} changed", "rule"),
)  # fmt: skip

#: id -> entry, in the order of the rules table
RULES: dict[str, Rule] = {rule.id: rule for rule in _ALL}
