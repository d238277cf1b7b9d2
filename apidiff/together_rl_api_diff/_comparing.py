"""The comparison of two documents: operations by method and URL path, then everything in them.

An operation's URL path is its server URL's path joined with its path, so a document that
moves `/v1` from the server URL into its paths describes the same operations.

Parameters, bodies, responses and security per operation (`_operation_comparison.py`, over
each document's operations as `_document_operations.py` reads them); schemas by
`SchemaComparison`. A
change found from several operations (a shared schema's) is reported once, with all of them.
"""

from __future__ import annotations

from dataclasses import replace

from together_rl_spec import Document

from ._changes import Change, DiffReport, Finding, advise_semver, change_id, judged
from ._document_operations import DocumentSide
from ._generator_hazards import added_hazards, schemas_reached
from ._judging import Position
from ._keywords import PROJECT_KEYWORDS, Keywords
from ._messages import describe
from ._operation_comparison import OperationComparison, reversed_findings

__all__ = ["compare_documents"]


def compare_documents(
    old: Document,
    new: Document,
    *,
    paths: str | None = None,
    keywords: Keywords = PROJECT_KEYWORDS,
) -> DiffReport:
    """Every change from `old` to `new`, each judged for clients and servers; `keywords` says
    what the documents' `x-` keywords mean (this project's spec's by default)."""
    old_side, new_side = DocumentSide(old, keywords), DocumentSide(new, keywords)
    comparison = OperationComparison(old_side, new_side)
    old_operations, new_operations = old_side.operations(paths), new_side.operations(paths)
    merged: dict[tuple[str, str, str], tuple[Finding, set[str], set[Position]]] = {}

    def record(finding: Finding, operation: str) -> None:
        key = (finding.kind, finding.location, finding.detail)
        entry = merged.setdefault(key, (finding, set(), set()))
        entry[1].add(operation)
        entry[2].add(finding.position)

    for key, new_operation in new_operations.items():
        old_operation = old_operations.get(key)
        if old_operation is None:
            record(
                Finding(
                    "operation-added",
                    new_operation.pointer,
                    "operation",
                    None,
                    new_operation.label,
                    "operation",
                ),
                new_operation.label,
            )
            continue
        for finding in comparison.operation(old_operation, new_operation):
            record(finding, new_operation.label)
    old_webhooks, new_webhooks = old_side.webhooks(), new_side.webhooks()
    for key, webhook in new_webhooks.items():
        if key not in old_webhooks:
            record(
                Finding(
                    "webhook-added", webhook.pointer, "webhook", None, webhook.label, "operation"
                ),
                webhook.label,
            )
            continue
        for finding in reversed_findings(comparison.operation(old_webhooks[key], webhook)):
            record(finding, webhook.label)
    for key, webhook in old_webhooks.items():
        if key not in new_webhooks:
            record(
                Finding(
                    "webhook-removed", webhook.pointer, "webhook", webhook.label, None, "operation"
                ),
                webhook.label,
            )
    for key, old_operation in old_operations.items():
        if key not in new_operations:
            record(
                Finding(
                    "operation-removed",
                    old_operation.pointer,
                    "operation",
                    old_operation.label,
                    None,
                    "operation",
                ),
                old_operation.label,
            )
    for hazard in added_hazards(old.root, new.root):
        what = f"generated clients read it wrong: {hazard.what}"
        finding = Finding(
            "generator-hazard-added", hazard.pointer, hazard.kind, None, what, "request"
        )
        schema = hazard.place.split(".")[0].removesuffix("[]")
        felt = [
            o.label
            for o in new_operations.values()
            if schema in schemas_reached(new.root, o.node, o.path_item)
        ]
        for side in hazard.sides or ("request",):
            for label in felt or [""]:
                record(replace(finding, position=side), label)
    changes = []
    for (kind, location, detail), (finding, operations, positions) in merged.items():
        ordered_positions = sorted(positions)
        clients, servers = judged(kind, ordered_positions)
        changes.append(
            Change(
                id=change_id(kind, location, detail),
                kind=kind,
                location=location,
                operations=sorted(o for o in operations if o),
                old=finding.old,
                new=finding.new,
                clients=clients,
                servers=servers,
                message=describe(finding, ordered_positions),
                positions=list(ordered_positions),
                detail=detail,
            )
        )
    changes.sort(key=lambda change: (change.location, change.kind, change.id))
    semver = advise_semver(changes, old.version, new.version)
    return DiffReport(old.source, new.source, changes, semver)
