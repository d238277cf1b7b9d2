"""What counts as breaking: every kind of change, judged in its direction, for each party.

A request is written by clients and read by servers; a response the other way round. A change
that *narrows* what is valid breaks the writer of the old values (a client for a request, a
server for a response); one that *widens* it breaks the reader (a server for a request, a
client for a response). The table `KIND_EFFECTS` is the whole rule; `docs/api-changes.md`
prints it.
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "EFFECT_MEANINGS",
    "KIND_EFFECTS",
    "Effect",
    "Position",
    "Verdict",
    "judge",
    "rules_table",
]

Position = Literal["request", "response", "operation"]
Verdict = Literal["breaking", "compatible"]
Effect = Literal["narrows", "widens", "both", "clients", "servers", "none"]

#: kind -> (effect in a request, effect in a response). "operation" kinds use the first.
KIND_EFFECTS: dict[str, tuple[Effect, Effect]] = {
    "operation-added": ("servers", "servers"),
    "operation-removed": ("clients", "clients"),
    "parameter-added-required": ("narrows", "narrows"),
    "parameter-added-optional": ("widens", "widens"),
    "parameter-removed": ("clients", "clients"),
    "parameter-became-required": ("narrows", "narrows"),
    "parameter-became-optional": ("widens", "widens"),
    "parameter-style-changed": ("both", "both"),
    "request-body-added-required": ("narrows", "narrows"),
    "request-body-added-optional": ("widens", "widens"),
    "request-body-removed": ("clients", "clients"),
    "request-body-became-required": ("narrows", "narrows"),
    "request-body-became-optional": ("widens", "widens"),
    "media-type-added": ("widens", "widens"),
    "media-type-removed": ("narrows", "narrows"),
    "response-status-added": ("widens", "widens"),
    "response-error-status-added": ("none", "none"),
    "response-status-removed": ("narrows", "narrows"),
    "security-alternative-added": ("widens", "widens"),
    "security-alternative-removed": ("narrows", "narrows"),
    "security-scheme-changed": ("both", "both"),
    "type-narrowed": ("narrows", "narrows"),
    "type-widened": ("widens", "widens"),
    "type-changed": ("both", "both"),
    "enum-value-added": ("widens", "widens"),
    "enum-value-removed": ("narrows", "narrows"),
    "enum-added": ("narrows", "narrows"),
    "enum-removed": ("widens", "widens"),
    "property-added-required": ("narrows", "narrows"),
    "property-added-optional": ("widens", "none"),
    "property-removed": ("clients", "clients"),
    "property-renamed": ("both", "both"),
    "property-became-required": ("narrows", "narrows"),
    "property-became-optional": ("widens", "widens"),
    "additional-properties-narrowed": ("narrows", "narrows"),
    "additional-properties-widened": ("widens", "widens"),
    "bound-tightened": ("narrows", "narrows"),
    "bound-relaxed": ("widens", "widens"),
    "bound-changed": ("both", "both"),
    "pattern-added": ("narrows", "narrows"),
    "pattern-removed": ("widens", "widens"),
    "pattern-changed": ("both", "both"),
    "format-added": ("narrows", "narrows"),
    "format-removed": ("widens", "widens"),
    "format-changed": ("both", "both"),
    "items-added": ("narrows", "narrows"),
    "items-removed": ("widens", "widens"),
    "variant-added": ("widens", "widens"),
    "variant-removed": ("narrows", "narrows"),
    "default-added": ("servers", "none"),
    "default-removed": ("clients", "none"),
    "default-changed": ("both", "none"),
    "rule-added": ("narrows", "narrows"),
    "rule-removed": ("widens", "widens"),
    "rule-changed": ("both", "both"),
}

EFFECT_MEANINGS: dict[Effect, str] = {
    "narrows": "fewer values are valid: breaks whoever writes them "
    "(clients in a request, servers in a response)",
    "widens": "more values are valid: breaks whoever reads them "
    "(servers in a request, clients in a response)",
    "both": "breaks clients and servers",
    "clients": "breaks clients only",
    "servers": "breaks servers only",
    "none": "breaks neither",
}


def judge(kind: str, position: Position) -> tuple[Verdict, Verdict]:
    """(clients, servers) verdicts of one kind of change at one position."""
    in_request, in_response = KIND_EFFECTS[kind]
    effect = in_response if position == "response" else in_request
    if effect == "narrows":
        effect = "servers" if position == "response" else "clients"
    elif effect == "widens":
        effect = "clients" if position == "response" else "servers"
    clients: Verdict = "breaking" if effect in ("clients", "both") else "compatible"
    servers: Verdict = "breaking" if effect in ("servers", "both") else "compatible"
    return clients, servers


def rules_table() -> str:
    """The markdown table of `KIND_EFFECTS` with both verdicts (docs/api-changes.md holds it)."""
    lines = [
        "| kind of change | in a request: clients / servers | in a response: clients / servers |",
        "|---|---|---|",
    ]
    for kind in KIND_EFFECTS:
        request = " / ".join(judge(kind, "request"))
        response = " / ".join(judge(kind, "response"))
        if kind.startswith("operation-"):
            request, response = f"{request} (the whole operation)", "-"
        elif kind.startswith(("parameter-", "request-body-", "security-")):
            response = "-"
        elif kind.startswith("response-"):
            request = "-"
        lines.append(f"| `{kind}` | {request} | {response} |")
    return "\n".join(lines) + "\n"
