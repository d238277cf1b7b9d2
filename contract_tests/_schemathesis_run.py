"""Part 1: schemathesis over every operation of the spec, driven through its engine.

The engine runs all four phases (examples, coverage, fuzzing, stateful through the spec's links)
with every check; its events give, per generated case, the result of each check, which become
:class:`CheckResult` rows. Configuration (tooling-notes.md B):

- bearer auth through ``auth.openapi.bearerAuth`` (plain headers give a false ST401);
- a fresh ``Idempotency-Key`` per case, replacing only valid-looking keys so negative cases stay
  negative;
- ``positive_data_acceptance`` also accepts 400: the spec documents 400 for bodies that are
  schema-valid but break a rule the schema cannot express;
- the ids of a provisioned model resource, session, one operation of every kind and an uploaded
  payload are pinned, so cases reach the core logic instead of 404; an operation whose ids cannot
  be pinned (nothing may be created on the target) is skipped with the reason, not fuzzed blind;
- against a non-emulator target without ``--allow-mutations`` only reads and forward-only
  forward-backward are fuzzed; every other operation gets a skipped row saying why.
"""

from __future__ import annotations

import copy
import re
import sys
import threading
import uuid
from collections.abc import Callable
from typing import Any

import schemathesis
from schemathesis.engine import Status, events, from_schema
from schemathesis.engine.errors import ServerUnavailable

from contract_tests._preflight import TargetWatch, is_transport_error
from contract_tests._provision import Provisioned
from contract_tests._results import DIFFERENCE, FAILED, NO_ANSWER, PASSED, SKIPPED, CheckResult
from contract_tests._schemathesis_verdict import failure_verdict
from contract_tests._spec import OPERATION_KINDS, operation_labels, spec
from contract_tests._target import EMULATOR_BASE_MODEL, Target

ALL_PHASES = ("examples", "coverage", "fuzzing", "stateful")
VALID_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
#: 400 is the spec's answer to a schema-valid body that breaks a semantic rule.
POSITIVE_EXPECTED_STATUSES = ["2xx", "400", "401", "403", "404", "409", "429"]
READ_ONLY_METHODS = frozenset({"GET"})
#: Operations that may be fuzzed against a non-emulator target without --allow-mutations.
SAFE_OPERATION_IDS = frozenset({"forwardBackward", "estimateModelResourcesCost"})
#: Bodies the fuzzer generates for sample against a non-emulator target are capped (cost).
#: name -> cap (the spec states no maximum, so a capped valid value stays valid).
EXTERNAL_SAMPLE_CAPS = {"max_tokens": 16, "num_samples": 2}

Progress = Callable[[str], None]


def _print(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def build_config(
    target: Target,
    provisioned: Provisioned,
    *,
    seed: int,
    max_examples: int,
    phases: tuple[str, ...],
    negative_only: bool = False,
) -> dict[str, Any]:
    """``negative_only``: generate only requests that break the spec (``python -m reliability
    negative``); by default schemathesis generates both kinds."""
    operations: list[dict[str, Any]] = []
    for operation_id, parameters in pinned_parameters(provisioned).items():
        given = {name: value for name, value in parameters.items() if value}
        if given:
            operations.append({"include-operation-id": operation_id, "parameters": given})
    stateful = "stateful" in phases and target.may_mutate
    config: dict[str, Any] = {
        "seed": seed,
        "base-url": target.api_url,
        "auth": {"openapi": {"bearerAuth": {"bearer": target.api_key or ""}}},
        "generation": {"max-examples": max_examples},
        "phases": {
            "examples": {"enabled": "examples" in phases},
            "coverage": {"enabled": "coverage" in phases},
            "fuzzing": {"enabled": "fuzzing" in phases},
            "stateful": {"enabled": stateful, "max-steps": 8},
        },
        "checks": {"positive_data_acceptance": {"expected-statuses": POSITIVE_EXPECTED_STATUSES}},
        "request-timeout": 30,
        # Keep token ids readable in failure reports; only the bearer key is secret.
        "output": {
            "sanitization": {"keys-to-sanitize": ["authorization"], "sensitive-markers": []}
        },
        "operations": operations,
    }
    if negative_only:
        config["generation"]["mode"] = "negative"
    if not target.is_emulator:
        config["rate-limit"] = "120/m"
    return config


def pinned_parameters(provisioned: Provisioned) -> dict[str, dict[str, str | None]]:
    """Path parameters to pin per spec operationId (``None``: nothing provisioned for it)."""
    session = provisioned.session_id
    pins: dict[str, dict[str, str | None]] = {
        "getModelResources": {"model_resources_id": provisioned.model_resources_id},
        "getTrainingSession": {"session_id": session},
        "updateTrainingSession": {"session_id": session},
        "stopTrainingSession": {"session_id": provisioned.spare_session_id},
        "extendModelResourcesExpiry": {"model_resources_id": provisioned.model_resources_id},
        "stopModelResources": {"model_resources_id": provisioned.spare_model_resources_id},
        "getCheckpoint": {"checkpoint_id": provisioned.checkpoint_id},
        "downloadCheckpoint": {"checkpoint_id": provisioned.checkpoint_id},
        "createPayloadUploadUrl": {"session_id": session},
        "createPayloadDownloadUrl": {"session_id": session, "payload_id": provisioned.payload_id},
    }
    for kind, (submit, get) in OPERATION_KINDS.items():
        pins[submit] = {"session_id": session}
        pins[get] = {"session_id": session, "operation_id": provisioned.operation_ids.get(kind)}
    return pins


def spec_operations() -> dict[str, str]:
    """Every operation of the spec: operationId -> label (``"GET /rl/supported-models"``)."""
    return operation_labels()


def operation_plan(target: Target, provisioned: Provisioned) -> dict[str, str | None]:
    """operationId -> why it is not fuzzed on this target, or ``None`` when it is."""
    pins = pinned_parameters(provisioned)
    plan: dict[str, str | None] = {}
    for operation_id, label in spec_operations().items():
        method = label.split(" ", 1)[0]
        missing = [name for name, value in pins.get(operation_id, {}).items() if not value]
        if (
            not target.may_mutate
            and method not in READ_ONLY_METHODS
            and (operation_id not in SAFE_OPERATION_IDS)
        ):
            plan[operation_id] = (
                "mutates state or is billed: not fuzzed on a non-emulator target without "
                "--allow-mutations"
            )
        elif missing:
            needs = (
                "needs --session-id, or the emulator or --allow-mutations to create it"
                if "session_id" in missing
                else "needs --allow-mutations (or the emulator) to create it"
            )
            plan[operation_id] = (
                f"nothing to pin for {', '.join(missing)} ({needs}): not fuzzed against random ids"
            )
        else:
            plan[operation_id] = None
    return plan


def skipped_operations(
    target: Target, provisioned: Provisioned, operation_ids: tuple[str, ...] | None = None
) -> list[CheckResult]:
    """One skipped row per spec operation this target does not fuzz, with the reason."""
    labels = spec_operations()
    return [
        CheckResult("schemathesis", labels[operation_id], "(operation)", SKIPPED, reason)
        for operation_id, reason in operation_plan(target, provisioned).items()
        if reason is not None and (operation_ids is None or operation_id in operation_ids)
    ]


def load_schema(
    target: Target,
    provisioned: Provisioned,
    *,
    seed: int = 0,
    max_examples: int = 10,
    phases: tuple[str, ...] = ALL_PHASES,
    operation_ids: tuple[str, ...] | None = None,
    negative_only: bool = False,
) -> Any:
    """The spec as a schemathesis schema, configured and hooked for ``target``."""
    config = schemathesis.Config.from_dict(
        build_config(
            target, provisioned, seed=seed, max_examples=max_examples, phases=phases,
            negative_only=negative_only,
        )
    )  # fmt: skip
    schema = schemathesis.openapi.from_dict(copy.deepcopy(spec()), config=config)
    if operation_ids is not None:
        schema = schema.include(operation_id=list(operation_ids))
    plan = operation_plan(target, provisioned)
    schema = schema.include(
        func=lambda ctx: plan.get(ctx.operation.definition.raw.get("operationId")) is None
    )
    _register_hooks(schema, target, provisioned)
    return schema


def _operation_id(ctx: Any) -> str | None:
    operation = getattr(ctx, "operation", None)
    if operation is None:
        return None
    return operation.definition.raw.get("operationId")  # type: ignore[no-any-return]


#: True while :func:`run_schemathesis` runs; the global ``before_call`` hook acts only then.
_RUNNING = threading.Event()
_GLOBAL_HOOK_REGISTERED = False


def _fresh_idempotency_key(headers: dict[str, Any] | None) -> None:
    """Replace a valid-looking Idempotency-Key with a new UUID; leave broken ones broken."""
    if headers and "Idempotency-Key" in headers:
        value = headers["Idempotency-Key"]
        if isinstance(value, str) and VALID_IDEMPOTENCY_KEY.match(value):
            headers["Idempotency-Key"] = str(uuid.uuid4())


def _register_global_before_call() -> None:
    # ``before_call`` exists only as a global hook. It is needed because some coverage-phase
    # cases skip ``map_headers`` and would reuse a key with another body (a 422, not a bug).
    global _GLOBAL_HOOK_REGISTERED
    if _GLOBAL_HOOK_REGISTERED:
        return
    _GLOBAL_HOOK_REGISTERED = True

    @schemathesis.hook  # type: ignore[untyped-decorator]
    def before_call(ctx: Any, case: Any, kwargs: dict[str, Any]) -> None:
        if _RUNNING.is_set():
            _fresh_idempotency_key(case.headers)


def _register_hooks(schema: Any, target: Target, provisioned: Provisioned) -> None:
    _register_global_before_call()

    @schema.hook  # type: ignore[untyped-decorator]
    def map_headers(ctx: Any, headers: dict[str, Any] | None) -> dict[str, Any] | None:
        _fresh_idempotency_key(headers)
        return headers

    base_model = provisioned.base_model or EMULATOR_BASE_MODEL

    @schema.hook  # type: ignore[untyped-decorator]
    def map_body(ctx: Any, body: Any) -> Any:
        if not isinstance(body, dict):
            return body
        operation_id = _operation_id(ctx)
        if operation_id == "createModelResources" and _non_empty_str(body.get("base_model")):
            body["base_model"] = base_model
        elif operation_id == "startTrainingSession" and provisioned.model_resources_id:
            if _non_empty_str(body.get("model_resources_id")):
                body["model_resources_id"] = provisioned.model_resources_id
        elif operation_id == "forwardBackward" and not target.may_mutate:
            # Safety: only forward-only passes reach a non-emulator target.
            body["forward_only"] = True
        elif operation_id == "sample" and not target.is_emulator:
            _cap_sample(body)
        if _non_empty_str(body.get("payload_id")):
            # A generated payload_id can only name nothing (404): the case would never reach the
            # operation's logic. The payload protocol has its own scenario tests.
            del body["payload_id"]
        return body


def _cap_sample(body: dict[str, Any]) -> None:
    """Lower valid but costly sizes (valid values stay valid; invalid ones stay invalid)."""
    params = body.get("sampling_params")
    for container, name in ((body, "num_samples"), (params, "max_tokens")):
        if isinstance(container, dict):
            value = container.get(name)
            cap = EXTERNAL_SAMPLE_CAPS[name]
            if isinstance(value, int) and not isinstance(value, bool) and cap < value:
                container[name] = cap


def _non_empty_str(value: object) -> bool:
    return isinstance(value, str) and value != ""


def run_schemathesis(
    schema: Any,
    target: Target,
    progress: Progress = _print,
    *,
    watch: TargetWatch | None = None,
    advance: Callable[[], None] = lambda: None,
) -> tuple[list[CheckResult], list[str]]:
    """Run the engine over ``schema``; return one result per check applied, and the warnings.

    With a ``watch``, a request that got no answer is a NO_ANSWER row, not a failure, and the
    engine's verdict that the server went away marks the target lost (the engine then stops).
    ``advance`` is called once per finished scenario (an operation in one phase)."""
    _RUNNING.set()
    try:
        return _run(schema, target, progress, watch, advance)
    finally:
        _RUNNING.clear()


MISSING_DATA_MIN_CASES = 5
MISSING_DATA_RATIO = 0.9


def _positive_statuses(recorder: Any) -> list[int]:
    statuses = []
    for case_id, interaction in recorder.interactions.items():
        node = recorder.cases.get(case_id)
        mode = getattr(getattr(getattr(node, "value", None), "meta", None), "generation", None)
        if node is None or getattr(getattr(mode, "mode", None), "value", None) != "positive":
            continue
        if interaction.response is not None:
            statuses.append(int(interaction.response.status_code))
    return statuses


def _missing_test_data(statuses_by_operation: dict[str, list[int]]) -> list[CheckResult]:
    """schemathesis's "missing test data" condition: positive cases that almost only see 404."""
    results = []
    for label, statuses in sorted(statuses_by_operation.items()):
        if label == "Stateful tests" or len(statuses) < MISSING_DATA_MIN_CASES:
            continue
        share = statuses.count(404) / len(statuses)
        status = FAILED if share >= MISSING_DATA_RATIO else PASSED
        detail = f"{share:.0%} of {len(statuses)} positive cases answered 404 (ids not pinned?)"
        results.append(
            CheckResult("schemathesis", label, "(test data reaches the logic)", status, detail)
        )
    return results


def _run(
    schema: Any,
    target: Target,
    progress: Progress,
    watch: TargetWatch | None,
    advance: Callable[[], None],
) -> tuple[list[CheckResult], list[str]]:
    results: list[CheckResult] = []
    notes: list[str] = []
    positive: dict[str, list[int]] = {}
    stream = from_schema(schema).execute()
    for event in stream:
        if isinstance(event, events.ScenarioFinished) and event.phase.value != "stateful":
            positive.setdefault(event.recorder.label, []).extend(_positive_statuses(event.recorder))
        if isinstance(event, events.PhaseStarted):
            progress(f"[schemathesis] phase {event.phase.name.value} ...")
        elif isinstance(event, events.ScenarioFinished):
            scenario = _scenario_results(event.recorder, event.phase.value, target)
            results += scenario
            failed = sum(1 for r in scenario if r.status == FAILED)
            status = "FAILED" if failed else event.status.value
            if event.status == Status.SKIP and not scenario:
                results.append(
                    CheckResult(
                        "schemathesis",
                        event.recorder.label,
                        "(operation)",
                        SKIPPED,
                        event.skip_reason or "skipped by schemathesis",
                    )
                )
            progress(
                f"[schemathesis] {event.phase.value:<9} {event.recorder.label:<78} "
                f"{len(event.recorder.cases):>4} cases  {status}"
            )
            advance()
        elif isinstance(event, events.NonFatalError) and watch is not None and _no_answer(event):
            if isinstance(event.value, ServerUnavailable):
                what = _first_line(event.value).split(". Last", 1)[0]
                watch.mark_lost(f"the target stopped answering: {what}")
                detail = f"no answer: {what}"
            else:
                detail = watch.no_answer(event.value)
            results.append(CheckResult("schemathesis", event.label, "(request)", NO_ANSWER, detail))
            progress(f"[schemathesis] no answer in {event.label}: {detail}")
            if watch.lost is not None:
                stream.finish()
                break
        elif isinstance(event, events.NonFatalError):
            results.append(
                CheckResult(
                    "schemathesis", event.label, "(error)", FAILED, _format_error(event.value)
                )
            )
            progress(f"[schemathesis] error in {event.label}: {event.value!r}")
        elif isinstance(event, events.FatalError):
            results.append(
                CheckResult("schemathesis", "-", "(fatal)", FAILED, _format_error(event.exception))
            )
            progress(f"[schemathesis] fatal: {event.exception!r}")
        elif isinstance(event, events.SchemaAnalysisWarnings):
            for warning in event.warnings:
                notes.append(f"schemathesis warning: {warning}")
    results += _missing_test_data(positive)
    return results, notes


def _no_answer(event: Any) -> bool:
    return isinstance(event.value, ServerUnavailable) or is_transport_error(event.value)


def _first_line(error: BaseException) -> str:
    return (str(error).strip() or type(error).__name__).splitlines()[0]


def _scenario_results(recorder: Any, phase: str, target: Target) -> list[CheckResult]:
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


def _format_error(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"
