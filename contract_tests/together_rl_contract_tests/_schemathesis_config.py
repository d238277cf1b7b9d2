"""schemathesis' configuration for one target, and the spec loaded as a schema with it.

- bearer auth through ``auth.openapi.bearerAuth`` (plain headers give a false ST401);
- ``positive_data_acceptance`` also accepts 400: the spec documents 400 for bodies that are
  schema-valid but break a rule the schema cannot express;
- the ids the plan pins (:mod:`together_rl_contract_tests._schemathesis_plan`) as parameters per
  operation;
- a rate limit against any target but the embedded emulator;
- the case hooks of :mod:`together_rl_contract_tests._schemathesis_hooks`;
- the suite's own check of cross-field rules
  (:mod:`together_rl_contract_tests._schemathesis_checks`).

What each setting means for a run is in docs/ports.md ("Run the contract suite against your
server").
"""

from __future__ import annotations

import copy
from typing import Any

import schemathesis

from together_rl_contract_tests import _schemathesis_checks  # noqa: F401  (registers its check)
from together_rl_contract_tests._provision import Provisioned
from together_rl_contract_tests._schemathesis_hooks import CaseHooks
from together_rl_contract_tests._schemathesis_plan import operation_plan, pinned_parameters
from together_rl_contract_tests._spec import spec
from together_rl_contract_tests._target import Target

__all__ = ["ALL_PHASES", "POSITIVE_EXPECTED_STATUSES", "build_config", "load_schema"]

ALL_PHASES = ("examples", "coverage", "fuzzing", "stateful")
#: 400 is the spec's answer to a schema-valid body that breaks a semantic rule.
POSITIVE_EXPECTED_STATUSES = ["2xx", "400", "401", "403", "404", "409", "429"]


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
    CaseHooks(target, provisioned).register(schema)
    return schema
