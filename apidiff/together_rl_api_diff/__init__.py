"""together_rl_api_diff: what an edit of an OpenAPI document breaks, for clients and servers.

    from together_rl_api_diff import load_document, compare_documents
    report = compare_documents(load_document("HEAD"), load_document("spec/openapi.yaml"))
    for change in report.changes: print(change.clients, change.servers, change.message)

`together-rl-api-diff OLD NEW` and `together-rl-sdk-drift UPSTREAM` are its commands;
`source_kind` reads the spec's `x-source` strings (the provenance table and the drift report);
`generator_hazards` finds the forms generated clients read wrong (the spec's lint).
"""

from together_rl_spec import Document, DocumentError, load_document, parse_text

from ._changes import Change, DiffReport, Semver, advise_semver
from ._comparing import compare_documents
from ._generator_hazards import HAZARDS, Hazard, generator_hazards
from ._judging import judge
from ._rules import RULES, Rule
from ._sources import SOURCE_KINDS, SOURCE_LABELS, SOURCE_PATTERNS, source_kind

__all__ = [
    "HAZARDS",
    "RULES",
    "SOURCE_KINDS",
    "SOURCE_LABELS",
    "SOURCE_PATTERNS",
    "Change",
    "DiffReport",
    "Document",
    "DocumentError",
    "Hazard",
    "Rule",
    "Semver",
    "advise_semver",
    "compare_documents",
    "generator_hazards",
    "judge",
    "load_document",
    "parse_text",
    "source_kind",
]
