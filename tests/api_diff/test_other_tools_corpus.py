"""A breaking-change corpus nobody here wrote: file pairs of oasdiff's and openapi-diff's own
test suites (tests/api_diff/corpus/, origin and licence in each README), each compared with
the verdict the other tool's test asserts for clients.

oasdiff judges for clients only, direction by direction: ERR (breaking) or INFO (safe).
openapi-diff says per pair: incompatible or compatible. Our verdict for clients is the worst of
the changes seen (in that direction). Every disagreement is listed with the kind whose
rules-table entry gives our reason; docs/api-changes.md reports the counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from together_rl_api_diff import RULES, compare_documents, judge, load_document

CORPUS = Path(__file__).parent / "corpus" / "oasdiff"
OPENAPI_DIFF_CORPUS = Path(__file__).parent / "corpus" / "openapi_diff"

#: (base, revision) -> direction -> oasdiff's level, from the test that uses the pair
#: (checker/*_test.go) and the check's level in checker/rules.go
OASDIFF: dict[tuple[str, str], dict[str, str]] = {
    # TestBackwardCompatibility_TraversesNotSubSchema: request-property-removed,
    # new-required-request-property, request-property-max-length-decreased
    ("not_base", "not_revision"): {"request": "ERR"},
    # TestRequestPropertyIfAdded / TestResponsePropertyIfAdded (request-property-if-added ERR,
    # response-property-if-added INFO), ...Removed
    ("if_added_prop_base", "if_added_prop_revision"): {"request": "ERR", "response": "INFO"},
    ("if_added_prop_revision", "if_added_prop_base"): {"request": "INFO", "response": "ERR"},
    # TestRequestBodyDependentRequiredAdded / TestResponseBodyDependentRequiredAdded
    ("dependent_required_base", "dependent_required_revision"): {
        "request": "ERR",
        "response": "INFO",
    },
    # ...Removed
    ("dependent_required_revision", "dependent_required_base"): {
        "request": "INFO",
        "response": "ERR",
    },
    # ...Changed: request-body- and response-body-dependent-required-changed
    ("dependent_required_revision", "dependent_required_changed_revision"): {
        "request": "ERR",
        "response": "ERR",
    },
    # TestRequestBodyDependentSchemaAdded / TestResponseBodyDependentSchemaAdded, ...Removed
    ("dependent_schemas_base", "dependent_schemas_revision"): {
        "request": "ERR",
        "response": "INFO",
    },
    ("dependent_schemas_revision", "dependent_schemas_base"): {
        "request": "INFO",
        "response": "ERR",
    },
    # TestRequestBodyPrefixItemsAdded / TestResponseBodyPrefixItemsAdded, ...Removed
    ("prefix_items_added_base", "prefix_items_added_revision"): {
        "request": "INFO",
        "response": "ERR",
    },
    ("prefix_items_added_revision", "prefix_items_added_base"): {
        "request": "ERR",
        "response": "INFO",
    },
    # TestItemsBecameFalse / TestItemsBecameNotFalse
    ("items_became_false_base", "items_became_false_revision"): {
        "request": "ERR",
        "response": "INFO",
    },
    ("items_became_false_revision", "items_became_false_base"): {
        "request": "INFO",
        "response": "ERR",
    },
    # TestRequestMinItemsSet, TestRequestParameterMinItemsSet, TestResponseMinItemsUnset
    ("min_items_set_base", "min_items_set_revision"): {"request": "ERR", "response": "ERR"},
    # TestRequestPropertyAllOfAdded (request-body-all-of-added, request-property-all-of-added
    # ERR)
    ("request_property_all_of_added_base", "request_property_all_of_added_revision"): {
        "request": "ERR"
    },
    # TestResponseMediaTypeAdded (response-media-type-added INFO), TestResponseMediaTypeRemoved
    # (response-media-type-removed ERR)
    ("add_new_media_type_base", "add_new_media_type_revision"): {"response": "INFO"},
    ("add_new_media_type_revision", "add_new_media_type_base"): {"response": "ERR"},
}

#: (base, revision, direction) -> (our clients verdict, the kind whose rules-table row says why)
DISAGREEMENTS: dict[tuple[str, str, str], tuple[str, str]] = {
    ("not_base", "not_revision", "request"): ("undecided", "not-changed"),
    ("dependent_required_revision", "dependent_required_changed_revision", "response"): (
        "compatible",
        "dependent-required-added",
    ),
    ("prefix_items_added_base", "prefix_items_added_revision", "request"): (
        "breaking",
        "prefix-items-added",
    ),
    ("prefix_items_added_revision", "prefix_items_added_base", "response"): (
        "breaking",
        "prefix-items-added",
    ),
    (
        "request_property_all_of_added_base",
        "request_property_all_of_added_revision",
        "request",
    ): ("compatible", "all-of-member-added"),
}

_AGREES = {"ERR": "breaking", "INFO": "compatible"}
_ORDER = ("compatible", "undecided", "breaking")


def ours(base: str, revision: str, corpus: Path = CORPUS) -> dict[str, str]:
    """direction -> our worst verdict for clients there."""
    report = compare_documents(
        load_document(str(corpus / f"{base}.yaml")),
        load_document(str(corpus / f"{revision}.yaml")),
    )
    worst: dict[str, str] = {}
    for change in report.changes:
        for position in change.positions:
            clients, _ = judge(change.kind, position)  # type: ignore[arg-type]
            current = worst.get(position, "compatible")
            worst[position] = max(current, clients, key=_ORDER.index)
    return worst


@pytest.mark.parametrize(("base", "revision"), sorted(OASDIFF))
def test_corpus_pair(base: str, revision: str) -> None:
    found = ours(base, revision)
    for direction, level in OASDIFF[(base, revision)].items():
        verdict = found.get(direction, "compatible")
        known = DISAGREEMENTS.get((base, revision, direction))
        if known is None:
            assert verdict == _AGREES[level], (base, revision, direction)
        else:
            assert verdict == known[0], (base, revision, direction)
            assert RULES[known[1]].why, f"{known[1]}: the rules table must say why"


def test_disagreements_are_the_documented_ones() -> None:
    assert all((base, revision) in OASDIFF for base, revision, _ in DISAGREEMENTS)
    text = (Path(__file__).resolve().parents[2] / "docs" / "api-changes.md").read_text(
        encoding="utf-8"
    )
    directions = sum(len(levels) for levels in OASDIFF.values())
    assert f"{len(OASDIFF)} comparisons, {directions} directions" in text
    for base, revision, direction in DISAGREEMENTS:
        assert f"`{base}` -> `{revision}` ({direction})" in text


#: (base, revision) -> openapi-diff's verdict, from core/src/test/.../backcompat/*BCTest.java
OPENAPI_DIFF: dict[tuple[str, str], str] = {
    # SecurityRequirementsBCTest
    ("bc_security_requirements_base", "bc_security_requirements_changed_but_compatible"): (
        "compatible"
    ),
    ("bc_security_requirements_base", "bc_security_requirements_scheme_type_changed"): (
        "incompatible"
    ),
    # SecuritySchemeBCTest
    ("bc_security_scheme_base", "bc_security_scheme_changed_but_compatible"): "compatible",
    ("bc_security_scheme_base", "bc_security_scheme_bearer_format_changed"): "incompatible",
    ("bc_security_scheme_base", "bc_security_scheme_in_changed"): "incompatible",
    ("bc_security_scheme_base", "bc_security_scheme_open_id_connect_url_changed"): ("incompatible"),
    ("bc_security_scheme_base", "bc_security_scheme_scheme_changed"): "incompatible",
    ("bc_security_scheme_base", "bc_security_scheme_type_changed"): "incompatible",
    ("bc_security_scheme_base", "bc_security_scheme_scopes_increased"): "incompatible",
    # OAuthFlowBCTest
    ("bc_oauthflow_base", "bc_oauthflow_authorization_url_changed"): "incompatible",
    ("bc_oauthflow_base", "bc_oauthflow_refresh_url_changed"): "incompatible",
    ("bc_oauthflow_base", "bc_oauthflow_token_url_changed"): "incompatible",
    # RequiredBCTest
    ("bc_required_base", "bc_required_changed_but_compatible"): "compatible",
    ("bc_required_base", "bc_request_required_increased"): "incompatible",
    ("bc_required_base", "bc_response_required_decreased"): "incompatible",
    # EnumBCTest
    ("bc_enum_base", "bc_enum_changed_but_compatible"): "compatible",
    ("bc_enum_base", "bc_request_enum_decreased"): "incompatible",
    ("bc_enum_base", "bc_response_enum_increased"): "incompatible",
    # NumericRangeBCTest
    ("bc_numericrange_base", "bc_numericrange_changed_but_compatible"): "compatible",
    ("bc_numericrange_base", "bc_request_numericrange_exclusive_max_created"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_exclusive_max_set"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_exclusive_min_created"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_exclusive_min_set"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_max_added"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_max_decreased"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_min_added"): "incompatible",
    ("bc_numericrange_base", "bc_request_numericrange_min_increased"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_exclusive_max_deleted"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_exclusive_max_unset"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_exclusive_min_deleted"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_exclusive_min_unset"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_max_deleted"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_max_increased"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_min_decreased"): "incompatible",
    ("bc_numericrange_base", "bc_response_numericrange_min_deleted"): "incompatible",
    # ReadOnlyBCTest
    ("bc_readonly_base", "bc_readonly_changed_but_compatible"): "compatible",
    ("bc_readonly_base", "bc_request_readonly_increased"): "incompatible",
    ("bc_readonly_base", "bc_request_readonly_required_decreased"): "incompatible",
    # WriteOnlyBCTest
    ("bc_writeonly_base", "bc_writeonly_changed_but_compatible"): "compatible",
    ("bc_writeonly_base", "bc_response_writeonly_increased"): "incompatible",
    ("bc_writeonly_base", "bc_response_writeonly_required_decreased"): "incompatible",
}

#: (base, revision) -> (our clients verdict, the kind whose rules-table row says why)
OPENAPI_DIFF_DISAGREEMENTS: dict[tuple[str, str], tuple[str, str]] = {
    ("bc_numericrange_base", "bc_request_numericrange_exclusive_max_set"): (
        "compatible",
        "bound-tightened",
    ),
    ("bc_numericrange_base", "bc_request_numericrange_exclusive_min_set"): (
        "compatible",
        "bound-tightened",
    ),
    ("bc_writeonly_base", "bc_response_writeonly_required_decreased"): (
        "compatible",
        "property-added-required",
    ),
}


@pytest.mark.parametrize(("base", "revision"), sorted(OPENAPI_DIFF))
def test_openapi_diff_corpus_pair(base: str, revision: str) -> None:
    found = ours(base, revision, OPENAPI_DIFF_CORPUS)
    verdict = max(["compatible", *found.values()], key=_ORDER.index)
    known = OPENAPI_DIFF_DISAGREEMENTS.get((base, revision))
    if known is None:
        expected = {"incompatible": "breaking", "compatible": "compatible"}
        assert verdict == expected[OPENAPI_DIFF[(base, revision)]], (base, revision)
    else:
        assert verdict == known[0], (base, revision)
        assert RULES[known[1]].why, f"{known[1]}: the rules table must say why"


def test_openapi_diff_disagreements_are_documented() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "api-changes.md").read_text(
        encoding="utf-8"
    )
    assert f"{len(OPENAPI_DIFF)} openapi-diff pairs" in text
    for base, revision in OPENAPI_DIFF_DISAGREEMENTS:
        assert f"`{base}` -> `{revision}`" in text
