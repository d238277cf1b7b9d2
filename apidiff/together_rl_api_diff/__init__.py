"""together_rl_api_diff: what an edit of an OpenAPI document breaks, for clients and servers.

    from together_rl_api_diff import load_document, compare_documents
    report = compare_documents(load_document("HEAD"), load_document("spec/openapi.yaml"))
    for change in report.changes: print(change.clients, change.servers, change.message)

`together-rl-api-diff OLD NEW` and `together-rl-sdk-drift UPSTREAM` are its commands;
`source_kind` reads the spec's `x-source` strings (the provenance table and the drift report).
"""

from together_rl_spec import Document, DocumentError, load_document, parse_text

from ._changes import Change, DiffReport, Semver, advise_semver
from ._comparing import compare_documents
from ._judging import KIND_EFFECTS, judge
from ._rules import RULES, Rule
from ._sources import SOURCE_KINDS, SOURCE_LABELS, SOURCE_PATTERNS, source_kind

__all__ = [
    "KIND_EFFECTS",
    "RULES",
    "SOURCE_KINDS",
    "SOURCE_LABELS",
    "SOURCE_PATTERNS",
    "Change",
    "DiffReport",
    "Document",
    "DocumentError",
    "Rule",
    "Semver",
    "advise_semver",
    "compare_documents",
    "judge",
    "load_document",
    "parse_text",
    "source_kind",
]
