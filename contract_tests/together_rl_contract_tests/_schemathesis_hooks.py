"""What the suite changes in each case schemathesis generates, before it is sent.

- a fresh ``Idempotency-Key`` per case, replacing only valid-looking keys so that negative cases
  stay negative (``map_headers``, and ``before_call`` for coverage-phase cases that skip it:
  they would reuse a key with another body, a 422 that is no bug);
- the provisioned base model and model resources in create bodies and rollout estimates, so
  that cases reach the logic;
- against a non-emulator target: forward-backward only ``forward_only``, sample sizes capped;
- no generated ``payload_id`` (it can only name nothing: the payload protocol has its own tests).

``before_call`` exists in schemathesis only as a global hook: :meth:`CaseHooks.fresh_keys` registers
it for the duration of one run and removes it after, so no state outlives the run.
"""

from __future__ import annotations

import contextlib
import re
import uuid
from collections.abc import Iterator
from typing import Any

from schemathesis.hooks import GLOBAL_HOOK_DISPATCHER

from together_rl_contract_tests._provision import Provisioned
from together_rl_contract_tests._spec import schema
from together_rl_contract_tests._spec_check import installed_judge
from together_rl_contract_tests._target import EMULATOR_BASE_MODEL, Target

__all__ = ["EXTERNAL_SAMPLE_CAPS", "VALID_IDEMPOTENCY_KEY", "CaseHooks", "fresh_idempotency_key"]

VALID_IDEMPOTENCY_KEY = re.compile(r"^[\x21-\x7e]{1,255}$")
#: Bodies the fuzzer generates for sample against a non-emulator target are capped (cost).
#: name -> cap (the spec states no maximum, so a capped valid value stays valid).
EXTERNAL_SAMPLE_CAPS = {"max_tokens": 16, "num_samples": 2}


def fresh_idempotency_key(headers: dict[str, Any] | None) -> None:
    """Replace a valid-looking Idempotency-Key with a new UUID; leave broken ones broken."""
    if headers and "Idempotency-Key" in headers:
        value = headers["Idempotency-Key"]
        if isinstance(value, str) and VALID_IDEMPOTENCY_KEY.match(value):
            headers["Idempotency-Key"] = str(uuid.uuid4())


class CaseHooks:
    """The hooks for one target and what was provisioned on it."""

    def __init__(self, target: Target, provisioned: Provisioned) -> None:
        self.target = target
        self.provisioned = provisioned
        self.base_model = provisioned.base_model or EMULATOR_BASE_MODEL

    def register(self, schema: Any) -> None:
        """Register the schema-scoped hooks (``map_headers``, ``map_body``, ``map_case``) on
        ``schema``."""
        # schemathesis marks each hook function it registers: plain functions, not bound methods.

        def map_headers(ctx: Any, headers: dict[str, Any] | None) -> dict[str, Any] | None:
            return self.map_headers(ctx, headers)

        def map_body(ctx: Any, body: Any) -> Any:
            return self.map_body(ctx, body)

        def map_case(ctx: Any, case: Any) -> Any:
            # The coverage phase applies case hooks only: the same body mapping, once more
            # (mapping a mapped body changes nothing).
            case.body = self.map_body(ctx, case.body)
            return case

        schema.hook(map_headers)
        schema.hook(map_body)
        schema.hook(map_case)

    @staticmethod
    @contextlib.contextmanager
    def fresh_keys() -> Iterator[None]:
        """``before_call`` (a global hook in schemathesis) registered only while this lasts."""

        def before_call(ctx: Any, case: Any, kwargs: dict[str, Any]) -> None:
            fresh_idempotency_key(case.headers)

        GLOBAL_HOOK_DISPATCHER.register_hook_with_name(before_call, "before_call")
        try:
            yield
        finally:
            GLOBAL_HOOK_DISPATCHER.unregister(before_call)

    def map_headers(self, ctx: Any, headers: dict[str, Any] | None) -> dict[str, Any] | None:
        fresh_idempotency_key(headers)
        return headers

    def map_body(self, ctx: Any, body: Any) -> Any:
        if not isinstance(body, dict):
            return body
        provisioned, target = self.provisioned, self.target
        operation_id = _operation_id(ctx)
        model = body.get("base_model")
        creates = operation_id == "createModelResources" and _non_empty_str(model)
        if creates or (operation_id == "estimateRollouts" and _valid_base_model(model)):
            body["base_model"] = self.base_model
        elif operation_id == "startTrainingSession" and provisioned.model_resources_id:
            if _non_empty_str(body.get("model_resources_id")):
                body["model_resources_id"] = provisioned.model_resources_id
            if _non_empty_str(body.get("resume_from_checkpoint_id")):
                # The published example's placeholder id names nothing (404): resume from the
                # provisioned session's training checkpoint, or start fresh without one.
                if provisioned.training_checkpoint_id:
                    body["resume_from_checkpoint_id"] = provisioned.training_checkpoint_id
                else:
                    del body["resume_from_checkpoint_id"]
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


def _operation_id(ctx: Any) -> str | None:
    operation = getattr(ctx, "operation", None)
    if operation is None:
        return None
    return operation.definition.raw.get("operationId")  # type: ignore[no-any-return]


def _cap_sample(body: dict[str, Any]) -> None:
    """Lower valid but costly sizes (valid values stay valid; invalid ones stay invalid)."""
    params = body.get("sampling_params")
    for container, name in ((body, "num_samples"), (params, "max_tokens")):
        if isinstance(container, dict):
            value = container.get(name)
            cap = EXTERNAL_SAMPLE_CAPS[name]
            if isinstance(value, int) and not isinstance(value, bool) and cap < value:
                container[name] = cap


def _valid_base_model(value: object) -> bool:
    """Whether a rollout estimate's ``base_model`` is valid for the spec (replacing a valid one
    with the provisioned model keeps a negative case negative)."""
    judge = installed_judge()
    prop = schema("RolloutEstimateRequest")["properties"]["base_model"]
    return isinstance(value, str) and not judge.value_problems(prop, value)


def _non_empty_str(value: object) -> bool:
    return isinstance(value, str) and value != ""
