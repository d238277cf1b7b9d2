"""What a failed schemathesis check means, judged again on the request as it went over the wire.

schemathesis says that a check failed; the suite says what that is worth:

- against the embedded emulator, every failure is a failure;
- against any other server, a failure that breaks only rules of this project's choice
  (``x-source: emulator``) is a *difference*, with the rules, their sources and the evidence:
  negative data accepted (``negative_data_rejection``), a missing field required only by such a
  rule (``response_schema_conformance``), a missing header only such a rule requires
  (``missing_required_header``), another 4xx than the spec's (``status_code_conformance``, when the
  operation's status rules are all this project's choice). A breach of any rule with another
  source, or none, stays a failure;
- one narrow exception, for every target, where schemathesis itself is wrong: a
  ``negative_data_rejection`` whose invalid components are query parameters that the request as
  sent does not carry at all (an optional parameter schemathesis made an object serialises to
  nothing), while the request as sent is valid for the suite's own reading of the spec. The
  request is then valid, and accepting it is right.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlsplit

from schemathesis.engine import Status

from together_rl_contract_tests._results import DIFFERENCE, FAILED, PASSED, SKIPPED, CheckResult
from together_rl_contract_tests._spec import find_route
from together_rl_contract_tests._spec_check import (
    Problem,
    SpecJudge,
    installed_judge,
    only_emulator_choices,
)
from together_rl_contract_tests._target import Target
from together_rl_contract_tests.proxy._exchange import Exchange, parse_body
from together_rl_contract_tests.proxy._exchange_checks import check_exchange, request_problems

__all__ = ["failure_verdict", "format_error", "scenario_results", "wire_exchange"]

#: check name -> which of the request or response problems decide whether it is a difference.
_JUDGED_ON = {
    "negative_data_rejection": "request",
    "missing_required_header": "request",
    "response_schema_conformance": "response",
    "status_code_conformance": "response",
    "cross_field_rules": "request",
}
_INVALID_COMPONENT = re.compile(r"Invalid component: (.*?)(?:\s+-\s|$)", re.M)
_QUERY_NAMES = re.compile(r"`([^`]+)`")


def wire_exchange(interaction: Any) -> Exchange | None:
    """The request (and response) schemathesis sent and got, as the proxy would have seen it."""
    request = getattr(interaction, "request", None)
    if request is None:
        return None
    url = urlsplit(str(request.uri))
    response = getattr(interaction, "response", None)
    return Exchange(
        seq=0,
        method=str(request.method).upper(),
        path=url.path,
        query=url.query,
        request_headers=_headers(getattr(request, "headers", None)),
        request_body=bytes(request.body or b""),
        status=int(getattr(response, "status_code", 0) or 0),
        response_headers=_headers(getattr(response, "headers", None)),
        response_body=bytes(getattr(response, "content", b"") or b""),
        started=0.0,
        finished=0.0,
    )


def _headers(headers: Any) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    for name, value in dict(headers or {}).items():
        for item in value if isinstance(value, list) else [value]:
            pairs.append((str(name).lower(), str(item)))
    return pairs


def failure_verdict(
    check_name: str,
    message: str,
    interaction: Any,
    *,
    is_emulator: bool,
    judge: SpecJudge | None = None,
) -> tuple[str, str]:
    """``(status, note)`` of a failed check: FAILED, DIFFERENCE (note: the rules and their
    sources) or PASSED (note: why schemathesis was wrong)."""
    judge = judge or installed_judge()
    exchange = wire_exchange(interaction)
    route = None if exchange is None else find_route(exchange.method, exchange.path)
    if exchange is None or route is None:
        return FAILED, ""
    request = parse_body(exchange.request_body)
    if check_name == "negative_data_rejection" and _absent_query_components(
        message, exchange, request_problems(judge, exchange, route, request)
    ):
        return PASSED, "the invalid query parameters were not sent at all"
    side = _JUDGED_ON.get(check_name)
    if is_emulator or side is None:
        return FAILED, ""
    if side == "request":
        problems = request_problems(judge, exchange, route, request)
    else:
        problems = [
            Problem(v.field, v.message, v.rules)
            for v in check_exchange(exchange, route, request, judge=judge)
            if v.check == "response"
        ]
        if check_name == "status_code_conformance":
            problems = [p for p in problems if p.field == "HTTP status"]
    if not only_emulator_choices(problems):
        return FAILED, ""
    rules = sorted({rule.describe() for p in problems for rule in p.rules})
    broken = "; ".join(f"{p.field or 'body'}: {p.reason}" for p in problems)
    return DIFFERENCE, f"rules of this project's choice: {'; '.join(rules)}\nbroken: {broken}"


def _absent_query_components(message: str, exchange: Exchange, problems: list[Problem]) -> bool:
    """schemathesis named only query parameters as invalid, none of them is in the request as
    sent, and that request has no problem at all."""
    components = _INVALID_COMPONENT.findall(message)
    if not components or any(not c.endswith("in query") for c in components) or problems:
        return False
    names = {name for c in components for name in _QUERY_NAMES.findall(c)}
    sent = parse_qs(exchange.query, keep_blank_values=True)
    return bool(names) and not names & set(sent)


def scenario_results(recorder: Any, phase: str, target: Target) -> list[CheckResult]:
    results: list[CheckResult] = []
    for case_id, checks in recorder.checks.items():
        node = recorder.cases.get(case_id)
        label = node.value.operation.label if node is not None else recorder.label
        for check in checks:
            if check.status == Status.SUCCESS:
                results.append(CheckResult("schemathesis", label, check.name, PASSED))
            elif check.status == Status.FAILURE:
                interaction = recorder.interactions.get(case_id)
                info = check.failure_info
                message = getattr(getattr(info, "failure", None), "message", "") or ""
                status, note = failure_verdict(
                    check.name, message, interaction, is_emulator=target.is_emulator
                )
                detail = "" if status == PASSED else _format_failure(check, phase, interaction)
                if status == DIFFERENCE:
                    detail = f"{note}\nevidence:\n{detail}"
                results.append(CheckResult("schemathesis", label, check.name, status, detail))
            else:
                results.append(CheckResult("schemathesis", label, check.name, SKIPPED))
    return results


def _format_failure(check: Any, phase: str, interaction: Any) -> str:
    info = check.failure_info
    response = getattr(interaction, "response", None)
    answer = ""
    if response is not None:
        body = getattr(response, "content", b"") or b""
        text = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
        answer = f"\nResponse: {getattr(response, 'status_code', '?')} {text[:400]}"
    if info is None:
        return f"{check.name} failed ({phase} phase){answer}"
    failure = info.failure
    title = getattr(failure, "title", type(failure).__name__)
    message = getattr(failure, "message", "")
    code = getattr(failure, "code", "")
    return f"[{phase}] {title} ({code})\n{message}{answer}\nReproduce: {info.code_sample}".strip()


def format_error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
