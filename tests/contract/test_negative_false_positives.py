"""schemathesis' `negative_data_rejection` flags a query value it made invalid even when what it
sent is valid (`status: null` and `status: []` are both sent as `status=`, an object as nothing).
The suite counts such a failure as passed only when the request as sent is valid for the spec."""

from __future__ import annotations

from types import SimpleNamespace

from contract_tests._schemathesis_run import _sent_query_is_valid

MESSAGE = (
    "Invalid data should have been rejected\nInvalid component: parameters `limit`, `status` in"
    " query\n  - violates `type` at /properties/status (was array, became null)"
)


def _failure(uri: str, message: str = MESSAGE, name: str = "negative_data_rejection") -> bool:
    check = SimpleNamespace(
        name=name, failure_info=SimpleNamespace(failure=SimpleNamespace(message=message))
    )
    interaction = SimpleNamespace(request=SimpleNamespace(method="GET", uri=uri))
    return _sent_query_is_valid(check, interaction)


BASE = "http://127.0.0.1:1/v1/rl/model-resources"


ONE_LINE = (
    "Invalid data should have been rejected\nInvalid component: parameter `status` in query -"
    " violates `enum` at /properties/status/items"
)


def test_a_valid_request_as_sent_is_a_false_positive() -> None:
    assert _failure(f"{BASE}?status=&created_by=me")
    assert _failure(f"{BASE}?status=MODEL_RESOURCES_STATUS_READY&limit=5")
    # schemathesis also puts the violation on the component's line.
    assert _failure(f"{BASE}?status=", message=ONE_LINE)
    assert _failure("http://127.0.0.1:1/v1/rl/training-sessions?status=", message=ONE_LINE)
    assert not _failure(f"{BASE}?status=NOT_A_STATUS", message=ONE_LINE)


def test_an_invalid_request_as_sent_stays_a_failure() -> None:
    assert not _failure(f"{BASE}?status=NOT_A_STATUS")
    assert not _failure(f"{BASE}?limit=abc")
    assert not _failure(f"{BASE}?limit=-1")
    assert not _failure(f"{BASE}?undeclared=1")


def test_only_query_components_of_this_check_qualify() -> None:
    body = MESSAGE.replace("parameters `limit`, `status` in query", "request body")
    assert not _failure(f"{BASE}?status=", message=body)
    assert not _failure(f"{BASE}?status=", message="no component named")
    assert not _failure(f"{BASE}?status=", name="status_code_conformance")
    assert not _failure("http://127.0.0.1:1/v1/rl/not-a-route?status=")
