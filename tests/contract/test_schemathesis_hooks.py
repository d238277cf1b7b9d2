"""The suite's schemathesis hooks leave no state behind a run: the global ``before_call`` hook is
registered for one run only; a valid-looking Idempotency-Key is replaced, a broken one kept."""

from __future__ import annotations

from schemathesis.hooks import GLOBAL_HOOK_DISPATCHER
from together_rl_contract_tests._provision import Provisioned
from together_rl_contract_tests._schemathesis_hooks import CaseHooks, fresh_idempotency_key
from together_rl_contract_tests._target import Target


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


class _Context:
    """What ``map_body`` reads of schemathesis's hook context: the operation's id."""

    def __init__(self, operation_id: str) -> None:
        raw = {"operationId": operation_id}
        self.operation = type("Op", (), {"definition": type("Def", (), {"raw": raw})()})()


def _start_session_body(provisioned: Provisioned) -> dict[str, object]:
    hooks = CaseHooks(Target("http://127.0.0.1:1", "key", is_emulator=True), provisioned)
    body = {"model_resources_id": "123e4567", "resume_from_checkpoint_id": "123e4567"}
    return hooks.map_body(_Context("startTrainingSession"), body)  # type: ignore[no-any-return]


def test_a_session_resumes_from_the_provisioned_checkpoint_or_none() -> None:
    """The published example's placeholder checkpoint id would make every positive case a 404:
    it becomes the provisioned training checkpoint, or goes when there is none."""
    pinned = Provisioned("mr-1", "s-1", None, None, None, training_checkpoint_id="ckpt-1")
    assert _start_session_body(pinned) == {
        "model_resources_id": "mr-1",
        "resume_from_checkpoint_id": "ckpt-1",
    }
    bare = Provisioned("mr-1", "s-1", None, None, None)
    assert _start_session_body(bare) == {"model_resources_id": "mr-1"}
