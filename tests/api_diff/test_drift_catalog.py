"""`together-rl-sdk-drift` reports the catalog like any other difference: the base models an
upstream OpenAPI document publishes (a supported-models response example, or `base_model`
example values) against the emulator's `catalog.json`."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from together_rl_api_diff._catalog_drift import our_catalog, upstream_catalog
from together_rl_api_diff._drift_report import drift_of
from together_rl_api_diff._upstream import read_upstream
from together_rl_spec import load_document

REPO = Path(__file__).resolve().parents[2]


def _upstream_with_catalog(tmp_path: Path, entries: list[dict]) -> Path:
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    root = copy.deepcopy(spec.root)
    response = root["paths"]["/rl/supported-models"]["get"]["responses"]["200"]
    response["content"]["application/json"]["example"] = {"data": entries}
    path = tmp_path / "upstream.json"
    path.write_text(json.dumps(root), encoding="utf-8")
    return path


def _entry(name: str, context: int, lora: int) -> dict:
    return {
        "base_model": name,
        "default_gpu_type": "B200-SXM",
        "compute_configs": [{
            "gpu_type": "B200-SXM",
            "generator_config": {"context_length": context},
            "trainer_config": {"lora": {"max_seq_length": lora, "max_rank": 64}},
        }],
    }  # fmt: skip


def test_the_catalog_is_read_as_data() -> None:
    catalog = our_catalog()
    assert catalog is not None
    assert "Qwen/Qwen3.8-27B" in {entry["name"] for entry in catalog}


def test_a_published_catalog_is_compared_model_by_model(tmp_path: Path) -> None:
    ours = {entry["name"]: entry for entry in our_catalog() or []}
    start = ours["Qwen/Qwen3.8-27B"]
    published = [
        _entry("Qwen/Qwen3.8-27B", start["generator_context_length"] * 2,
               start["max_seq_length_lora"]),
        _entry("Qwen/Qwen3.9-99B", 131072, 65536),
    ]  # fmt: skip
    path = _upstream_with_catalog(tmp_path, published)
    models, full = upstream_catalog(json.loads(path.read_text()))
    assert full and {"Qwen/Qwen3.8-27B", "Qwen/Qwen3.9-99B"} <= set(models)

    spec = load_document("spec/openapi.yaml", cwd=REPO)
    report = drift_of(read_upstream([str(path)], spec))
    catalog = {f.change.message: f for f in report.drift if f.change.location.startswith(
        "catalog/")}  # fmt: skip
    behind = [m for m, f in catalog.items() if f.group == "behind"]
    assert behind == ["catalog: upstream lists base model Qwen/Qwen3.9-99B; our catalog lacks it"]
    (differ,) = [f for f in catalog.values() if f.group == "differ"]
    assert "generator context" in differ.change.message
    assert differ.source == start["sources"]["generator_context_length"]
    ahead = {f.change.old for f in catalog.values() if f.group == "ahead"}
    assert "Qwen/Qwen3.6-35B-A3B" in ahead and "emulator/tiny-1k" not in ahead
    explained = [f.change.location for f in report.explained]
    assert "catalog/zai-org/GLM-5.3" in explained  # the spec's own rollouts-estimate example


def test_the_same_catalog_is_no_drift(tmp_path: Path) -> None:
    published = [
        _entry(e["name"], e["generator_context_length"], e["max_seq_length_lora"])
        for e in our_catalog() or []
        if not e["name"].startswith("emulator/")
    ]
    path = _upstream_with_catalog(tmp_path, published)
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    report = drift_of(read_upstream([str(path)], spec))
    assert not [f for f in report.drift if f.change.location.startswith("catalog/")]
