"""One sentence per change: what moved, where, and in which direction."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ._changes import Finding

__all__ = ["describe", "short_location"]


def _show(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, default=str)


def short_location(location: str) -> str:
    """`#/components/schemas/X/properties/y` -> `X.y`; operation pointers stay readable."""
    text = location.removeprefix("#/")
    if text.startswith("paths/"):
        tokens = text.split("/")
        path = tokens[1].replace("~1", "/").replace("~0", "~")
        method = tokens[2].upper() if len(tokens) > 2 else ""
        rest = "/".join(tokens[3:]).replace("~1", "/").replace("~0", "~")
        return f"{method} {path}" + (f" {rest}" if rest else "")
    text = text.replace("~1", "/").replace("~0", "~")
    for prefix in ("components/schemas/", "components/parameters/", "components/responses/"):
        if text.startswith(prefix):
            text = text.removeprefix(prefix)
            break
    return text.replace("/properties/", ".")


_TEMPLATES = {
    "operation-added": "operation {new} added",
    "operation-removed": "operation {old} removed",
    "parameter-added-required": "required parameter {new} added",
    "parameter-added-optional": "optional parameter {new} added",
    "parameter-removed": "parameter {old} removed",
    "parameter-became-required": "parameter became required",
    "parameter-became-optional": "parameter became optional",
    "parameter-style-changed": "parameter serialisation changed from {old} to {new}",
    "request-body-added-required": "required request body added",
    "request-body-added-optional": "optional request body added",
    "request-body-removed": "request body removed",
    "request-body-became-required": "request body became required",
    "request-body-became-optional": "request body became optional",
    "media-type-added": "media type {new} added",
    "media-type-removed": "media type {old} removed",
    "response-status-added": "response status {new} added",
    "response-error-status-added": "error response status {new} added",
    "response-status-removed": "response status {old} removed",
    "security-alternative-added": "security requirement {new} added as an alternative",
    "security-alternative-removed": "security requirement {old} removed",
    "security-scheme-changed": "security scheme's {detail} changed from {old} to {new}",
    "type-narrowed": "type narrowed from {old} to {new}",
    "type-widened": "type widened from {old} to {new}",
    "type-changed": "type changed from {old} to {new}",
    "enum-value-added": "enum value {new} added",
    "enum-value-removed": "enum value {old} removed",
    "enum-added": "enum {new} added (the values were free)",
    "enum-removed": "enum {old} removed (any value is valid)",
    "property-added-required": "required property {new} added",
    "property-added-optional": "optional property {new} added",
    "property-removed": "property {old} removed",
    "property-renamed": "property {old} renamed to {new}",
    "property-became-required": "property became required",
    "property-became-optional": "property became optional",
    "additional-properties-narrowed": "additionalProperties narrowed from {old} to {new}",
    "additional-properties-widened": "additionalProperties widened from {old} to {new}",
    "bound-tightened": "{detail} tightened from {old} to {new}",
    "bound-relaxed": "{detail} relaxed from {old} to {new}",
    "bound-changed": "{detail} changed from {old} to {new}",
    "pattern-added": "pattern {new} added",
    "pattern-removed": "pattern {old} removed",
    "pattern-changed": "pattern changed from {old} to {new}",
    "format-added": "format {new} added",
    "format-removed": "format {old} removed",
    "format-changed": "format changed from {old} to {new}",
    "items-added": "array items constrained",
    "items-removed": "array items no longer constrained",
    "variant-added": "oneOf/anyOf variant {new} added",
    "variant-removed": "oneOf/anyOf variant {old} removed",
    "default-added": "{detail} {new} added",
    "default-removed": "{detail} {old} removed",
    "default-changed": "{detail} changed from {old} to {new}",
    "rule-added": "rule {detail} added: {new}",
    "rule-removed": "rule {detail} removed",
    "rule-changed": "rule {detail} changed",
}


def describe(finding: Finding, positions: Sequence[str]) -> str:
    """`X.y: enum value 'Z' added (in a response)`."""
    text = _TEMPLATES[finding.kind].format(
        old=_show(finding.old), new=_show(finding.new), detail=finding.detail
    )
    where = [p for p in positions if p != "operation"]
    suffix = f" (in a {' and a '.join(where)})" if where else ""
    return f"{short_location(finding.location)}: {text}{suffix}"
