"""Per-exchange conformance: is this request, and this response, what the spec describes?

Request: path, query and header parameters (``Idempotency-Key`` among them) and the JSON body.
Response: the status is documented for the operation, the body matches that status's schema,
and the documented headers (``Retry-After``) are present and valid.

The JSON Schema validation is the emulator's own (``jsonschema_rs`` over the spec's components,
errors reduced to a field path and a reason), so the proxy and the emulator judge a body alike.
"""

from __future__ import annotations

import functools
import json
from typing import Any
from urllib.parse import parse_qs

import jsonschema_rs
from together_rl_emulator._errors import ApiError
from together_rl_emulator._spec import resolve_ref
from together_rl_emulator._validation import _compile, _first_problem, validate_parameter

from contract_tests._exchange import NO_BODY, NOT_JSON, Exchange, Violation, parse_body
from contract_tests._spec_routes import Route, operation_spec

__all__ = ["check_exchange"]


def check_exchange(
    exchange: Exchange, route: Route, request: object = NO_BODY, response: object = NO_BODY
) -> list[Violation]:
    """Every way ``exchange`` departs from the spec's description of ``route``'s operation.

    ``request``/``response``: the bodies as ``parse_body`` gives them, when the caller has them
    already (parsing a large body costs more than validating it)."""
    if request is NO_BODY:
        request = parse_body(exchange.request_body)
    if response is NO_BODY:
        response = parse_body(exchange.response_body)
    found: list[tuple[str, str | None, str]] = []  # (check, field, message)
    found += [("request", f, m) for f, m in _request_problems(exchange, route, request)]
    found += [("response", f, m) for f, m in _response_problems(exchange, route, response)]
    return [Violation(c, route.operation_id, f, m, exchange.seq) for c, f, m in found]


# ----------------------------------------------------------------------------- request


def _request_problems(
    exchange: Exchange, route: Route, body: object
) -> list[tuple[str | None, str]]:
    operation = operation_spec(route.operation_id)
    problems: list[tuple[str | None, str]] = []
    query = parse_qs(exchange.query, keep_blank_values=True)
    declared_query = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
    for name in sorted(set(query) - declared_query):
        problems.append((f"query {name}", "is not a parameter of this operation"))
    for parameter in operation["parameters"]:
        name, where = parameter["name"], parameter["in"]
        raw: str | list[str] | None
        if where == "path":
            raw = route.path_params.get(name)
        elif where == "query":
            raw = query.get(name)
        elif where == "header":
            raw = exchange.header(name)
        else:
            continue
        try:
            validate_parameter(route.operation_id, name, raw)
        except ApiError as error:
            problems.append((f"{where} {name}", _reason(error)))
    problems += _body_problems(operation.get("requestBody"), body, "request")
    return problems


# ----------------------------------------------------------------------------- response


def _response_problems(
    exchange: Exchange, route: Route, body: object
) -> list[tuple[str | None, str]]:
    responses: dict[str, Any] = operation_spec(route.operation_id)["responses"]
    documented = responses.get(str(exchange.status)) or responses.get("default")
    if documented is None:
        listed = ", ".join(sorted(responses))
        return [
            ("HTTP status", f"{exchange.status} is not documented for this operation ({listed})")
        ]
    response = resolve_ref(documented)
    problems: list[tuple[str | None, str]] = []
    for name, header in (response.get("headers") or {}).items():
        header = resolve_ref(header)
        value = exchange.header(name, response=True)
        if value is None:
            if header.get("required"):
                problems.append((f"header {name}", f"is required with status {exchange.status}"))
            continue
        reason = _header_problem(header.get("schema") or {}, value)
        if reason is not None:
            problems.append((f"header {name}", reason))
    problems += _body_problems(response, body, "response", required=False)
    return problems


def _header_problem(schema: dict[str, Any], text: str) -> str | None:
    value: object = text
    if resolve_ref(schema).get("type") == "integer":
        try:
            value = int(text.strip())
        except ValueError:
            return f"expected an integer, got {text!r}"
    problem = _first_problem(_validator_for(_frozen(schema)), value)
    return None if problem is None else problem[1]


# ----------------------------------------------------------------------------- bodies


def _body_problems(
    declared: dict[str, Any] | None, document: object, what: str, *, required: bool | None = None
) -> list[tuple[str | None, str]]:
    """Problems of a request or response body against a requestBody / response object."""
    if declared is None:
        return []
    declared = resolve_ref(declared)
    content = declared.get("content") or {}
    media = content.get("application/json")
    if media is None or "schema" not in media:
        return []
    if document is NO_BODY:
        must = declared.get("required", False) if required is None else required
        return [("body", f"the {what} has no body; the spec requires one")] if must else []
    if document is NOT_JSON:
        return [("body", f"the {what} body is not JSON")]
    problem = _first_problem(_validator_for(_frozen(media["schema"])), document)
    if problem is None:
        return []
    field, reason = problem
    return [(field or "body", reason)]


def _frozen(schema: dict[str, Any]) -> str:
    return json.dumps(schema, sort_keys=True)


@functools.cache
def _validator_for(schema_json: str) -> jsonschema_rs.Validator:
    return _compile(json.loads(schema_json))


def _reason(error: ApiError) -> str:
    prefix = f"{error.param}: "
    return error.message[len(prefix) :] if error.message.startswith(prefix) else error.message
