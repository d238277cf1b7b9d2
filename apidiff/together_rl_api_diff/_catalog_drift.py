"""The catalog against an upstream document: the base models it publishes and their limits.

Our catalog is the emulator's data file (`together_rl_emulator/catalog.json`, each fact with
its source); read as data, without importing the emulator. An upstream OpenAPI document
publishes models in two ways: a `GET /rl/supported-models` response example (a catalog: its
models and their limits) or a `base_model` example value (a mention). A model upstream has and
we lack is `behind`; with a published catalog, a model of ours it lacks is `ahead` (the
emulator's own `emulator/` models aside) and a limit that differs is `differ`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ._changes import Change

__all__ = [
    "CATALOG_EXPLAINED",
    "CatalogFinding",
    "catalog_findings",
    "our_catalog",
    "upstream_catalog",
]

#: A finding before the report wraps it: the change, its group, our source, why it is explained.
CatalogFinding = tuple[Change, str, "str | None", "str | None"]

OPERATION = "GET /rl/supported-models"
#: catalog location -> why it is no drift although the catalogs differ there.
CATALOG_EXPLAINED: Mapping[str, str] = {
    "catalog/Qwen/Qwen3-0.6B": "an example value of the internal document of 2026-08-17 (its "
    "`base_model` examples), older than the published catalog, which starts users on "
    "Qwen/Qwen3.8-27B (docs.together.ai/docs/post-training/supported-models)",
    "catalog/zai-org/GLM-5.3": "the example `base_model` of the rollouts-estimate reference "
    "page (docs.together.ai/reference/post-training/rollouts-estimate), which the spec keeps; "
    "the emulator refuses it with 400 as a model outside its catalog until the supported-models "
    "page's catalog, which the stored copy does not show, is read",
}
# Limit name -> where a `SupportedModel` entry states it, and the catalog field it is.
_LIMITS = {
    "generator context": (("generator_config", "context_length"), "generator_context_length"),
    "LoRA max sequence": (("trainer_config", "lora", "max_seq_length"), "max_seq_length_lora"),
    "full-weight max sequence": (
        ("trainer_config", "full", "max_seq_length"),
        "max_seq_length_full",
    ),
    "LoRA max rank": (("trainer_config", "lora", "max_rank"), "max_lora_rank"),
}


def our_catalog() -> list[dict[str, Any]] | None:
    """The entries of the emulator's `catalog.json`, or None when it is not installed."""
    found = importlib.util.find_spec("together_rl_emulator")
    if found is None or not found.submodule_search_locations:
        return None
    path = Path(next(iter(found.submodule_search_locations))) / "catalog.json"
    if not path.is_file():
        return None
    models: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["models"]
    return models


def _examples(node: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """(the key holding it, value) of every example value in `node`."""
    if isinstance(node, dict):
        for name, value in node.items():
            if name == "example":
                yield key, value
            elif name == "examples" and isinstance(value, dict):
                for example in value.values():
                    if isinstance(example, dict) and "value" in example:
                        yield key, example["value"]
            else:
                yield from _examples(value, name)
    elif isinstance(node, list):
        for item in node:
            yield from _examples(item, key)


def _dig(node: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        if not isinstance(node, dict):
            return None
        node = node.get(part)
    return node


def upstream_catalog(root: Mapping[str, Any]) -> tuple[dict[str, dict[str, Any]], bool]:
    """The models an upstream document publishes (name -> limits found, by `_LIMITS` name),
    and whether it publishes a catalog (a supported-models response example)."""
    models: dict[str, dict[str, Any]] = {}
    full = False
    for holder, value in _examples(root):
        if holder == "base_model" and isinstance(value, str):
            models.setdefault(value, {})
        entries = value.get("data") if isinstance(value, dict) else None
        if not isinstance(entries, list):
            continue
        for entry in entries:
            if isinstance(entry, dict) and isinstance(entry.get("base_model"), str):
                full = True
                limits = models.setdefault(entry["base_model"], {})
                configs = entry.get("compute_configs") or [{}]
                for name, (path, _field) in _LIMITS.items():
                    stated = _dig(configs[0], path)
                    if stated is not None:
                        limits[name] = stated
    return models, full


def _finding(kind: str, group: str, model: str, message: str, **more: Any) -> CatalogFinding:
    location = f"catalog/{model}" + (f"/{more['limit']}" if "limit" in more else "")
    change = Change(
        id=hashlib.sha1(location.encode()).hexdigest()[:12],
        kind=kind,
        location=location,
        operations=[OPERATION],
        old=more.get("old"),
        new=more.get("new"),
        clients="compatible",
        servers="compatible",
        message=message,
    )
    return change, group, more.get("source"), CATALOG_EXPLAINED.get(location)


def catalog_findings(root: Mapping[str, Any]) -> list[CatalogFinding]:
    """Every difference between our catalog and the models `root` publishes."""
    ours = our_catalog()
    if ours is None:
        return []
    by_name = {entry["name"]: entry for entry in ours}
    theirs, full = upstream_catalog(root)
    findings: list[CatalogFinding] = []
    for model, limits in sorted(theirs.items()):
        entry = by_name.get(model)
        if entry is None:
            findings.append(_finding(
                "catalog-model-added", "behind", model,
                f"catalog: upstream {'lists' if full else 'names'} base model {model};"
                " our catalog lacks it", new=model,
            ))  # fmt: skip
            continue
        for name, stated in limits.items():
            field = _LIMITS[name][1]
            if entry.get(field) != stated:
                findings.append(_finding(
                    "catalog-limit-changed", "differ", model,
                    f"catalog: {model} {name}: ours {entry.get(field)}, upstream's {stated}",
                    limit=field, old=entry.get(field), new=stated,
                    source=entry["sources"].get(field),
                ))  # fmt: skip
    if full:
        for model, entry in by_name.items():
            if model not in theirs and not model.startswith("emulator/"):
                findings.append(_finding(
                    "catalog-model-removed", "ahead", model,
                    f"catalog: our catalog serves {model}; upstream's catalog lacks it",
                    old=model, source=entry["sources"].get("name"),
                ))  # fmt: skip
    return findings
