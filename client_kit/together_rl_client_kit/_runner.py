"""Running the kit: start the emulator and the referee in front of it, start the driver, run
each scenario (a fresh session, the faults armed, the calls sent to the driver), judge it from
the trace: its rules, then its `expect`. A failure of the kit itself (its setup, a rule that
crashes) is a KIT_ERROR with the traceback, never a verdict on the driver. The emulator, the
referee and the driver are always stopped, whatever happens."""

from __future__ import annotations

import contextlib
import secrets
import time
import traceback
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from . import _spec
from ._answer_checks import expect_problem
from ._driver import Declaration, DriverError, DriverProcess
from ._referee import Referee
from ._report import KIT_ERROR, KitReport, ScenarioResult
from ._rules import check_rule
from ._types import Call, CallRecord, Scenario

__all__ = ["KitOptions", "run_kit"]

_MAX_ATTEMPT_LINES = 16


@dataclass(frozen=True)
class KitOptions:
    #: Seconds the driver has to answer one call (retries and polling included).
    call_timeout: float = 30.0
    #: Seconds the driver has to write its declaration after it starts.
    handshake_timeout: float = 30.0
    #: Restarts of a driver that crashed, hung or garbled its output, before the rest FAIL.
    max_restarts: int = 3
    #: Only these scenario ids run; the others are reported NOT_RUN.
    only: frozenset[str] | None = None
    cwd: str | None = None


@contextlib.contextmanager
def _emulator(api_key: str) -> Iterator[str]:
    # The emulator's public surface only: a judge never imports the code it judges.
    from together_rl_emulator import serve_emulator

    with serve_emulator(api_keys=[api_key], seed=0) as server:
        yield server.base_url


class _Driver:
    """The driver process, restarted after a misbehaviour (up to ``max_restarts`` times)."""

    def __init__(self, command: str, env: dict[str, str], options: KitOptions) -> None:
        self.command, self.env, self.options = command, env, options
        self.process: DriverProcess | None = None
        self.declaration: Declaration | None = None
        self.restarts = 0
        self.dead: str | None = None

    def ensure(self) -> Declaration | None:
        if self.dead is not None:
            return None
        if self.process is not None and self.process.alive():
            return self.declaration
        if self.process is not None:
            self.restarts += 1
            self.process.stop(grace=0.5)
            if self.restarts > self.options.max_restarts:
                self.dead = f"the driver misbehaved {self.restarts} times; the kit gave up on it"
                return None
        self.process = DriverProcess(self.command, self.env, self.options.cwd)
        try:
            self.declaration = self.process.start(self.options.handshake_timeout)
        except DriverError as error:
            self.dead = error.report()
            self.process.stop(grace=0.5)
            return None
        return self.declaration

    def kill(self) -> None:
        if self.process is not None:
            self.process.stop(grace=0.5)

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop()


def run_kit(
    command: str, scenarios: list[Scenario], options: KitOptions | None = None
) -> KitReport:
    """Run ``scenarios`` against the driver ``command`` and judge them."""
    options = options or KitOptions()
    started = time.monotonic()
    api_key = "kit-" + secrets.token_hex(16)
    results: list[ScenarioResult] = []
    name = command
    with _emulator(api_key) as emulator_url, Referee(emulator_url) as referee:
        direct = httpx.Client(
            base_url=emulator_url, headers={"authorization": f"Bearer {api_key}"}, timeout=60
        )
        env = {"TOGETHER_BASE_URL": referee.base_url, "TOGETHER_API_KEY": api_key}
        driver = _Driver(command, env, options)
        try:
            resources_id = _create_model_resources(direct)
            for scenario in scenarios:
                if options.only is not None and scenario.id not in options.only:
                    results.append(_result(scenario, "NOT_RUN", "not selected (--only)"))
                    continue
                declaration = driver.ensure()
                if declaration is None:
                    results.append(_result(scenario, "FAIL", str(driver.dead)))
                    continue
                name = declaration.name
                missing = sorted(scenario.features() - declaration.supports)
                if missing:
                    text = f"the driver declares no support for {', '.join(missing)}"
                    results.append(_result(scenario, "NOT_SUPPORTED", text))
                    continue
                began = time.monotonic()
                try:
                    result = _run_scenario(scenario, driver, referee, direct, resources_id, options)
                except Exception:  # the kit's own failure, not the driver's doing: never a verdict
                    text = f"the kit failed on this scenario:\n{traceback.format_exc()}"
                    result = _result(scenario, KIT_ERROR, text)
                result.seconds = time.monotonic() - began
                results.append(result)
        finally:
            driver.stop()
            direct.close()
    report = KitReport(name, results, duration_s=time.monotonic() - started)
    errors = [r.id for r in results if r.verdict == KIT_ERROR]
    if errors:
        report.problem = f"the kit itself failed on {', '.join(errors)} (see their tracebacks)"
    return report


def _result(
    scenario: Scenario, verdict: str, message: str, failed: tuple[str, ...] = ()
) -> ScenarioResult:
    return ScenarioResult(
        scenario.id, scenario.level, verdict, message, scenario.title, False, scenario.rules, failed
    )


def _create_model_resources(direct: httpx.Client) -> str:
    create = _spec.route("createModelResources")
    body = {**_spec.request_example("createModelResources", "tiny"), "lora_enabled": True}
    response = direct.request(create.method, create.path(), json=body)
    response.raise_for_status()
    return str(response.json()["id"])


def _run_scenario(
    scenario: Scenario,
    driver: _Driver,
    referee: Referee,
    direct: httpx.Client,
    resources_id: str,
    options: KitOptions,
) -> ScenarioResult:
    start = _spec.route("startTrainingSession")
    session = direct.request(start.method, start.path(), json={"model_resources_id": resources_id})
    session.raise_for_status()
    context = {"session_id": str(session.json()["id"]), "model_resources_id": resources_id}
    referee.arm(scenario.faults, scenario.calls[0].op)
    records: list[CallRecord] = []
    failure: str | None = None
    began = time.monotonic()
    try:
        for call in scenario.calls:
            record = _one_call(call, context, driver, referee, direct, options)
            records.append(record)
            if record.driver_error is not None:
                failure = record.driver_error
                break
    finally:
        referee.disarm()
        stop = _spec.route("stopTrainingSession")
        direct.request(stop.method, stop.path(context), json={})
    attempts = [a for r in records for a in r.attempts]
    trace = "\n".join(f"  {a.describe(began)}" for a in attempts[:_MAX_ATTEMPT_LINES]) or "  (none)"
    if len(attempts) > _MAX_ATTEMPT_LINES:
        trace += f"\n  ... {len(attempts) - _MAX_ATTEMPT_LINES} more attempts"
    result = _judged(scenario, records, failure, trace, len(attempts))
    result.scripted_wait = sum(a.retry_after_wait or 0.0 for a in attempts)
    return result


def _judged(
    scenario: Scenario, records: list[CallRecord], failure: str | None, trace: str, requests: int
) -> ScenarioResult:
    if failure is not None:
        return _result(scenario, "FAIL", f"{failure}\n attempts:\n{trace}", ("driver",))
    broken = [(rule, check_rule(rule, scenario, records)) for rule in scenario.rules]
    failed = [(rule, evidence) for rule, evidence in broken if evidence is not None]
    # Its rules explain a failure best; when they all held, the expected answer must still come.
    unexpected = None if failed else expect_problem(scenario, records)
    if unexpected is not None:
        failed = [("expect", unexpected)]
    if failed:
        text = "; ".join(f"{rule}: {evidence}" for rule, evidence in failed)
        names = tuple(rule for rule, _ in failed)
        return _result(scenario, "FAIL", f"{text}\n attempts:\n{trace}", names)
    return _result(
        scenario, "PASS", f"held: {', '.join(scenario.rules)}, expect ({requests} requests)"
    )


def _one_call(
    call: Call,
    context: dict[str, str],
    driver: _Driver,
    referee: Referee,
    direct: httpx.Client,
    options: KitOptions,
) -> CallRecord:
    route = _spec.route(call.op)
    request_id = secrets.randbelow(1 << 30)
    params = {name: context[name] for name in route.pattern.groupindex}
    request: dict[str, Any] = {"id": request_id, "op": call.op, "path": params, "query": {}}
    request["body"] = call.body if call.body is not None else {}
    if call.caller_key:
        request["idempotency_key"] = f"kit-caller-{uuid.uuid4()}"
    referee.begin_call(request_id)
    started = time.monotonic()
    answer: dict[str, Any] | None = None
    driver_error: str | None = None
    assert driver.process is not None
    try:
        answer = driver.process.call(request, options.call_timeout)
    except DriverError as error:
        driver_error = error.report()
        driver.kill()
    attempts = referee.end_call()
    record = CallRecord(call, request, started, attempts, answer, driver_error)
    if answer is not None:
        record.expected = _expected(call, params, attempts, direct)
    return record


def _expected(call: Call, params: dict[str, str], attempts: list[Any], direct: httpx.Client) -> Any:
    """What the emulator holds for the call, read directly (not through the referee)."""
    route = _spec.route(call.op)
    poll = _spec.poll_route(call.op)
    if poll is None:
        if route.method != "GET":
            return None
        response = direct.get(route.path(params))
        return response.json() if response.status_code == 200 else None
    ids = [
        a.upstream_json["id"]
        for a in attempts
        if a.operation_id == call.op
        and isinstance(a.upstream_json, dict)
        and "id" in a.upstream_json
    ]
    if not ids:
        return None
    response = direct.get(poll.path({**params, "operation_id": ids[-1]}))
    operation = response.json() if response.status_code == 200 else {}
    output = operation.get("output")
    if isinstance(output, dict) and "payload_id" in output:
        download = _spec.route("createPayloadDownloadUrl")
        urls = direct.post(download.path({**params, "payload_id": output["payload_id"]}))
        fetched = httpx.get(urls.json()["download_url"], timeout=60).json()
        output = {**{k: v for k, v in output.items() if k != "payload_id"}, **fetched}
    return output
