"""A query parameter the operation does not declare is refused with 400 naming it (the official
SDK sends only declared ones, and the project's proxy calls any other a violation): a typo is
said, and a body field sent in the query does nothing."""

from __future__ import annotations

import re

import httpx
import pytest
from _checkpoint_helpers import RESOURCES, new_resources, new_session_on
from _emulator_bodies import FB, fb_body
from together_rl_emulator.base._spec import load_spec

HTTP_METHODS = ("get", "post", "patch", "delete", "put")


def _spec_routes() -> list[tuple[str, str]]:
    routes = []
    for path, item in load_spec()["paths"].items():
        for method in HTTP_METHODS:
            if method in item:
                routes.append((method.upper(), "/v1" + re.sub(r"\{[^}]+\}", "x-1", path)))
    return routes


def test_a_typo_in_a_list_query_is_refused(emulator_client: httpx.Client) -> None:
    c = emulator_client
    for _ in range(3):
        new_resources(c)
    r = c.get(RESOURCES, params={"limt": 1})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "limt"
    assert "limit" in r.json()["error"]["message"]  # the declared ones are named
    assert len(c.get(RESOURCES, params={"limit": 1}).json()["data"]) == 1


def test_a_body_field_in_the_query_runs_nothing(emulator_client: httpx.Client) -> None:
    c = emulator_client
    session = new_session_on(c, new_resources(c)["id"])["id"]
    r = c.post(
        FB.format(session),
        params={"forward_only": "true"},
        json=fb_body(),
        headers={"Idempotency-Key": "k"},
    )
    assert r.status_code == 400 and r.json()["error"]["param"] == "forward_only", r.text
    assert c.get("/_emulator/stats").json()["operations_created"] == {}


@pytest.mark.parametrize(("method", "path"), _spec_routes())
def test_every_operation_refuses_an_undeclared_query_parameter(
    emulator_client: httpx.Client, method: str, path: str
) -> None:
    r = emulator_client.request(method, path, params={"no_such_parameter": "1"})
    assert r.status_code == 400, r.text
    assert r.json()["error"]["param"] == "no_such_parameter"
    anonymous = emulator_client.request(
        method, path, params={"no_such_parameter": "1"}, headers={"Authorization": ""}
    )
    assert anonymous.status_code == 401  # the key is checked first
