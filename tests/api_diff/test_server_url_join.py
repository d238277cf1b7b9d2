"""The URL path of an operation is its server URL's path joined with its path: moving `/v1`
between `servers` and `paths` is no change, and the `--paths` scope finds both forms."""

from __future__ import annotations

import copy
from typing import Any

from together_rl_api_diff import compare_documents
from together_rl_spec import Document

BASE: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1.0.0"},
    "servers": [{"url": "https://api.example.com/v1"}],
    "paths": {
        "/rl/things/{id}": {
            "get": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {"200": {"description": "ok"}},
            }
        },
        "/other/ping": {"get": {"responses": {"200": {"description": "ok"}}}},
    },
}


def _root_server_form(document: dict[str, Any]) -> dict[str, Any]:
    moved = copy.deepcopy(document)
    moved["servers"] = [{"url": "https://api.example.com"}]
    moved["paths"] = {f"/v1{path}": item for path, item in moved["paths"].items()}
    return moved


def _diff(old: dict[str, Any], new: dict[str, Any], paths: str | None = None) -> list[str]:
    report = compare_documents(Document("old", old), Document("new", new), paths=paths)
    return [change.kind for change in report.changes]


def test_moving_v1_from_the_server_url_into_the_paths_is_no_change() -> None:
    assert _diff(BASE, _root_server_form(BASE)) == []
    assert _diff(_root_server_form(BASE), BASE) == []


def test_a_real_move_of_the_url_is_still_seen() -> None:
    elsewhere = copy.deepcopy(BASE)
    elsewhere["servers"] = [{"url": "https://api.example.com/v2"}]
    assert sorted(_diff(BASE, elsewhere)) == ["operation-added"] * 2 + ["operation-removed"] * 2


def test_a_path_level_server_overrides_the_document_server() -> None:
    overridden = _root_server_form(BASE)
    item = overridden["paths"].pop("/v1/rl/things/{id}")
    item["servers"] = [{"url": "https://api.example.com/v1"}]
    overridden["paths"]["/rl/things/{id}"] = item
    assert _diff(BASE, overridden) == []


def test_the_paths_scope_matches_the_url_path_in_either_form() -> None:
    narrowed = copy.deepcopy(BASE)
    del narrowed["paths"]["/other/ping"]
    assert _diff(BASE, narrowed, paths="/rl/") == []
    assert _diff(_root_server_form(BASE), narrowed, paths="/rl/") == []
    assert _diff(BASE, narrowed) == ["operation-removed"]
