"""The five formats, the stable JSON interface and `--fail-on`."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
from _spec_edits import BASE, CHANGE_FIELDS
from together_rl_api_diff.__main__ import main


@pytest.fixture
def pair(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    monkeypatch.chdir(tmp_path)
    new = json.loads(json.dumps(BASE))
    new["components"]["schemas"]["Pet"]["properties"].pop("tag")  # breaks clients
    new["components"]["schemas"]["Pet"]["properties"]["color"] = {"type": "boolean"}
    new["components"]["schemas"]["Kind"]["enum"].remove("dog")  # breaks servers only
    (tmp_path / "old.json").write_text(json.dumps(BASE))
    (tmp_path / "new.json").write_text(json.dumps(new))
    return "old.json", "new.json"


def run(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(arguments)
    return code, capsys.readouterr().out


def test_json_is_the_stable_interface(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run([*pair, "--format", "json"], capsys)
    assert code == 0
    document = json.loads(out)
    assert set(document) >= {"changes", "semver"}
    for change in document["changes"]:
        assert list(change) == CHANGE_FIELDS
        assert change["clients"] in ("breaking", "compatible")
        assert change["servers"] in ("breaking", "compatible")
    kinds = {c["kind"]: (c["clients"], c["servers"]) for c in document["changes"]}
    assert kinds == {
        "property-removed": ("breaking", "compatible"),
        "property-added-optional": ("compatible", "compatible"),
        "enum-value-removed": ("compatible", "breaking"),
    }
    assert document["semver"]["required_bump"] == "major"
    assert document["semver"]["suggested_version"] == "2.0.0"
    _, again = run([*pair, "--format", "json"], capsys)
    assert [c["id"] for c in json.loads(again)["changes"]] == [c["id"] for c in document["changes"]]


def test_junit_fails_the_breaking_changes(
    pair: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = run([*pair, "--format", "junit"], capsys)
    suites = ElementTree.fromstring(out)
    assert suites.get("tests") == "3"
    assert suites.get("failures") == "2"


def test_github_annotations(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    _, out = run([*pair, "--format", "github"], capsys)
    levels = [line.split(" ", 1)[0] for line in out.splitlines()]
    assert sorted(levels) == ["::error", "::notice", "::notice", "::warning"]


def test_markdown_and_text(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    _, markdown = run([*pair, "--format", "markdown"], capsys)
    assert "### Breaking for clients" in markdown
    assert "### Breaking for servers only" in markdown
    assert "- Pet.tag: property tag removed (in a response)" in markdown
    _, text = run(list(pair), capsys)
    assert text.splitlines()[0].startswith("3 changes from old.json to new.json: 1 break clients")


def test_fail_on(pair: tuple[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*pair, "--fail-on", "breaking"], capsys)[0] == 1
    assert run([*pair, "--fail-on", "breaking-clients"], capsys)[0] == 1
    assert run([pair[0], pair[0], "--fail-on", "breaking"], capsys)[0] == 0
