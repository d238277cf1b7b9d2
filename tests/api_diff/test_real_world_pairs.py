"""The parts of OpenAPI 3.0/3.1 and JSON Schema 2020-12 this project's own spec does not use,
each on a document pair written for it (tests/api_diff/pairs/<case>/): multi-file `$ref`s,
readOnly/writeOnly, webhooks and callbacks, conditionals, `not`, dependencies, `const`,
content keywords, tuples, unevaluatedProperties, the two nullable spellings, security by the
callers accepted, pattern widening, and keywords the tool does not judge."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from together_rl_api_diff import Document, DocumentError, compare_documents, load_document
from together_rl_api_diff.__main__ import main
from together_rl_api_diff._keywords import Keywords, load_keywords

PAIRS = Path(__file__).parent / "pairs"
B, C, U = "breaking", "compatible", "undecided"

#: case -> every change it must give: (kind, clients, servers)
EXPECTED: dict[str, set[tuple[str, str, str]]] = {
    "multi_file_moved": set(),
    "multi_file_changed": {("bound-tightened", B, B)},
    "read_only_required_added": {("property-added-required", C, B)},
    "write_only_became_optional": {("property-became-optional", C, B)},
    "property_became_read_only": {("property-became-read-only", B, C)},
    "property_became_write_only": {("property-became-write-only", B, C)},
    "webhook_removed": {("webhook-removed", B, C)},
    "webhook_payload_enum_added": {("enum-value-added", B, C)},
    "callback_removed": {("callback-removed", B, C), ("enum-value-added", B, C)},
    "if_then_added": {("condition-added", B, C)},
    "if_changed": {("condition-changed", U, U)},
    "then_tightened": {("bound-tightened", B, C)},
    "dependent_required_added": {("dependent-required-added", B, C)},
    "dependent_schemas_added": {("dependent-schema-added", B, C)},
    "not_added": {("not-added", B, C)},
    "not_changed": {("not-changed", U, U)},
    "const_changed": {("enum-value-added", C, B), ("enum-value-removed", B, C)},
    "content_encoding_added": {("content-keyword-added", B, C)},
    "content_media_type_changed": {("content-keyword-changed", B, B)},
    "prefix_items_narrowed": {("type-narrowed", B, C), ("prefix-items-added", B, C)},
    "unevaluated_properties_false_added": {("unevaluated-properties-narrowed", B, C)},
    "nullable_spellings": set(),
    "bound_made_exclusive": {("bound-tightened", B, C)},
    "exclusive_bound_spellings": set(),
    "security_anonymous_allowed": {
        ("security-alternative-added", C, B),
        ("security-alternative-removed-covered", C, C),
    },
    "security_scope_added": {
        ("security-alternative-removed", B, C),
        ("security-alternative-added-covered", C, C),
    },
    "security_scheme_replaced": {
        ("security-alternative-removed", B, C),
        ("security-alternative-added", C, B),
    },
    "security_alternative_added_to_anonymous": {("security-alternative-added-covered", C, C)},
    "security_oauth_flow_removed": {
        ("security-flow-removed", B, C),
        ("security-scheme-changed", B, B),
    },
    "response_headers": {
        ("response-header-became-optional", B, C),
        ("response-header-became-required", C, B),
        ("response-header-removed", B, C),
        ("response-header-added-required", C, B),
        ("bound-relaxed", B, C),
    },
    "pattern_relaxed_to_anything": {("pattern-widened", C, B)},
    "pattern_anchor_removed": {("pattern-widened", C, B)},
    "pattern_alternative_added": {("pattern-widened", C, B)},
    "pattern_anchor_added": {("pattern-narrowed", B, C)},
    "pattern_rewritten": {("pattern-changed", U, U)},
    "unjudged_keyword_changed": {("keyword-changed", U, U)},
    "unknown_extension_changed": {("extension-changed", U, U)},
}


def _pair(case: str) -> tuple[str, str]:
    folder = PAIRS / case
    old = folder / "old.yaml" if (folder / "old.yaml").is_file() else folder / "old/openapi.yaml"
    new = folder / "new.yaml" if (folder / "new.yaml").is_file() else folder / "new/openapi.yaml"
    return str(old), str(new)


def _verdicts(case: str, keywords: Keywords | None = None) -> set[tuple[str, str, str]]:
    old, new = _pair(case)
    arguments = {} if keywords is None else {"keywords": keywords}
    report = compare_documents(load_document(old), load_document(new), **arguments)
    return {(change.kind, change.clients, change.servers) for change in report.changes}


def test_every_pair_folder_is_checked() -> None:
    folders = {path.name for path in PAIRS.iterdir() if path.is_dir()}
    assert folders - {"multi_file_missing", "multi_file_cycle"} == set(EXPECTED)


@pytest.mark.parametrize("case", sorted(EXPECTED))
def test_pair_verdicts(case: str) -> None:
    assert _verdicts(case) == EXPECTED[case]


def test_a_change_in_another_file_is_named_after_that_file() -> None:
    old, new = _pair("multi_file_changed")
    report = compare_documents(load_document(old), load_document(new))
    assert [change.location for change in report.changes] == ["common/errors.json#/Label"]
    assert report.changes[0].positions == ["request", "response"]


def test_read_only_is_not_in_requests() -> None:
    old, new = _pair("read_only_required_added")
    (change,) = compare_documents(load_document(old), load_document(new)).changes
    assert change.positions == ["response"]


@pytest.mark.parametrize(
    ("case", "file", "place", "reason"),
    [
        (
            "multi_file_missing",
            "schemas/pet.yaml",
            "#/properties/owner/$ref",
            "schemas/owner.yaml: No such file or directory",
        ),
        (
            "multi_file_cycle",
            "openapi.yaml",
            "#/paths/~1pets/get/responses/200/content/application~1json/schema/$ref",
            "$ref cycle: schemas/pet.yaml# -> schemas/alias.yaml# -> schemas/pet.yaml#",
        ),
    ],
)
def test_unreadable_multi_file_documents(case: str, file: str, place: str, reason: str) -> None:
    good, _ = _pair("multi_file_moved")
    with pytest.raises(DocumentError) as raised:
        compare_documents(load_document(good), load_document(str(PAIRS / case / "openapi.yaml")))
    assert raised.value.source == str(PAIRS / case / file)
    assert raised.value.place == place
    assert raised.value.reason.endswith(reason)


def test_multi_file_document_from_a_git_revision(tmp_path: Path) -> None:
    """REV:PATH reads the files beside PATH at the same revision."""
    shutil.copytree(PAIRS / "multi_file_changed", tmp_path / "repo")
    repo = tmp_path / "repo"

    def git(*arguments: str) -> None:
        subprocess.run(["git", *arguments], cwd=repo, check=True, capture_output=True)

    git("init", "-q")
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "pair")
    old = load_document("HEAD:old/openapi.yaml", cwd=repo)
    new = load_document("HEAD:new/openapi.yaml", cwd=repo)
    (change,) = compare_documents(old, new).changes
    assert change.kind == "bound-tightened"


def test_keywords_file_names_what_an_extension_means(tmp_path: Path) -> None:
    rules = tmp_path / "rules.yaml"
    rules.write_text("rules: [x-max-bytes]\n", encoding="utf-8")
    assert _verdicts("unknown_extension_changed", load_keywords(rules)) == {("rule-changed", B, B)}
    annotations = tmp_path / "annotations.yaml"
    annotations.write_text("annotations: [x-max-bytes]\n", encoding="utf-8")
    assert _verdicts("unknown_extension_changed", load_keywords(annotations)) == set()


def test_keywords_file_errors_name_the_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("rules: [max-bytes]\n", encoding="utf-8")
    old, new = _pair("unknown_extension_changed")
    assert main([old, new, "--keywords", str(bad)]) == 2
    assert "bad.yaml: rules: not a list of `x-` keywords" in capsys.readouterr().err


def test_undecided_changes_have_their_own_section(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = _pair("pattern_rewritten")
    assert main([old, new, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "### Not judged (a person must look)" in out
    assert "1 not judged" in out


def test_a_document_without_a_directory_names_the_reference() -> None:
    root = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {"schemas": {"Pet": {"$ref": "./pet.yaml"}}},
    }
    with pytest.raises(DocumentError) as raised:
        compare_documents(Document("memory", root), Document("memory", root))
    assert raised.value.place == "#/components/schemas/Pet/$ref"
    assert "the document has no directory" in raised.value.reason
