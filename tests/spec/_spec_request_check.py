"""Check one HTTP request against the spec: the operation its method and path call, bearer
auth, path/header/query parameters and the JSON body against the spec's schemas (which refuse
unknown fields). Shared by the capture tests of the official SDK (`test_sdk_capture.py`) and of
its Tinker-compatible layer (`test_sdk_capture_tinker.py`).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from _sdk_responses import API_KEY
from _spec_schema import Operation, match_operation, resolve, validator_for

__all__ = ["check_request", "schema_errors"]


def schema_errors(schema: dict[str, Any], value: Any) -> list[str]:
    return [
        f"{'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message}"
        for e in validator_for(schema).iter_errors(value)
    ]


def check_request(request: httpx.Request) -> tuple[Operation, Any]:
    """Validate one captured request against the spec; returns its operation and JSON body."""
    operation, path_params = match_operation(request.method, request.url.path)
    where = f"{request.method} {request.url.path} ({operation.operation_id})"
    problems: list[str] = []

    assert request.headers.get("authorization") == f"Bearer {API_KEY}", f"{where}: no bearer auth"

    params = operation.parameters()
    for param in (p for p in params if p["in"] == "path"):
        problems += [
            f"path {param['name']}: {e}"
            for e in schema_errors(param["schema"], path_params[param["name"]])
        ]
    for param in (p for p in params if p["in"] == "header"):
        value = request.headers.get(param["name"])
        if value is None:
            if param.get("required"):
                problems.append(f"required header {param['name']} missing")
            continue
        problems += [f"header {param['name']}: {e}" for e in schema_errors(param["schema"], value)]

    query_params = {p["name"]: p for p in params if p["in"] == "query"}
    for name in request.url.params:
        if name not in query_params:
            problems.append(f"query parameter {name!r} is not in the spec")
            continue
        schema = resolve(query_params[name]["schema"])
        values = request.url.params.get_list(name)
        if schema.get("type") == "array":
            assert query_params[name].get("style", "form") == "form"
            explode = query_params[name].get("explode", True)
            items = values if explode else [item for value in values for item in value.split(",")]
            problems += [f"query {name}: {e}" for e in schema_errors(schema, items)]
        else:
            assert len(values) == 1, f"{where}: query {name} repeated"
            value: Any = values[0]
            if schema.get("type") == "integer":
                value = int(value)
            elif schema.get("type") == "boolean":  # sent as `true`/`false` (docs/wire-facts.md §0)
                assert value in ("true", "false"), f"{where}: query {name}={value!r}"
                value = value == "true"
            problems += [f"query {name}: {e}" for e in schema_errors(schema, value)]

    body: Any = None
    body_schema = operation.request_body_schema()
    if body_schema is None:
        if request.content:
            problems.append(f"the spec defines no body but the SDK sent {request.content[:200]!r}")
    else:
        assert request.headers.get("content-type", "").startswith("application/json"), where
        body = json.loads(request.content)
        problems += [f"body {e}" for e in schema_errors(body_schema, body)]

    assert not problems, f"{where} does not match the spec:\n  " + "\n  ".join(problems)
    return operation, body
