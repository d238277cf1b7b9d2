"""A check of another server never blames it for this project's choices: a breach of a rule whose
`x-source` is `emulator` is a difference (with the rule, its source and the evidence), a breach of
a sourced rule a failure. Judged with a copy of the spec whose sources the test sets itself, so
the outcome does not move when the spec's sources do."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import httpx
import orjson
from together_rl_contract_tests import SuiteOptions, Target, _pytest_plugin, run_suite
from together_rl_contract_tests._http import StatusRuleBreach, expect_status_rule
from together_rl_contract_tests._pytest_plugin import ResultCollector
from together_rl_contract_tests._results import DIFFERENCE, FAILED, CheckResult
from together_rl_contract_tests._schemathesis_verdict import failure_verdict
from together_rl_contract_tests._spec import spec
from together_rl_contract_tests._spec_check import Rule, SpecJudge
from together_rl_contract_tests.proxy._forwarding import read_body
from together_rl_contract_tests.proxy._in_thread import RunningProxy, proxy_in_thread
from together_rl_emulator import create_app, serve_in_thread

from ._broken import ASGIApp, Receive, Scope, Send, _replay, _Rewriter

KEY = "differences-key"
SDK = "together==3.1.1 together/types/post_training/model_resources.py ModelResources"
CREATE = "/v1/rl/model-resources"
#: Below the spec's minimum of 300 (the rule this test makes the project's own choice).
SHORT_TIMEOUT = 120


def _judge() -> SpecJudge:
    """The spec, with `inactive_timeout`'s bounds this project's choice and `ModelResources`'
    required fields sourced from the official SDK."""
    document = copy.deepcopy(spec())
    schemas = document["components"]["schemas"]
    create = schemas["ModelResourcesCreate"]["properties"]["inactive_timeout"]
    create["x-source"] = "emulator"
    schemas["ModelResources"]["x-source"] = {"required": SDK}
    return SpecJudge(document)


class AcceptsShortTimeout:
    """Relaxes one emulator rule: a create request with a short `inactive_timeout` is accepted
    (the emulator behind it is given the minimum instead)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and scope["path"] == CREATE:
            body = orjson.loads(await read_body(receive))
            body["inactive_timeout"] = max(body.get("inactive_timeout", 300), 300)
            receive = _replay(orjson.dumps(body))
        await self.app(scope, receive, send)


class DropsStatus:
    """Breaks a sourced rule: model resources come back without `status` (SDK: required)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == CREATE:
            send = _Rewriter(send, _without_status).send
        await self.app(scope, receive, send)


def _without_status(document: Any) -> Any:
    return {k: v for k, v in document.items() if k != "status"}


@contextmanager
def _proxied(wrap: Any) -> Iterator[RunningProxy]:
    app = create_app(api_keys=[KEY], seed=0)
    server = serve_in_thread(wrap(app), on_stop=app.emulator.close)
    try:
        with proxy_in_thread(server.base_url, judge=_judge()) as proxy:
            yield proxy
    finally:
        server.stop()


def _create(proxy: RunningProxy, body: dict[str, Any]) -> httpx.Response:
    headers = {"Authorization": f"Bearer {KEY}"}
    return httpx.post(f"{proxy.base_url}{CREATE}", json=body, headers=headers, timeout=30)


BODY = {"base_model": "emulator/tiny-1k", "lora_enabled": True}


def test_a_server_relaxing_an_emulator_rule_passes_with_one_difference() -> None:
    with _proxied(AcceptsShortTimeout) as proxy:
        response = _create(proxy, {**BODY, "inactive_timeout": SHORT_TIMEOUT})
    assert response.status_code == 200, response.text
    monitor = proxy.monitor
    assert monitor.violations == [], [v.line() for v in monitor.violations]
    assert len(monitor.differences) == 1, [v.line() for v in monitor.differences]
    difference = monitor.differences[0]
    assert difference.field == "body" or "inactive_timeout" in (difference.field or "")
    assert [r.keyword for r in difference.rules] == ["minimum"]
    assert difference.rules[0].source == "emulator"
    assert "ModelResourcesCreate/properties/inactive_timeout" in difference.rules[0].where
    line = difference.line()
    assert (
        line.startswith("DIFFERENCE [request] createModelResources")
        and "x-source: emulator" in line
    )


def test_a_server_breaking_a_sourced_rule_fails() -> None:
    with _proxied(DropsStatus) as proxy:
        response = _create(proxy, BODY)
    assert response.status_code == 200, response.text
    monitor = proxy.monitor
    assert monitor.differences == []
    broken = [v for v in monitor.violations if v.field == "status"]
    assert len(broken) == 1, [v.line() for v in monitor.violations]
    assert broken[0].rules[0].source == SDK
    assert broken[0].line().startswith("VIOLATION [response] createModelResources")


def _interaction(body: dict[str, Any], status: int = 200, answer: bytes = b"{}") -> Any:
    request = SimpleNamespace(
        method="POST", uri=f"http://127.0.0.1:1{CREATE}", body=orjson.dumps(body), headers={}
    )
    response = SimpleNamespace(status_code=status, headers={}, content=answer)
    return SimpleNamespace(request=request, response=response)


def test_schemathesis_negative_data_accepted_is_a_difference_only_off_the_emulator() -> None:
    """`make conformance`: what schemathesis reports as a failure, judged again."""
    judge = _judge()
    relaxed = _interaction({**BODY, "inactive_timeout": SHORT_TIMEOUT})
    status, note = failure_verdict(
        "negative_data_rejection", "", relaxed, is_emulator=False, judge=judge
    )
    assert status == DIFFERENCE
    assert "`minimum`" in note and "x-source: emulator" in note and "inactive_timeout" in note
    # Against the embedded emulator every breach is a failure, as before.
    embedded = failure_verdict(
        "negative_data_rejection", "", relaxed, is_emulator=True, judge=judge
    )
    assert embedded[0] == FAILED
    # A body that breaks a rule with another source (here: a type) stays a failure.
    typed = _interaction({**BODY, "inactive_timeout": "soon"})
    assert (
        failure_verdict("negative_data_rejection", "", typed, is_emulator=False, judge=judge)[0]
        == FAILED
    )


def test_schemathesis_missing_sourced_field_is_a_failure() -> None:
    judge = _judge()
    answer = orjson.dumps({"id": "mr-1"})
    missing = _interaction(BODY, answer=answer)
    status, _ = failure_verdict(
        "response_schema_conformance", "", missing, is_emulator=False, judge=judge
    )
    assert status == FAILED
    # The same fields required by this project's choice only: a difference.
    document = copy.deepcopy(judge.document)
    document["components"]["schemas"]["ModelResources"]["x-source"] = {"required": "emulator"}
    status, note = failure_verdict(
        "response_schema_conformance", "", missing, is_emulator=False, judge=SpecJudge(document)
    )
    assert status == DIFFERENCE, note


def _scenario_outcome(target: Target, rules: list[Rule], answered: int = 400) -> CheckResult:
    """What the collector makes of a scenario test that expected a 409 from a status rule whose
    entries are ``rules`` and got ``answered``."""
    collector = ResultCollector(target)
    nodeid = "contract_tests/together_rl_contract_tests/test_x.py::test_stop_is_409"
    response = httpx.Response(answered, text="refused", request=httpx.Request("POST", "http://x/"))
    try:
        expect_status_rule(response, 409, "stopModelResources")
    except AssertionError as error:
        failure = error
    if isinstance(failure, StatusRuleBreach):
        collector._breached[nodeid] = rules  # what the hook records for a StatusRuleBreach
    report = SimpleNamespace(
        when="call", passed=False, skipped=False, failed=True, nodeid=nodeid,
        longrepr=None, longreprtext=f"{type(failure).__name__}: {failure}",
    )  # fmt: skip
    collector.pytest_runtest_logreport(report)  # type: ignore[arg-type]
    return collector.results[-1]


def test_another_4xx_than_an_emulator_status_rule_is_a_difference_off_the_emulator() -> None:
    chosen = [Rule("x-rules: a stop with running sessions is 409", "#/paths/x", "emulator")]
    sourced = [Rule("x-rules: a stop with running sessions is 409", "#/paths/x", SDK)]
    other = Target(base_url="http://127.0.0.1:9", api_key="k")
    embedded = Target(base_url="http://127.0.0.1:9", api_key="k", is_emulator=True)
    difference = _scenario_outcome(other, chosen)
    assert difference.status == DIFFERENCE
    assert "x-source: emulator" in difference.detail and "got 400" in difference.detail
    assert _scenario_outcome(embedded, chosen).status == FAILED
    assert _scenario_outcome(other, sourced).status == FAILED
    assert _scenario_outcome(other, []).status == FAILED
    # Accepted where the rule refuses: a failure against every target, never a difference.
    assert _scenario_outcome(other, chosen, answered=200).status == FAILED


def _status_rules_spec(create_400_source: str) -> SpecJudge:
    """A spec copy with status rules on an operation, a shared parameter and the error schema."""
    document = copy.deepcopy(spec())
    components = document["components"]
    components["parameters"]["IdempotencyKey"]["x-rules"] = [
        {"rule": "The same key with another body is refused.", "status": "422",
         "x-source": "emulator"},
    ]  # fmt: skip
    components["schemas"]["ErrorData"]["x-rules"] = [
        {"rule": "A wrong request is refused with 400.", "status": "400", "x-source": "emulator"},
        {"rule": "Every error has this envelope.", "x-source": SDK},  # no status: not counted
    ]
    document["paths"]["/rl/model-resources"]["post"]["x-rules"] = [
        {"rule": "An unknown base model is refused.", "status": "400",
         "x-source": create_400_source},
    ]  # fmt: skip
    return SpecJudge(document)


def test_status_rules_come_from_the_operation_its_parameters_and_its_error_schema() -> None:
    judge = _status_rules_spec("emulator")
    (reuse,) = judge.status_rules("forwardBackward", 422)
    assert reuse.where == "#/components/parameters/IdempotencyKey/x-rules/0"
    wheres = sorted(rule.where for rule in judge.status_rules("createModelResources", 400))
    assert wheres == [
        "#/components/schemas/ErrorData/x-rules/0",
        "#/paths/~1rl~1model-resources/post/x-rules/0",
    ]


def test_an_undocumented_4xx_is_a_difference_only_when_every_status_rule_is_ours() -> None:
    """Another 4xx than the spec's (422 where the spec says 400)."""
    refused = _interaction({**BODY, "base_model": "no/such-model"}, status=422, answer=b"{}")
    ours = _status_rules_spec("emulator")
    status, note = failure_verdict(
        "status_code_conformance", "", refused, is_emulator=False, judge=ours
    )
    assert status == DIFFERENCE and "422 is not documented" in note, note
    sourced = _status_rules_spec(SDK)
    assert (
        failure_verdict("status_code_conformance", "", refused, is_emulator=False, judge=sourced)[0]
        == FAILED
    )


class RefusesBadKeysWith403:
    """Answers 403 where the spec's status rule (made this project's choice here) says 401."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            send = _StatusRewriter(send, 401, 403).send
        await self.app(scope, receive, send)


class _StatusRewriter:
    def __init__(self, send: Send, old: int, new: int) -> None:
        self._send, self._old, self._new = send, old, new

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start" and message["status"] == self._old:
            message = {**message, "status": self._new}
        await self._send(message)


def test_a_server_answering_another_4xx_passes_the_scenario_with_differences(
    serve_emulator: Any, monkeypatch: Any
) -> None:
    """End to end: the suite's scenario tests against a non-emulator server (a wrapped emulator
    run as an external target) whose bad-key answer is 403; the 401 rule is this project's
    choice in the spec copy the collector judges with."""
    document = copy.deepcopy(spec())
    document["components"]["schemas"]["ErrorData"]["x-rules"] = [
        {"rule": "A missing or unknown bearer key is refused with 401.", "status": "401",
         "x-source": "emulator"},
    ]  # fmt: skip
    monkeypatch.setattr(_pytest_plugin, "installed_judge", lambda: SpecJudge(document))
    options = SuiteOptions(
        schemathesis=False, scenario_modules=("test_auth.py",),
        pytest_args=("-k", "test_bad_auth_is_401_with_json_error"), progress=False,
    )  # fmt: skip
    with serve_emulator(RefusesBadKeysWith403) as embedded:
        target = dataclasses.replace(embedded, is_emulator=False, allow_mutations=True)
        suite = run_suite(target, options)
    scenario = [r for r in suite.results if r.part == "scenario"]
    assert scenario and all(r.status == DIFFERENCE for r in scenario), [
        (r.check, r.status, r.detail[:200]) for r in scenario
    ]
    assert suite.verdict == "PASSED" and suite.differences == len(scenario)
    assert "got 403" in scenario[0].detail and "x-source: emulator" in scenario[0].detail
