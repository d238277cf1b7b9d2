"""For this project's spec: what moves in generated/ and the wrapper, and which files to look at;
docs/api-changes.md holds the tool's table."""

from __future__ import annotations

import copy
from pathlib import Path

from together_rl_api_diff import Document, compare_documents, load_document
from together_rl_api_diff._impact import impact_of, impact_table
from together_rl_api_diff._naming import class_name, module_name

REPO = Path(__file__).resolve().parents[2]


def test_docs_hold_the_tools_table() -> None:
    text = (REPO / "docs" / "api-changes.md").read_text(encoding="utf-8")
    assert impact_table() in text, (
        "docs/api-changes.md: paste `together-rl-api-diff --impact-table`"
    )


def test_names_as_the_generator_derives_them() -> None:
    for schema, klass, module in [
        ("GRPOLossParams", "GRPOLossParams", "grpo_loss_params"),
        ("DType", "DType", "d_type"),
        ("ErrorData_error", "ErrorDataError", "error_data_error"),
    ]:
        assert (class_name(schema), module_name(class_name(schema))) == (klass, module)
    generated = REPO / "generated" / "together_rl_client" / "models"
    assert (generated / f"{module_name('GRPOLossParams')}.py").is_file()
    assert (generated / f"{module_name('DType')}.py").is_file()


def _edited(edit: object) -> tuple[Document, Document]:
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    root = copy.deepcopy(spec.root)
    edit(root)  # type: ignore[operator]
    return spec, Document("edited.yaml", root)


def test_a_new_loss_type_points_at_the_loss_files() -> None:
    old, new = _edited(
        lambda r: r["components"]["schemas"]["LossType"]["enum"].append("LOSS_TYPE_NEW")
    )
    (change,) = compare_documents(old, new).changes
    (impact,) = impact_of([change], new.root, REPO)
    assert impact.row.change.startswith("a new loss type")
    assert impact.generated == ["`LossType` (models/loss_type.py)"]
    assert any(line.startswith("wrapper/together_rl/losses.py") for line in impact.wrapper)


def test_a_new_operation_kind_points_at_the_kind_registry() -> None:
    def add_kind(root: dict) -> None:  # type: ignore[type-arg]
        paths = root["paths"]
        paths["/rl/training-sessions/{session_id}/operations/new-kind"] = copy.deepcopy(
            paths["/rl/training-sessions/{session_id}/operations/weights-sync"]
        )
        paths["/rl/training-sessions/{session_id}/operations/new-kind"]["post"]["operationId"] = (
            "newKind"
        )

    old, new = _edited(add_kind)
    (change,) = compare_documents(old, new).changes
    (impact,) = impact_of([change], new.root, REPO)
    assert impact.row.change.startswith("a new operation kind")
    assert "_kinds.py" in impact.row.follow
    assert impact.generated == ["api/rl/new_kind.py"]


def test_a_shared_model_change_names_the_wrapper_modules_and_their_public_names() -> None:
    old, new = _edited(lambda r: r["components"]["schemas"]["AdamParams"]["properties"].pop("eps"))
    (change,) = compare_documents(old, new).changes
    (impact,) = impact_of([change], new.root, REPO)
    assert impact.generated == ["attribute `eps` of `AdamParams` (models/adam_params.py)"]
    assert "wrapper/together_rl/_bodies.py (public: AdamParams, SamplingParams)" in impact.wrapper
