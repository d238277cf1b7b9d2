"""Every rule of the spec says where it comes from (`x-source`), in one of the four forms, and
docs/provenance.md is the table `make provenance` writes from it today.

The walker and the checks are those of `scripts/provenance_table.py` (the one reader of
`x-source` and `x-rules`); the tests below also feed it small specs, so that each check is
shown to fail on what it must refuse.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from _spec_schema import REPO_ROOT, load_spec
from ci_policy import import_required


def _import_provenance_table() -> ModuleType:
    sys.path.insert(0, str(REPO_ROOT / "scripts"))
    try:
        import provenance_table
    finally:
        sys.path.remove(str(REPO_ROOT / "scripts"))
    return provenance_table


provenance = _import_provenance_table()

SDK = "together==3.1.1 together/types/post_training/"


@pytest.fixture(scope="module")
def sdk_root() -> Path:
    """The folder holding the installed official SDK package (`together/...` lives in it)."""
    together = import_required("together", "3.1.1")
    assert together.__file__ is not None
    return Path(together.__file__).resolve().parent.parent


def _problems(spec: dict[str, Any], sdk_root: Path | None) -> list[str]:
    return list(provenance.iter_source_problems(spec, sdk_root))


def _tiny_spec(**schemas: Any) -> dict[str, Any]:
    return {"openapi": "3.1.0", "paths": {}, "components": {"schemas": schemas}}


# ----------------------------------------------------------------------------- the spec


def test_every_rule_of_the_spec_has_a_well_formed_source(sdk_root: Path) -> None:
    problems = _problems(load_spec(), sdk_root)
    assert not problems, (
        "give each rule an x-source in the same object (`together==3.1.1 <path> <Symbol>`, "
        "`docs:<page>`, `docs <page>`, `seed <file>`, `live <cassette>#<n>` or `emulator`; "
        "docs/provenance.md says which "
        "keywords are rules), then run `make provenance`:\n  " + "\n  ".join(problems)
    )


def test_the_walk_reaches_every_kind_of_place_a_rule_lives() -> None:
    """Inline parameter schemas, items, oneOf branches, request bodies, headers, component
    parameters, x-rules of operations and of schemas: a walk that skipped one would pass the
    test above without looking."""
    locations = {(rule.location, rule.keyword) for rule in provenance.iter_rules(load_spec())}
    expected = {
        ("listTrainingSessions query limit", "maximum"),
        ("listTrainingSessions query status[]", "enum"),
        ("downloadCheckpoint query variant", "required"),
        ("forwardBackward requestBody", "required"),
        ("forwardBackward", "x-rules"),
        ("parameters.IdempotencyKey", "required"),
        ("parameters.IdempotencyKey", "pattern"),
        ("parameters.IdempotencyKey", "x-rules"),
        ("headers.RetryAfter", "required"),
        ("Int64Value", "maximum"),
        ("Int64Value", "x-decimal-string"),
        ("TensorData.shape[]", "minimum"),
        ("ModelResourcesCreate.inactive_timeout", "x-server-default"),
        ("ErrorData.error", "required"),
        ("ErrorData", "x-rules"),
        ("LossFnInputs", "x-input-dtypes"),
        ("GRPOLossParams.beta", "x-requires-inputs-when-positive"),
        ("SampleBody", "additionalProperties"),
    }
    assert expected <= locations, sorted(expected - locations)


def test_path_parameters_are_not_counted_as_required_rules() -> None:
    rules = [r for r in provenance.iter_rules(load_spec()) if r.location.startswith("parameters.")]
    assert ("parameters.SessionId", "required") not in {(r.location, r.keyword) for r in rules}


# ----------------------------------------------------------------------------- the checks fail


def test_a_constraint_without_source_is_reported() -> None:
    body = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}
    spec = _tiny_spec(Body=body)
    assert _problems(spec, None) == ["Body.n: minimum 1 has no x-source"]


@pytest.mark.parametrize(
    ("schema", "keyword"),
    [
        ({"type": "object", "required": ["a"], "properties": {"a": {}}}, "required"),
        ({"type": "object", "additionalProperties": False}, "additionalProperties"),
        ({"type": "string", "enum": ["A"]}, "enum"),
        ({"type": "integer", "x-server-default": 3}, "x-server-default"),
        ({"type": "object", "x-tensor-length": "model_input"}, "x-tensor-length"),
        ({"type": "object", "x-some-new-rule": True}, "x-some-new-rule"),
        ({"type": "boolean", "default": False}, "default"),
    ],
)
def test_each_kind_of_rule_needs_a_source(schema: dict[str, Any], keyword: str) -> None:
    problems = _problems(_tiny_spec(Thing=schema), None)
    assert len(problems) == 1 and f"Thing: {keyword} " in problems[0], problems


def test_additional_properties_holding_a_schema_is_no_rule() -> None:
    spec = _tiny_spec(Map={"type": "object", "additionalProperties": {"type": "number"}})
    assert _problems(spec, None) == []


def test_rules_of_inline_parameters_bodies_and_headers_are_walked() -> None:
    spec: dict[str, Any] = {
        "paths": {
            "/things": {
                "get": {
                    "operationId": "listThings",
                    "parameters": [
                        {"name": "limit", "in": "query", "schema": {"maximum": 9}},
                        {"name": "X-Key", "in": "header", "required": True, "schema": {}},
                        {"name": "id", "in": "path", "required": True, "schema": {}},
                    ],
                    "requestBody": {"required": True, "content": {}},
                    "responses": {
                        "429": {
                            "description": "",
                            "headers": {"Retry-After": {"required": True, "schema": {}}},
                        }
                    },
                }
            }
        }
    }
    assert _problems(spec, None) == [
        "listThings query limit: maximum 9 has no x-source",
        "listThings header X-Key: required true has no x-source",
        "listThings requestBody: required true has no x-source",
        "listThings 429 header Retry-After: required true has no x-source",
    ]


def test_a_mapping_source_must_cover_every_rule_and_name_only_rules() -> None:
    schema = {
        "type": "integer",
        "minimum": 1,
        "maximum": 5,
        "x-source": {"minimum": "emulator", "pattern": "emulator"},
    }
    assert _problems(_tiny_spec(N=schema), None) == [
        "N: maximum 5 has no x-source",
        "#/components/schemas/N: x-source names 'pattern', which is not a rule of it",
    ]


def test_a_source_on_an_object_without_rules_is_reported() -> None:
    spec = _tiny_spec(Plain={"type": "string", "x-source": "emulator"})
    assert _problems(spec, None) == [
        "#/components/schemas/Plain: x-source 'emulator' sources no rule"
    ]


@pytest.mark.parametrize(
    "source",
    [
        "emulator ",
        "the emulator",
        "together==3.1.0 together/types/post_training/session.py Session",
        "together==3.1.1 session.py Session",
        "together==3.1.1 together/types/post_training/session.py",
        "docs",
        "docs example.com/page",
        "live run.jsonl",
        "live run.jsonl#first",
        "sdk",
    ],
)
def test_a_malformed_source_string_is_reported(source: str) -> None:
    spec = _tiny_spec(N={"type": "integer", "minimum": 0, "x-source": source})
    problems = _problems(spec, None)
    assert len(problems) == 1 and "is not one of" in problems[0], problems


@pytest.mark.parametrize(
    "source",
    [
        "emulator",
        f"{SDK}session.py Session",
        "docs docs.together.ai/docs/post-training/multi-lora",
        "docs docs/post-training/limits-and-errors",
        "docs:post-training/model-resources-create",
        "seed forward-backward-endpoint.txt",
    ],
)
def test_well_formed_sources_pass(source: str, sdk_root: Path) -> None:
    assert provenance.source_problem(source, sdk_root) is None


PAGE = "post-training/model-resources-extend-expiry"


def test_a_reference_page_has_one_spelling() -> None:
    source = f"docs https://docs.together.ai/reference/{PAGE}"
    problem = provenance.source_problem(source, None)
    assert problem == f"{source!r}: a reference page is written `docs:{PAGE}`"


def test_an_sdk_source_must_name_a_file_of_the_installed_sdk(sdk_root: Path) -> None:
    problem = provenance.source_problem(f"{SDK}no_such_module.py Session", sdk_root)
    assert problem is not None and "no file" in problem


@pytest.mark.parametrize(
    "symbol",
    ["NoSuchModel", "Session.no_such_field", "ModelResourcesClient.create"],
)
def test_an_sdk_source_must_name_symbols_of_that_file(symbol: str, sdk_root: Path) -> None:
    problem = provenance.source_problem(f"{SDK}session.py {symbol}", sdk_root)
    assert problem is not None and "does not appear" in problem, problem


def test_a_live_source_must_name_a_cassette_of_the_repository(tmp_path: Path) -> None:
    (tmp_path / "run.jsonl").write_text("{}\n", encoding="utf-8")
    assert provenance.source_problem("live run.jsonl#3", None, repo_root=tmp_path) is None
    problem = provenance.source_problem("live gone.jsonl#3", None, repo_root=tmp_path)
    assert problem is not None and "no cassette" in problem


def _x_rules_spec(entries: Any) -> dict[str, Any]:
    return _tiny_spec(Thing={"type": "object", "x-rules": entries})


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([{"rule": "Newest first."}], "has no x-source"),
        ([{"rule": "Newest first.", "x-source": "april"}], "is not one of"),
        ([{"rule": "", "x-source": "emulator"}], "has no rule text"),
        ([{"rule": "Capped.", "status": "200", "x-source": "emulator"}], "is not a 4xx code"),
        ([{"rule": "Capped.", "code": 429, "x-source": "emulator"}], "keys other than"),
        (["Newest first."], "is not a mapping"),
        ([], "is not a non-empty list"),
    ],
)
def test_a_bad_x_rules_entry_is_reported(entries: Any, expected: str) -> None:
    problems = _problems(_x_rules_spec(entries), None)
    assert any(expected in problem for problem in problems), problems


def test_a_good_x_rules_entry_passes() -> None:
    entry = {"rule": "One more session is refused.", "status": "429", "x-source": "emulator"}
    assert _problems(_x_rules_spec([entry]), None) == []


def test_removing_any_one_source_from_the_spec_is_caught() -> None:
    """Sample the spec's own sources: dropping one makes the check fail at that place."""
    spec = copy.deepcopy(load_spec())
    holders = list(_source_holders(spec))
    assert len(holders) > 100
    for node in holders[:: max(1, len(holders) // 25)]:
        saved = node.pop("x-source")
        try:
            assert _problems(spec, None), f"dropping x-source {saved!r} went unnoticed"
        finally:
            node["x-source"] = saved


def _source_holders(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        if "x-source" in node and "rule" not in node:
            yield node
        for key, value in node.items():
            if key not in ("x-source", "examples"):
                yield from _source_holders(value)
    elif isinstance(node, list):
        for value in node:
            yield from _source_holders(value)


# ----------------------------------------------------------------------------- the table


def test_the_provenance_table_is_fresh() -> None:
    expected = provenance.render_table(load_spec())
    page = REPO_ROOT / "docs" / "provenance.md"
    current = page.read_text(encoding="utf-8") if page.exists() else ""
    if current != expected:  # no diff of two long pages: the command says it all
        pytest.fail(
            "docs/provenance.md is not what `make provenance` writes from spec/openapi.yaml "
            "now: run `make provenance` and commit the result"
        )


def test_the_table_counts_every_rule_by_its_source_kind() -> None:
    spec = _tiny_spec(
        A={"type": "integer", "minimum": 0, "maximum": 9, "x-source": "emulator"},
        B={"type": "string", "enum": ["X"], "x-source": f"{SDK}session.py Session"},
        C={"type": "object", "x-rules": [{"rule": "Capped.", "x-source": "docs docs/a/b"}]},
        D={"type": "string", "maxLength": 8, "x-source": "docs:post-training/page"},
        E={"type": "boolean", "default": False, "x-source": "seed forward-backward-endpoint.txt"},
        F={"type": "string", "x-upstream-differs": "a note, not a rule"},
    )
    table = provenance.render_table(spec)
    assert "| SDK (`together==3.1.1 <path> <Symbol>`) | 1 | 0 | 1 |" in table
    assert "| reference docs (`docs:<page>`) | 1 | 0 | 1 |" in table
    assert "| guides (`docs <page>`) | 0 | 1 | 1 |" in table
    assert "| seed (`seed <file>`) | 1 | 0 | 1 |" in table
    assert "| live (`live <cassette>#<n>`) | 0 | 0 | 0 |" in table
    assert "| emulator | 2 | 0 | 2 |" in table
    assert "| total | 5 | 1 | 6 |" in table
    assert "(none)" not in table
    assert "| `A` | `maximum` | `9` | `emulator` |" in table
    assert "| `C` |  | Capped. | `docs docs/a/b` |" in table
