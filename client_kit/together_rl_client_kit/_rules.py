"""The rules a client must follow, each judged from the traffic the referee saw (never from what
the driver says, except the value or error it hands back to its caller).

A check returns None when the rule held, else the evidence, in words. The checks are those of
`_answer_checks.py`, `_retry_checks.py`, `_polling_checks.py` and `_transfer_checks.py`. Besides
its rules, every scenario is judged on its `expect` (`_answer_checks.expect_problem`): a result or
an error, its status, its error code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ._answer_checks import answered_ok, error_status, failed_reported
from ._polling_checks import (
    MAX_POLL_GAP_S,
    MAX_POLLS_PER_S,
    poll_pending,
    poll_rate,
    poll_unknown,
    stop_at_terminal,
)
from ._retry_checks import (
    MAX_BACKOFF_S,
    bounded_backoff,
    caller_key,
    fresh_key,
    no_retry,
    one_operation,
    retried,
    retry_after,
    same_key,
    single_attempt,
)
from ._transfer_checks import large_body_upload, offloaded_download
from ._types import CallRecord, Scenario

__all__ = ["RULES", "Rule", "check_rule"]


Check = Callable[[Scenario, list[CallRecord]], "str | None"]


@dataclass(frozen=True)
class Rule:
    name: str
    text: str
    check: Check


_RULES = [
    Rule("result-returned", "the caller is handed the operation's result", answered_ok),
    Rule("error-returned", "the caller is handed the error with its HTTP status", error_status),
    Rule("no-retry-client-error", "400/401/403/404/422 are never retried", no_retry),
    Rule("retry-transient", "a dropped, cut or 429/5xx attempt is retried", retried),
    Rule("same-key-on-retry", "one Idempotency-Key on every attempt of one call", same_key),
    Rule("fresh-key-per-call", "a new Idempotency-Key for a new call", fresh_key),
    Rule("caller-key-kept", "a caller's own Idempotency-Key is never replaced", caller_key),
    Rule("one-operation", "retries of one call create one operation", one_operation),
    Rule("honour-retry-after", "the retry waits Retry-After (and not much longer)", retry_after),
    Rule(
        "bounded-backoff",
        f"a retry without Retry-After waits <= {MAX_BACKOFF_S:g} s",
        bounded_backoff,
    ),
    Rule("slow-answer-awaited", "a slow answer is waited for, not retried", single_attempt),
    Rule("poll-through-unknown-status", "polling goes on through an unknown status", poll_unknown),
    Rule("poll-while-pending", "polling goes on while the operation is pending", poll_pending),
    Rule(
        "poll-rate-bounded",
        f"polls <= {MAX_POLL_GAP_S:g} s apart, <= {MAX_POLLS_PER_S:g}/s",
        poll_rate,
    ),
    Rule("stop-at-terminal", "no poll after COMPLETED or FAILED", stop_at_terminal),
    Rule(
        "failed-reported",
        "a FAILED operation is handed back as an error naming its code",
        failed_reported,
    ),
    Rule(
        "upload-large-body",
        "a body over the threshold goes through upload-url + PUT",
        large_body_upload,
    ),
    Rule(
        "download-offloaded",
        "an offloaded result is fetched through download-url",
        offloaded_download,
    ),
]
RULES: dict[str, Rule] = {rule.name: rule for rule in _RULES}


def check_rule(name: str, scenario: Scenario, records: list[CallRecord]) -> str | None:
    return RULES[name].check(scenario, records)
