"""A document that cannot be read is one line naming the file, the place and the reason, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _spec_edits import BASE
from together_rl_api_diff import DocumentError, compare_documents, load_document
from together_rl_api_diff.__main__ import main


def write(tmp_path: Path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return name


@pytest.fixture
def good(tmp_path: Path) -> str:
    return write(tmp_path, "good.json", json.dumps(BASE))


@pytest.mark.parametrize(
    ("text", "place", "reason"),
    [
        ("openapi: 3.1.0\npaths: {a: [1, 2\n", "line 3 column 1", "not YAML"),
        ("- just\n- a list\n", "document", "not a mapping"),
        ("swagger: '2.0'\npaths: {}\n", "openapi", "Swagger 2.0 is not supported"),
        ("openapi: 3.1.0\npaths: []\n", "paths", "not a mapping"),
        (
            "openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        '200':\n"
            "          $ref: '#/components/responses/Gone'\n",
            "#/paths/~1a/get/responses/200/$ref",
            "dangling $ref '#/components/responses/Gone'",
        ),
    ],
    ids=["broken YAML", "not a mapping", "swagger 2", "paths not a mapping", "dangling ref"],
)
def test_one_line_with_file_place_and_reason(
    tmp_path: Path,
    good: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    place: str,
    reason: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    bad = write(tmp_path, "bad.yaml", text)
    assert main([good, bad]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith(f"together-rl-api-diff: bad.yaml: {place}: ")
    assert reason in err


def test_an_unknown_revision_and_a_missing_file(
    good: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(repo)
    assert main(["no-such-revision-anywhere", "spec/openapi.yaml"]) == 2
    assert "no-such-revision-anywhere:spec/openapi.yaml: git revision: " in capsys.readouterr().err
    assert main(["nowhere/old.yaml", "spec/openapi.yaml"]) == 2
    assert "nowhere/old.yaml: file: no such file" in capsys.readouterr().err


def test_yaml_that_only_a_tolerant_parser_reads(tmp_path: Path) -> None:
    """Duplicate keys (js-yaml and Redocly refuse them; the last one wins) and unquoted dates."""
    text = (
        "openapi: 3.0.3\ninfo: {title: t, version: 1.0.0}\ninfo: {title: t, version: 1.0.1}\n"
        "paths:\n  /a:\n    get:\n      responses:\n        '200':\n          description: ok\n"
        "          content:\n            application/json:\n              schema:\n"
        "                type: string\n                default: 2024-01-01\n"
    )
    document = load_document(write(tmp_path, "tolerant.yaml", text), cwd=tmp_path)
    assert document.version == "1.0.1"
    schema = document.root["paths"]["/a"]["get"]["responses"]["200"]["content"]["application/json"]
    assert schema["schema"]["default"] == "2024-01-01"
    assert compare_documents(document, document).changes == []


def test_a_dangling_ref_is_found_even_where_no_operation_reaches(tmp_path: Path) -> None:
    root = json.loads(json.dumps(BASE))
    root["components"]["schemas"]["Unused"] = {"$ref": "#/components/schemas/Nothing"}
    document = load_document(write(tmp_path, "dangling.json", json.dumps(root)), cwd=tmp_path)
    with pytest.raises(DocumentError, match="dangling"):
        compare_documents(document, document)
