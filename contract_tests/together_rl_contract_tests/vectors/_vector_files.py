"""The vector files on disk: their canonical layout, how they compare with freshly generated
vectors, and the rewrite of the stale ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from together_rl_contract_tests.vectors._compare import Comparison, compare_vectors

__all__ = ["VECTORS_DIR", "compare_files", "render", "stale_files", "write_all"]

VECTORS_DIR = Path(__file__).resolve().parent


def render(vectors: list[dict[str, Any]]) -> str:
    return json.dumps(vectors, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def compare_files(
    vectors: dict[str, list[dict[str, Any]]], directory: Path = VECTORS_DIR
) -> dict[str, Comparison]:
    """Per file, how the file in ``directory`` compares with ``vectors`` (see ``_compare``).

    A missing file, or one not in the canonical layout of :func:`render`, disagrees.
    """
    out = {}
    for name, content in vectors.items():
        path = directory / name
        if not path.exists():
            out[name] = Comparison(differences=[f"{name}: missing"], difference_count=1)
            continue
        text = path.read_text(encoding="utf-8")
        recorded = json.loads(text)
        out[name] = compare_vectors(recorded, json.loads(render(content)))
        if text != render(recorded):
            out[name].note_difference("", "not in the layout `make vectors` writes")
    return out


def stale_files(
    vectors: dict[str, list[dict[str, Any]]], directory: Path = VECTORS_DIR
) -> list[str]:
    """The files that disagree with ``vectors``: exact data differs or a float beyond tolerance."""
    comparisons = compare_files(vectors, directory)
    return [name for name, comparison in comparisons.items() if not comparison.agree]


def write_all(
    vectors: dict[str, list[dict[str, Any]]], directory: Path = VECTORS_DIR
) -> list[Path]:
    """Write the stale files into ``directory``; a file that agrees within tolerance is left as it
    is, so that a regeneration on another machine does not rewrite the last bits of its floats."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in stale_files(vectors, directory):
        path = directory / name
        path.write_text(render(vectors[name]), encoding="utf-8")
        paths.append(path)
    return paths
