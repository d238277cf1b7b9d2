"""The generated client: fresh (regenerating gives `generated/` byte for byte), round-trips every
valid example and the spec's examples, and survives enum values from a newer server."""

from __future__ import annotations

import datetime
import difflib
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from _sdk_responses import ALTERNATIVE_RESPONSES, RESPONSES
from _spec_schema import (
    REPO_ROOT,
    ValidExample,
    load_spec,
    operation_by_id,
    operations,
    resolve,
    valid_examples,
)
from ci_policy import missing
from together_rl_client import models
from together_rl_client.api.rl import get_forward_backward_operation
from together_rl_client.client import AuthenticatedClient

GENERATED = REPO_ROOT / "generated" / "together_rl_client"
IGNORED_PARTS = {".ruff_cache", "__pycache__"}
MAX_DIFF_FILES = 3
MAX_DIFF_LINES = 120


# ----------------------------------------------------------------------------- freshness


def _makefile_generate_command() -> str:
    """The `openapi-python-client generate` command of `make generate`, as make expands it."""
    if shutil.which("make") is None:
        missing("make not found: the freshness check runs the Makefile's generate command")
    dry_run = subprocess.run(
        ["make", "--no-print-directory", "-n", "generate"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    commands = re.sub(r"\\\n\s*", " ", dry_run).splitlines()
    generate = [c for c in commands if "openapi-python-client generate" in c]
    assert len(generate) == 1, f"expected one generate command in `make -n generate`:\n{dry_run}"
    return generate[0]


def _tree(root: Path) -> dict[str, bytes]:
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and not IGNORED_PARTS & set(path.relative_to(root).parts)
    }


def _readable_diff(committed: dict[str, bytes], fresh: dict[str, bytes]) -> str:
    lines: list[str] = []
    only_committed = sorted(set(committed) - set(fresh))
    only_fresh = sorted(set(fresh) - set(committed))
    if only_committed:
        lines.append(f"only in generated/ (would be deleted): {only_committed}")
    if only_fresh:
        lines.append(f"missing from generated/ (would be created): {only_fresh}")
    changed = sorted(name for name in set(committed) & set(fresh) if committed[name] != fresh[name])
    for name in changed[:MAX_DIFF_FILES]:
        diff = difflib.unified_diff(
            committed[name].decode("utf-8", "replace").splitlines(),
            fresh[name].decode("utf-8", "replace").splitlines(),
            f"generated/together_rl_client/{name}",
            f"regenerated/{name}",
            lineterm="",
        )
        lines.extend(list(diff)[:MAX_DIFF_LINES])
    if len(changed) > MAX_DIFF_FILES:
        rest = changed[MAX_DIFF_FILES:]
        lines.append(f"... and {len(rest)} more changed files: {rest}")
    return "\n".join(lines)


def test_generated_client_is_fresh(tmp_path: Path) -> None:
    output = tmp_path / "together_rl_client"
    command, count = re.subn(
        r"--output-path\s+\S+", f"--output-path {output}", _makefile_generate_command()
    )
    assert count == 1, command
    result = subprocess.run(
        ["bash", "-c", command], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, (
        f"generation failed:\n{command}\n{result.stdout}\n{result.stderr}"
    )
    committed, fresh = _tree(GENERATED), _tree(output)
    assert committed == fresh, (
        "generated/ is stale: run `make generate` and commit the result.\n"
        + _readable_diff(committed, fresh)
    )


# ----------------------------------------------------------------------------- round trips

VALID = valid_examples()
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$")


def _normalise_datetimes(value: Any) -> Any:
    """`to_dict` writes `isoformat()`, so `Z` comes back as `+00:00`: compare instants, not text."""
    if isinstance(value, dict):
        return {key: _normalise_datetimes(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_normalise_datetimes(item) for item in value]
    if isinstance(value, str) and _DATE_TIME.match(value):
        return datetime.datetime.fromisoformat(value)
    return value


def _model(schema_name: str) -> Any:
    return getattr(models, schema_name)


@pytest.mark.parametrize("example", VALID, ids=[e.path.name.removesuffix(".json") for e in VALID])
def test_generated_model_round_trips_valid_example(example: ValidExample) -> None:
    model = _model(example.schema).from_dict(example.body)
    assert model.to_dict() == example.body


def _spec_examples() -> list[tuple[str, str, Any]]:
    """(where, schema name, value) of every request and response example in the spec."""
    found = []
    for op in operations():
        where = f"{op.method} {op.path_template}"
        places = [("requestBody", op.spec.get("requestBody"))]
        places += [(status, resp) for status, resp in op.spec["responses"].items()]
        for place, raw in places:
            if raw is None:
                continue
            media = resolve(raw).get("content", {}).get("application/json", {})
            ref = media.get("schema", {}).get("$ref", "")
            for name, example in media.get("examples", {}).items():
                schema_name = ref.rsplit("/", 1)[-1]
                found.append((f"{where} {place} {name}", schema_name, resolve(example)["value"]))
    return found


SPEC_EXAMPLES = _spec_examples()


def test_spec_has_examples_to_round_trip() -> None:
    assert SPEC_EXAMPLES
    assert all(schema for _, schema, _ in SPEC_EXAMPLES), SPEC_EXAMPLES


@pytest.mark.parametrize(
    ("where", "schema", "value"), SPEC_EXAMPLES, ids=[w for w, _, _ in SPEC_EXAMPLES]
)
def test_generated_model_round_trips_spec_example(where: str, schema: str, value: Any) -> None:
    model = _model(schema).from_dict(value)
    assert _normalise_datetimes(model.to_dict()) == _normalise_datetimes(value)


def _fixture_responses() -> list[tuple[str, str, Any]]:
    """(operation, response schema name, body) of every answer of the SDK capture's mock."""
    found = []
    for operation_id, body in [*RESPONSES.items(), *ALTERNATIVE_RESPONSES]:
        schema = operation_by_id(operation_id).response_schema("200")
        assert schema is not None and "$ref" in schema, operation_id
        found.append((operation_id, schema["$ref"].rsplit("/", 1)[-1], body))
    return found


FIXTURE_RESPONSES = _fixture_responses()


@pytest.mark.parametrize(
    ("operation_id", "schema", "value"),
    FIXTURE_RESPONSES,
    ids=[f"{op}-{i}" for i, (op, _, _) in enumerate(FIXTURE_RESPONSES)],
)
def test_generated_model_round_trips_operation_responses(
    operation_id: str, schema: str, value: Any
) -> None:
    """Also the responses the spec has no example of: every operation kind, offloaded results
    (`payload_id`) and the payload URLs."""
    model = _model(schema).from_dict(value)
    assert _normalise_datetimes(model.to_dict()) == _normalise_datetimes(value)


# ----------------------------------------------------------------------------- unknown enums

UNKNOWN_ENUM_CASES = [
    (
        "ForwardBackwardOperation",
        {
            "id": "op-1",
            "status": "TRAINING_OPERATION_STATUS_FAILED",
            "error": {"code": "TRAINING_OPERATION_ERROR_CODE_PREEMPTED", "message": "m"},
        },
        ("error", "code"),
    ),
    (
        "ForwardBackwardOperation",
        {
            "id": "op-1",
            "status": "TRAINING_OPERATION_STATUS_COMPLETED",
            "output": {
                "loss": 1.0,
                "loss_fn_outputs": [
                    {"tensors": {"logprobs": {"data": [0.0], "dtype": "bfloat16"}}}
                ],
            },
        },
        ("output", "loss_fn_outputs", 0, "tensors", "logprobs", "dtype"),
    ),
    (
        "SupportedModel",
        {"base_model": "m", "default_gpu_type": "H200-141GB"},
        ("default_gpu_type",),
    ),
]


def _enum_spec_values() -> set[str]:
    return {
        value
        for schema in load_spec()["components"]["schemas"].values()
        for value in schema.get("enum", [])
    }


@pytest.mark.parametrize(("schema", "payload", "where"), UNKNOWN_ENUM_CASES)
def test_unknown_enum_value_parses_and_serialises_unchanged(
    schema: str, payload: dict[str, Any], where: tuple[str | int, ...]
) -> None:
    received: Any = payload
    for key in where:
        received = received[key]
    assert received not in _enum_spec_values(), "the case must use a value the spec does not know"
    parsed = _model(schema).from_dict(payload)
    assert parsed.to_dict() == payload
    member: Any = parsed
    for key in where:
        # Lists and additional-properties maps (`tensors`) are indexed; fields are attributes.
        member = (
            getattr(member, key) if isinstance(key, str) and hasattr(member, key) else member[key]
        )
    # The parsed value is an enum member whose value is the string received.
    assert member == received and member.value == received and str(member) == received


def test_an_operation_status_is_an_open_string() -> None:
    """An operation's `status` is `OperationStatusValue` (an open string), so every generator,
    this one included, reads a status it does not know as the string received."""
    payload = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_QUEUED"}
    parsed = models.ForwardBackwardOperation.from_dict(payload)
    assert parsed.status == "TRAINING_OPERATION_STATUS_QUEUED" and type(parsed.status) is str
    assert parsed.to_dict() == payload


def test_known_enum_values_still_parse_to_their_members() -> None:
    status = models.OperationStatus("TRAINING_OPERATION_STATUS_PENDING")
    assert status is models.OperationStatus.TRAINING_OPERATION_STATUS_PENDING
    unknown = models.OperationStatus("TRAINING_OPERATION_STATUS_QUEUED")
    assert unknown.name == "UNKNOWN" and unknown not in list(models.OperationStatus)


def test_generated_api_parses_an_unknown_status_from_the_wire() -> None:
    body = {"id": "op-1", "status": "TRAINING_OPERATION_STATUS_QUEUED"}

    def handler(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer k"
        return httpx.Response(200, json=body)

    client = AuthenticatedClient(
        base_url="http://testserver/v1",
        token="k",
        httpx_args={"transport": httpx.MockTransport(handler)},
    )
    with client:
        parsed = get_forward_backward_operation.sync(
            session_id="s-1", operation_id="op-1", client=client
        )
    assert isinstance(parsed, models.ForwardBackwardOperation)
    assert parsed.status == "TRAINING_OPERATION_STATUS_QUEUED"
    assert parsed.to_dict() == body
