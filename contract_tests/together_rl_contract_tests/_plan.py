"""What a run would do against a target, without sending anything (``--dry-run``).

Every check is listed as run (with what it touches: read-only, forward-only passes to
``--session-id``, or mutations) or as skipped with its reason. The skip policy of scenario tests
is :func:`scenario_plan_entry` (fixtures that create or train, ``needs_mutations`` and
``emulator_only`` markers); ``conftest.py`` applies the same function before each test, so a dry
run and a real run skip the same tests for the same reasons.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from together_rl_contract_tests._http import OPERATION_KINDS
from together_rl_contract_tests._provision import Provisioned
from together_rl_contract_tests._schemathesis_plan import (
    SAFE_OPERATION_IDS,
    operation_plan,
    spec_operations,
)
from together_rl_contract_tests._target import Target

__all__ = [
    "MUTATING_FIXTURES",
    "PlannedCheck",
    "format_plan",
    "planned_provision",
    "scenario_plan_entry",
    "schemathesis_plan",
]

#: Fixtures that create model resources or sessions, or train in them (a test's fixtures are its
#: arguments plus the ``requests_fixture`` markers of those it requests at run time).
MUTATING_FIXTURES = frozenset({"model_resources", "fresh_session", "own_session_id"})
NEEDS_MUTATIONS = (
    "read-only target: creates resources or trains; needs --allow-mutations (or the emulator)"
)
NEEDS_SESSION = (
    "read-only target without a session: needs --session-id (an existing session to send "
    "forward-only passes to) or --allow-mutations"
)
NEEDS_SECOND_KEY = "needs --second-api-key (a second key, to check tenant isolation)"
#: Placeholder id for what provisioning would create or use.
PLANNED = "(planned)"


@dataclasses.dataclass(frozen=True)
class PlannedCheck:
    part: str
    operation: str
    check: str
    #: Why it would be skipped, or ``None`` when it would run.
    skip_reason: str | None
    #: What it would touch when it runs: "read-only", "forward-only ...", "mutates ...".
    touches: str = ""


def scenario_plan_entry(item: Any, target: Target, operation: str, part: str) -> PlannedCheck:
    """The plan for one collected scenario test (``item``: a ``pytest.Item``)."""
    names = set(getattr(item, "fixturenames", ()))
    names |= {str(mark.args[0]) for mark in item.iter_markers("requests_fixture")}
    check = str(item.nodeid).split("::", 1)[-1]
    skip: str | None = None
    emulator_only = item.get_closest_marker("emulator_only")
    declared = item.get_closest_marker("needs_mutations")
    if emulator_only is not None and not target.is_emulator:
        skip = f"emulator only: {emulator_only.args[0]}"
    elif declared is not None and not target.may_mutate:
        skip = f"read-only target: {declared.args[0]}; needs --allow-mutations (or the emulator)"
    elif names & MUTATING_FIXTURES and not target.may_mutate:
        skip = NEEDS_MUTATIONS
    elif "session_id" in names and not target.session_id and not target.may_mutate:
        skip = NEEDS_SESSION
    elif "second_client" in names and not target.second_api_key:
        skip = NEEDS_SECOND_KEY
    if names & MUTATING_FIXTURES or declared is not None:
        touches = "creates resources and trains"
    elif "session_id" in names and not target.may_mutate:
        touches = f"forward-only passes to session {target.session_id}"
    else:
        touches = "read-only" if not target.may_mutate else "may create and train"
    return PlannedCheck(part, operation, check, skip, touches)


def planned_provision(target: Target) -> Provisioned:
    """What :func:`together_rl_contract_tests._provision.provision` would create or use, as
    placeholders (``None`` where it would have nothing)."""
    everything = {kind: PLANNED for kind in OPERATION_KINDS}
    if target.may_mutate and target.session_id is None:
        return Provisioned(
            PLANNED,
            PLANNED,
            PLANNED,
            PLANNED,
            PLANNED,
            everything,
            PLANNED,
            PLANNED,
            PLANNED,
            PLANNED,
        )
    if target.session_id is None:
        return Provisioned(None, None, None, None, None)
    mutations = target.may_mutate
    return Provisioned(
        PLANNED,
        target.session_id,
        None,
        PLANNED,
        PLANNED,
        everything if mutations else {"forward-backward": PLANNED},
        PLANNED if mutations else None,
    )


def schemathesis_plan(
    target: Target, phases: tuple[str, ...], operation_ids: tuple[str, ...] | None = None
) -> list[PlannedCheck]:
    """One entry per spec operation: fuzzed in which phases, or skipped and why."""
    labels = spec_operations()
    plan = operation_plan(target, planned_provision(target))
    run_phases = [p for p in phases if p != "stateful"]
    entries = []
    for operation_id, reason in plan.items():
        if operation_ids is not None and operation_id not in operation_ids:
            continue
        label = labels[operation_id]
        if label.startswith("GET "):
            touches = "read-only"
        elif operation_id in SAFE_OPERATION_IDS and not target.may_mutate:
            touches = f"forward-only passes to session {target.session_id} (billed inference)"
        else:
            touches = "mutates" if target.is_emulator else "mutates (allowed; billed)"
        check = "(operation)" if reason else f"phases: {', '.join(run_phases)}"
        entries.append(PlannedCheck("schemathesis", label, check, reason, touches))
    if "stateful" in phases:
        stateful_skip = None if target.may_mutate else NEEDS_MUTATIONS
        stateful = PlannedCheck(
            "schemathesis", "Stateful tests", "phase: stateful (links)", stateful_skip,
            "creates resources and trains",
        )  # fmt: skip
        entries.append(stateful)
    return entries


def format_plan(planned: list[PlannedCheck], header: list[str]) -> str:
    run = [p for p in planned if p.skip_reason is None]
    skipped = [p for p in planned if p.skip_reason is not None]
    lines = [*header, "", f"Would run ({len(run)}):"]
    lines += [f"  {p.part:<12} {p.operation}  {p.check}  [{p.touches}]" for p in run]
    lines += ["", f"Skipped ({len(skipped)}):"]
    lines += [f"  {p.part:<12} {p.operation}  {p.check}: {p.skip_reason}" for p in skipped]
    return "\n".join(lines)
