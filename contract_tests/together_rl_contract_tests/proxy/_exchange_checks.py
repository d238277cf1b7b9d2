"""Per-exchange conformance: is this request, and this response, what the spec describes?

Request: path, query and header parameters (``Idempotency-Key`` among them) and the JSON body.
Response: the status is documented for the operation, the body matches that status's schema,
and the documented headers (``Retry-After``) are present and valid.

The judgement is the suite's own (:mod:`together_rl_contract_tests._spec_check`), never the
emulator's. Each violation carries the rules it breaks with their ``x-source``; one that breaks only
rules of this project's choice is a difference (:attr:`Violation.difference`), as is an undocumented
4xx status of an operation whose status rules are all this project's choice.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from together_rl_contract_tests._spec import Route
from together_rl_contract_tests._spec_check import Problem, SpecJudge, installed_judge
from together_rl_contract_tests.proxy._exchange import (
    NO_BODY,
    NOT_JSON,
    Exchange,
    Violation,
    parse_body,
)

__all__ = ["check_exchange", "request_problems"]


def check_exchange(
    exchange: Exchange,
    route: Route,
    request: object = NO_BODY,
    response: object = NO_BODY,
    judge: SpecJudge | None = None,
) -> list[Violation]:
    """Every way ``exchange`` departs from the spec's description of ``route``'s operation.

    ``request``/``response``: the bodies as ``parse_body`` gives them, when the caller has them
    already (parsing a large body costs more than validating it)."""
    judge = judge or installed_judge()
    if request is NO_BODY:
        request = parse_body(exchange.request_body)
    if response is NO_BODY:
        response = parse_body(exchange.response_body)
    found = [("request", p) for p in request_problems(judge, exchange, route, request)]
    found += [("response", p) for p in _response_problems(judge, exchange, route, response)]
    return [
        Violation(check, route.operation_id, p.field, p.reason, exchange.seq, p.rules)
        for check, p in found
    ]


# ----------------------------------------------------------------------------- request


def request_problems(
    judge: SpecJudge, exchange: Exchange, route: Route, body: object
) -> list[Problem]:
    """Every problem of the request as it went over the wire."""
    operation = judge.operation(route.operation_id)
    problems: list[Problem] = []
    query = parse_qs(exchange.query, keep_blank_values=True)
    declared_query = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
    for name in sorted(set(query) - declared_query):
        problems.append(Problem(f"query {name}", "is not a parameter of this operation"))
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
        for problem in judge.parameter_problems(route.operation_id, parameter, raw):
            problems.append(Problem(f"{where} {name}", problem.reason, problem.rules))
    problems += _body_problems(judge, operation.get("requestBody"), body, "request")
    return problems


# ----------------------------------------------------------------------------- response


def _response_problems(
    judge: SpecJudge, exchange: Exchange, route: Route, body: object
) -> list[Problem]:
    responses: dict[str, Any] = judge.operation(route.operation_id)["responses"]
    documented = responses.get(str(exchange.status)) or responses.get("default")
    if documented is None:
        listed = ", ".join(sorted(responses))
        reason = f"{exchange.status} is not documented for this operation ({listed})"
        rules = judge.status_rules(route.operation_id) if 400 <= exchange.status < 500 else []
        return [Problem("HTTP status", reason, tuple(rules))]
    response = judge.resolve(documented)
    problems: list[Problem] = []
    for name, header in (response.get("headers") or {}).items():
        header = judge.resolve(header)
        value = exchange.header(name, response=True)
        if value is None:
            if header.get("required"):
                reason = f"is required with status {exchange.status}"
                problems.append(Problem(f"header {name}", reason))
            continue
        problems += _header_problems(judge, header.get("schema") or {}, value, name)
    problems += _body_problems(judge, response, body, "response", required=False)
    return problems


def _header_problems(
    judge: SpecJudge, schema: dict[str, Any], text: str, name: str
) -> list[Problem]:
    value: object = text
    if judge.resolve(schema).get("type") == "integer":
        try:
            value = int(text.strip())
        except ValueError:
            return [Problem(f"header {name}", f"expected an integer, got {text!r}")]
    found = judge.value_problems(schema, value)
    return [Problem(f"header {name}", p.reason, p.rules) for p in found[:1]]


# ----------------------------------------------------------------------------- bodies


def _body_problems(
    judge: SpecJudge,
    declared: dict[str, Any] | None,
    document: object,
    what: str,
    *,
    required: bool | None = None,
) -> list[Problem]:
    """Problems of a request or response body against a requestBody / response object."""
    if declared is None:
        return []
    declared = judge.resolve(declared)
    media = (declared.get("content") or {}).get("application/json")
    if media is None or "schema" not in media:
        return []
    if document is NO_BODY:
        must = declared.get("required", False) if required is None else required
        return [Problem("body", f"the {what} has no body; the spec requires one")] if must else []
    if document is NOT_JSON:
        return [Problem("body", f"the {what} body is not JSON")]
    found = judge.value_problems(media["schema"], document)
    if not found:
        return []
    # One line per exchange as before, unless every problem is a difference: then each is kept,
    # so that a sourced problem is never hidden behind an emulator choice.
    if all(p.emulator_choice for p in found):
        return [Problem(p.field or "body", p.reason, p.rules) for p in found]
    first = next(p for p in found if not p.emulator_choice)
    return [Problem(first.field or "body", first.reason, first.rules)]
