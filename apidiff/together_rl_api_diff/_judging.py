"""What counts as breaking: every kind of change, judged in its direction, for each party.

A request is written by clients and read by servers; a response the other way round. A change
that *narrows* what is valid breaks the writer of the old values (a client for a request, a
server for a response); one that *widens* it breaks the reader (a server for a request, a
client for a response). Each kind's effects are its entry in `_rules.RULES`;
`docs/api-changes.md` prints the table (`rules_table`).
"""

from __future__ import annotations

from typing import Literal

from ._rules import RULES, Effect

__all__ = [
    "Effect",
    "Position",
    "Verdict",
    "judge",
    "rules_table",
]

Position = Literal["request", "response", "operation"]
#: undecided: the tool cannot tell whether the change breaks that party; a person must look
Verdict = Literal["breaking", "compatible", "undecided"]


def judge(kind: str, position: Position) -> tuple[Verdict, Verdict]:
    """(clients, servers) verdicts of one kind of change at one position."""
    rule = RULES[kind]
    effect = rule.response if position == "response" else rule.request
    if effect == "undecided":
        return "undecided", "undecided"
    if effect == "narrows":
        effect = "servers" if position == "response" else "clients"
    elif effect == "widens":
        effect = "clients" if position == "response" else "servers"
    clients: Verdict = "breaking" if effect in ("clients", "both") else "compatible"
    servers: Verdict = "breaking" if effect in ("servers", "both") else "compatible"
    return clients, servers


def rules_table() -> str:
    """The markdown table of the registry with both verdicts (docs/api-changes.md holds it)."""
    lines = [
        "| kind of change | in a request: clients / servers | in a response: clients / servers "
        "| where common practice differs, why |",
        "|---|---|---|---|",
    ]
    for kind, rule in RULES.items():
        request = " / ".join(judge(kind, "request"))
        response = " / ".join(judge(kind, "response"))
        if rule.scope == "operation":
            request, response = f"{request} (the whole operation)", "-"
        elif rule.scope == "request":
            response = "-"
        elif rule.scope == "response":
            request = "-"
        lines.append(f"| `{kind}` | {request} | {response} | {rule.why or '-'} |")
    return "\n".join(lines) + "\n"
