"""The suite's schemathesis hooks leave no state behind a run: the global ``before_call`` hook is
registered for one run only; a valid-looking Idempotency-Key is replaced, a broken one kept."""

from __future__ import annotations

from schemathesis.hooks import GLOBAL_HOOK_DISPATCHER
from together_rl_contract_tests._schemathesis_hooks import CaseHooks, fresh_idempotency_key


def _before_call_hooks() -> int:
    return len(GLOBAL_HOOK_DISPATCHER.get_all_by_name("before_call"))


def test_before_call_is_registered_only_while_a_run_lasts() -> None:
    before = _before_call_hooks()
    with CaseHooks.fresh_keys():
        assert _before_call_hooks() == before + 1
    assert _before_call_hooks() == before
    try:
        with CaseHooks.fresh_keys():
            raise RuntimeError("the run failed")
    except RuntimeError:
        pass
    assert _before_call_hooks() == before


def test_only_valid_looking_keys_are_replaced() -> None:
    valid = {"Idempotency-Key": "key-1"}
    fresh_idempotency_key(valid)
    assert valid["Idempotency-Key"] != "key-1" and len(valid["Idempotency-Key"]) == 36
    for broken in ("", "with space", "x" * 256, 17):
        headers = {"Idempotency-Key": broken}
        fresh_idempotency_key(headers)
        assert headers["Idempotency-Key"] == broken
    fresh_idempotency_key(None)
