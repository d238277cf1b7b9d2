"""The suite's own schemathesis check, for the rules JSON Schema cannot say that schemathesis
cannot know: the cross-field rules of a request body (``x-at-least``). A generated body that
breaks one must be refused (4xx), as the spec's rule says; the suite judges the body with its own
reading of the spec (:meth:`SpecJudge.at_least_problems`).

Registered with schemathesis when this module is imported (schemathesis keeps checks in one
global registry); for an operation without such a rule the check does not apply (it is skipped,
not counted).
"""

from __future__ import annotations

from typing import Any

import schemathesis

from together_rl_contract_tests._spec_check import installed_judge

__all__ = ["cross_field_rules"]


@schemathesis.check
def cross_field_rules(ctx: Any, response: Any, case: Any) -> bool | None:
    """A body breaking an ``x-at-least`` rule of its schema is answered 4xx."""
    judge = installed_judge()
    request_body = case.operation.definition.raw.get("requestBody") or {}
    media = (judge.resolve(request_body).get("content") or {}).get("application/json") or {}
    schema = judge.resolve(media.get("schema") or {})
    if not schema.get("x-at-least"):
        return True  # no cross-field rule here: not applicable
    problems = judge.at_least_problems(schema, case.body)
    if problems and not 400 <= response.status_code < 500:
        broken = "; ".join(f"{p.field}: {p.reason}" for p in problems)
        raise AssertionError(
            f"a body that breaks the spec's x-at-least was answered {response.status_code}: "
            f"{broken}"
        )
    return None
