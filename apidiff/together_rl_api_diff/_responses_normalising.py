"""An upstream's `default` response read as each error status of ours that it covers.

OpenAPI's `default` response describes every status an operation does not list. Where the
upstream lists `default` and we list the error statuses one by one (400, 404, 429, ...), the two
say the same of those statuses; the upstream copy gets each of our error statuses it lacks as a
copy of its `default`, so the comparison compares the error bodies instead of reporting every
status of ours as one the upstream lacks.
"""

from __future__ import annotations

import copy

from together_rl_spec import Document

from ._schema_pairing import operation_index

__all__ = ["expand_default_responses"]


def _is_error(code: str) -> bool:
    return code[:1] in ("4", "5")


def expand_default_responses(ours: Document, theirs: Document) -> tuple[Document, int]:
    """`theirs` with its `default` responses spelled out as our error statuses, and the number
    of operations where that was done."""
    root = copy.deepcopy(theirs.root)
    copied = Document(theirs.source, root)
    our_operations = operation_index(ours)
    expanded = 0
    for key, (_, operation) in operation_index(copied).items():
        responses = operation.get("responses")
        if key not in our_operations or not isinstance(responses, dict):
            continue
        default = responses.get("default")
        our_codes = [str(code).upper() for code in our_operations[key][1].get("responses") or {}]
        if default is None or "DEFAULT" in our_codes or not any(map(_is_error, our_codes)):
            continue
        listed = {str(code).upper() for code in responses}
        for code in our_codes:
            if _is_error(code) and code not in listed:
                responses[code] = copy.deepcopy(default)
        del responses["default"]
        expanded += 1
    return copied, expanded
