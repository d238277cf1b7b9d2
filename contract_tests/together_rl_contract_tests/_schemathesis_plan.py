"""Which operations of the spec schemathesis fuzzes on a target, with which ids pinned, and why
the others are not fuzzed (each gets a skipped row saying why).

Against a non-emulator target without ``--allow-mutations`` only reads and forward-only
forward-backward are fuzzed. The ids of a provisioned model resource, session, one operation of
every kind and an uploaded payload are pinned, so cases reach the core logic instead of 404; an
operation whose ids cannot be pinned (nothing may be created on the target) is skipped with the
reason, not fuzzed blind.
"""

from __future__ import annotations

from together_rl_contract_tests._provision import Provisioned
from together_rl_contract_tests._results import SKIPPED, CheckResult
from together_rl_contract_tests._spec import OPERATION_KINDS, operation_labels
from together_rl_contract_tests._target import Target

__all__ = [
    "READ_ONLY_METHODS",
    "SAFE_OPERATION_IDS",
    "operation_plan",
    "pinned_parameters",
    "scenario_count",
    "skipped_operations",
    "spec_operations",
]

READ_ONLY_METHODS = frozenset({"GET"})
#: Operations that may be fuzzed against a non-emulator target without --allow-mutations.
SAFE_OPERATION_IDS = frozenset(
    {"forwardBackward", "estimateModelResourcesCost", "estimateRollouts"}
)


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


def scenario_count(
    target: Target,
    provisioned: Provisioned,
    phases: tuple[str, ...],
    operation_ids: tuple[str, ...] | None = None,
) -> int:
    """How many schemathesis scenarios (one operation in one phase) a run plans."""
    fuzzed = [
        operation_id
        for operation_id, reason in operation_plan(target, provisioned).items()
        if reason is None and (operation_ids is None or operation_id in operation_ids)
    ]
    stateful = "stateful" in phases and target.may_mutate
    return len(fuzzed) * len([p for p in phases if p != "stateful"]) + int(stateful)
