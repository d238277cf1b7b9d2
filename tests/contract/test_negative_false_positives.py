"""The one place schemathesis itself is wrong, and the suite says so: a `negative_data_rejection`
whose invalid components are query parameters that the request as it went over the wire does not
carry at all (an object given to an optional query parameter is serialised to nothing). Every
other negative case accepted stays a failure, `?status=` (an empty value, which is not one of the
filter's values) included."""

from __future__ import annotations

from types import SimpleNamespace

from together_rl_contract_tests._results import FAILED, PASSED
from together_rl_contract_tests._schemathesis_verdict import failure_verdict

BASE = "http://127.0.0.1:1/v1/rl/model-resources"
MESSAGE = (
    "Invalid data should have been rejected\nInvalid component: parameters `limit`, `status` in"
    " query\n  - violates `type` at /properties/status (was array, became object)"
)
ONE_LINE = (
    "Invalid data should have been rejected\nInvalid component: parameter `status` in query -"
    " violates `enum` at /properties/status/items"
)


def _verdict(uri: str, message: str = MESSAGE, name: str = "negative_data_rejection") -> str:
    """The verdict on a failed check whose request went over the wire as ``GET uri``."""
    request = SimpleNamespace(method="GET", uri=uri, body=None, headers={})
    response = SimpleNamespace(status_code=200, headers={}, content=b"{}")
    interaction = SimpleNamespace(request=request, response=response)
    status, _note = failure_verdict(name, message, interaction, is_emulator=True)
    return status


def test_query_parameters_not_sent_at_all_are_schemathesis_wrong() -> None:
    # What went over the wire: `GET /v1/rl/model-resources` (no query) and one with only a
    # valid `created_by`.
    assert _verdict(BASE) == PASSED
    assert _verdict(f"{BASE}?created_by=me") == PASSED
    assert _verdict(f"{BASE}", message=ONE_LINE) == PASSED


def test_an_empty_or_unknown_status_accepted_is_a_failure() -> None:
    assert _verdict(f"{BASE}?status=") == FAILED
    assert _verdict(f"{BASE}?status=", message=ONE_LINE) == FAILED
    assert _verdict("http://127.0.0.1:1/v1/rl/training-sessions?status=", ONE_LINE) == FAILED
    assert _verdict(f"{BASE}?status=NOT_A_STATUS", message=ONE_LINE) == FAILED


def test_an_invalid_request_as_sent_stays_a_failure() -> None:
    assert _verdict(f"{BASE}?limit=abc") == FAILED
    assert _verdict(f"{BASE}?limit=-1") == FAILED
    assert _verdict(f"{BASE}?undeclared=1") == FAILED


def test_only_query_components_of_this_check_qualify() -> None:
    body = MESSAGE.replace("parameters `limit`, `status` in query", "request body")
    assert _verdict(BASE, message=body) == FAILED
    assert _verdict(BASE, message="no component named") == FAILED
    assert _verdict(BASE, name="status_code_conformance") == FAILED
    assert _verdict("http://127.0.0.1:1/v1/rl/not-a-route") == FAILED
