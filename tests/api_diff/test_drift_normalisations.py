"""`together-rl-sdk-drift` against OpenAPI documents written for these tests: the server URL
joined with the paths, schemas that upstream names otherwise paired by use, the `/rl/` scope,
the three groups with our rules' `x-source`, and what upstream states in another spelling."""

from __future__ import annotations

import copy
import http.server
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from together_rl_api_diff._drift_formats import render_drift
from together_rl_api_diff._drift_report import DriftReport, drift_of
from together_rl_api_diff._sdk_drift import main
from together_rl_api_diff._upstream import read_upstream
from together_rl_spec import Document


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _answer(schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": "ok", "content": {"application/json": {"schema": schema}}}


THING_SOURCE = "together==3.1.1 together/types/thing.py Thing"

#: Ours: `Sample` inside the body of POST /rl/things, a `Thing` answered; rules with x-source.
OURS: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "ours", "version": "0.3.0"},
    "servers": [{"url": "https://api.example.com/v1"}],
    "paths": {
        "/rl/things": {
            "post": {
                "requestBody": _body(_ref("ThingCreate")),
                "responses": {
                    "200": _answer(_ref("Thing")),
                    "400": _answer(_ref("ErrorData")),
                    "404": _answer(_ref("ErrorData")),
                },
            }
        },
    },
    "components": {
        "schemas": {
            "ThingCreate": {
                "type": "object",
                "required": ["samples"],
                "x-source": {"required": THING_SOURCE},
                "properties": {
                    "samples": {"type": "array", "items": _ref("Sample")},
                    "name": {"type": "string", "maxLength": 64, "x-source": "emulator"},
                    "ours_only": {"type": "integer", "minimum": 1, "x-source": "emulator"},
                    "rate": {"type": "number", "x-server-default": 0.5, "x-source": "emulator"},
                },
            },
            "Sample": {
                "type": "object",
                "properties": {"tokens": {"type": "array", "items": {"type": "integer"}}},
            },
            "Thing": {"type": "object", "properties": {"id": {"type": "string"}}},
            "ErrorData": {"type": "object", "properties": {"message": {"type": "string"}}},
        }
    },
}


def _upstream_form(document: dict[str, Any]) -> dict[str, Any]:
    """The same API as the newer reference pages write it: server root, `/v1/rl/...` paths,
    schemas named `RL.<Other name>`, one `default` error answer, a `default` for the server's."""
    names = {
        "ThingCreate": "RL.CreateThingRequest",
        "Sample": "RL.TrainingSample",
        "Thing": "RL.Thing",
        "ErrorData": "ErrorData",
    }
    text = json.dumps(document)
    for ours, theirs in names.items():
        text = text.replace(f'"#/components/schemas/{ours}"', f'"#/components/schemas/{theirs}"')
    moved = json.loads(text)
    moved["servers"] = [{"url": "https://api.example.com"}]
    moved["paths"] = {f"/v1{path}": item for path, item in moved["paths"].items()}
    schemas = moved["components"]["schemas"]
    moved["components"]["schemas"] = {names[name]: schema for name, schema in schemas.items()}
    responses = moved["paths"]["/v1/rl/things"]["post"]["responses"]
    responses["default"] = responses.pop("400")
    del responses["404"]
    rate = moved["components"]["schemas"]["RL.CreateThingRequest"]["properties"]["rate"]
    rate["default"] = rate.pop("x-server-default")
    return moved


def _drift(ours: dict[str, Any], theirs: dict[str, Any], tmp_path: Path) -> DriftReport:
    (tmp_path / "upstream.json").write_text(json.dumps(theirs), encoding="utf-8")
    upstream = read_upstream([str(tmp_path / "upstream.json")], Document("ours", ours))
    return drift_of(upstream)


def _groups(report: DriftReport) -> dict[str, set[tuple[str, str, str | None]]]:
    return {
        name: {
            (f.change.kind, f.change.location.removeprefix("#/components/schemas/"), f.source)
            for f in report.group(name)
        }
        for name in ("behind", "ahead", "differ")
    }


def test_the_same_api_in_the_reference_form_and_other_names_is_no_drift(tmp_path: Path) -> None:
    report = _drift(OURS, _upstream_form(OURS), tmp_path)
    assert [f.change.message for f in report.findings] == []
    assert {(p.ours, p.theirs) for p in report.pairs if p.renamed} == {
        ("ThingCreate", "RL.CreateThingRequest"),
        ("Sample", "RL.TrainingSample"),
    }
    assert ("Thing", "RL.Thing") in {(p.ours, p.theirs) for p in report.pairs}


def test_a_schema_named_otherwise_is_paired_where_it_is_used_not_added_and_removed(
    tmp_path: Path,
) -> None:
    theirs = _upstream_form(OURS)
    sample = theirs["components"]["schemas"]["RL.TrainingSample"]
    sample["properties"]["weight"] = {"type": "number"}
    report = _drift(OURS, theirs, tmp_path)
    assert _groups(report) == {
        "behind": {("property-added-optional", "Sample/properties/weight", None)},
        "ahead": set(),
        "differ": set(),
    }
    assert "Sample = RL.TrainingSample" in render_drift(report)


def test_each_difference_is_in_its_group_with_our_rules_source(tmp_path: Path) -> None:
    theirs = _upstream_form(OURS)
    create = theirs["components"]["schemas"]["RL.CreateThingRequest"]
    create["properties"]["name"]["maxLength"] = 128
    del create["properties"]["ours_only"]
    create["properties"]["theirs_only"] = {"type": "string", "maxLength": 8}
    create["properties"]["rate"]["default"] = 0.25
    create["required"].append("name")
    assert _groups(_drift(OURS, theirs, tmp_path)) == {
        "behind": {
            ("property-added-optional", "ThingCreate/properties/theirs_only", None),
            # upstream's `required` list is not ours: ours is the SDK's
            ("property-became-required", "ThingCreate/properties/name", THING_SOURCE),
        },
        "ahead": {("property-removed", "ThingCreate/properties/ours_only", "emulator")},
        "differ": {
            ("bound-relaxed", "ThingCreate/properties/name", "emulator"),
            ("default-changed", "ThingCreate/properties/rate", "emulator"),
        },
    }


def test_a_required_property_upstream_lacks_shows_the_source_of_our_required(
    tmp_path: Path,
) -> None:
    theirs = _upstream_form(OURS)
    create = theirs["components"]["schemas"]["RL.CreateThingRequest"]
    del create["properties"]["samples"]
    create["required"] = []
    assert _groups(_drift(OURS, theirs, tmp_path))["ahead"] == {
        ("property-removed", "ThingCreate/properties/samples", THING_SOURCE)
    }


def test_outside_the_scope_is_counted_in_one_line(tmp_path: Path) -> None:
    theirs = _upstream_form(OURS)
    theirs["paths"]["/v1/shaping/runs"] = {"get": {"responses": {"200": {"description": "ok"}}}}
    theirs["paths"]["/v1/shaping/runs/{id}"] = {
        "delete": {"responses": {"204": {"description": "gone"}}}
    }
    report = _drift(OURS, theirs, tmp_path)
    assert report.findings == [] and report.outside == (2, 0)
    text = render_drift(report)
    assert "outside it (not compared): 2 operations upstream, 0 of ours" in text
    assert "shaping" not in text


def test_an_operation_upstream_lacks_is_ours_and_one_we_lack_is_behind(tmp_path: Path) -> None:
    ours = copy.deepcopy(OURS)
    ours["paths"]["/rl/things/{thing_id}"] = {"get": {"responses": {"200": _answer(_ref("Thing"))}}}
    theirs = _upstream_form(OURS)
    theirs["paths"]["/v1/rl/things/{id}/stop"] = {"post": {"responses": {"200": _answer({})}}}
    groups = _groups(_drift(ours, theirs, tmp_path))
    assert {kind for kind, _, _ in groups["ahead"]} == {"operation-removed"}
    assert {kind for kind, _, _ in groups["behind"]} == {"operation-added"}


def test_several_documents_in_both_forms_are_merged(tmp_path: Path) -> None:
    first = _upstream_form(OURS)
    second = copy.deepcopy(OURS)  # the older pages' form: server .../v1, paths /rl/...
    second["paths"] = {"/rl/things/{id}": {"get": {"responses": {"200": _answer(_ref("Thing"))}}}}
    (tmp_path / "a.json").write_text(json.dumps(first), encoding="utf-8")
    (tmp_path / "b.json").write_text(json.dumps(second), encoding="utf-8")
    ours = copy.deepcopy(OURS)
    ours["paths"]["/rl/things/{thing_id}"] = {"get": {"responses": {"200": _answer(_ref("Thing"))}}}
    sources = [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    report = drift_of(read_upstream(sources, Document("ours", ours)))
    assert [f.change.message for f in report.findings] == []


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "openapi.json").write_text(json.dumps(_upstream_form(OURS)), encoding="utf-8")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, format: str, *args: Any) -> None:
            del format, args

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/openapi.json"
    finally:
        server.shutdown()
        server.server_close()


def test_the_command_reads_a_url_and_fails_on_drift_only_when_asked(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "ours.json").write_text(json.dumps(OURS), encoding="utf-8")
    spec = str(tmp_path / "ours.json")
    assert main([served, "--spec", spec, "--fail-on", "drift", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["counts"] == {"behind": 0, "ahead": 0, "differ": 0}
    assert document["semver"] is None
    drifted = copy.deepcopy(OURS)
    drifted["components"]["schemas"]["Thing"]["properties"]["extra"] = {"type": "string"}
    (tmp_path / "ours.json").write_text(json.dumps(drifted), encoding="utf-8")
    assert main([served, "--spec", spec, "--fail-on", "drift"]) == 1
    out = capsys.readouterr().out
    assert "we have, upstream lacks: 1" in out and "Thing.extra: property extra removed" in out
    assert main([served.replace("openapi", "missing"), "--spec", spec]) == 2
    assert "404" in capsys.readouterr().err


def test_the_spec_at_another_revision_is_an_upstream(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """0.3.0 (ed0e7cd) against 0.2.0 (bb0481a): `x-required-inputs` moved from LossType to
    LossConfig, both rules the SDK's; nothing else of the RL API moved between them."""
    repo = Path(__file__).resolve().parents[2]
    for revision in ("ed0e7cd", "bb0481a"):
        found = subprocess.run(
            ["git", "cat-file", "-e", f"{revision}^{{commit}}"], cwd=repo, check=False
        )
        if found.returncode != 0:
            pytest.skip(f"{revision} is not in this clone (a shallow one holds no history)")
    monkeypatch.chdir(repo)
    assert main(["bb0481a", "--spec", "ed0e7cd", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["kind"] == "revision"
    assert document["counts"] == {"behind": 1, "ahead": 1, "differ": 0}
    (ahead,) = document["groups"]["ahead"]
    (behind,) = document["groups"]["behind"]
    assert ahead["location"] == "#/components/schemas/LossConfig"
    assert ahead["x-source"].startswith("together==3.1.1 together/post_training/_losses.py")
    assert behind["location"] == "#/components/schemas/LossType"
