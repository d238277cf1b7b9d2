"""The bounds, pattern and default the published API reference gives and the SDK does not
(`x-source: docs:post-training/...`), enforced by the emulator from the spec: a breach is a 400
naming the field, nothing is created or changed; and what the official SDK sends still passes."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from _checkpoint_helpers import RESOURCES, SESSIONS, new_resources, new_session_on
from _emulator_bodies import TINY
from together_rl_emulator.base._spec import schema

BASE_WEIGHTS = schema("ModelResourcesCreate")["properties"]["base_weights_ref"]


def _refused(response: httpx.Response, param: str) -> str:
    assert response.status_code == 400, response.text
    error: dict[str, Any] = response.json()["error"]
    assert error["param"] == param, error
    message: str = error["message"]
    assert message.startswith(f"{param}: "), message
    return message


@pytest.mark.parametrize(
    "ref",
    [
        "together://ml_" + "a" * (BASE_WEIGHTS["maxLength"] - len("together://ml_") + 1),
        "hf://org/model",
        "together://ml_abc@rev1",
        "together://ml_",
    ],
)
def test_a_base_weights_ref_off_the_reference_form_is_refused(
    emulator_client: httpx.Client, ref: str
) -> None:
    for path in (RESOURCES, f"{RESOURCES}/estimate-cost"):
        answer = emulator_client.post(path, json={"base_model": TINY, "base_weights_ref": ref})
        _refused(answer, "base_weights_ref")
    assert emulator_client.get(RESOURCES).json()["data"] == []


@pytest.mark.parametrize("ref", ["together://ml_AbC123", "together://ml_abc@rv_7Zq"])
def test_a_registry_reference_is_taken(emulator_client: httpx.Client, ref: str) -> None:
    created = new_resources(emulator_client, base_weights_ref=ref, lora_enabled=False)
    assert created["base_weights_ref"] == ref


def test_lora_enabled_defaults_to_true(emulator_client: httpx.Client) -> None:
    lora_enabled = schema("ModelResourcesCreate")["properties"]["lora_enabled"]
    assert lora_enabled["x-server-default"] is True  # the server's, not sent by generated clients
    assert new_resources(emulator_client)["lora_enabled"] is True
    assert new_resources(emulator_client, lora_enabled=False)["lora_enabled"] is False


def test_a_display_name_beyond_128_characters_is_refused(emulator_client: httpx.Client) -> None:
    resources = new_resources(emulator_client)["id"]
    longest = "n" * schema("SessionCreate")["properties"]["display_name"]["maxLength"]
    too_long = longest + "n"
    created = emulator_client.post(
        SESSIONS, json={"model_resources_id": resources, "display_name": too_long}
    )
    assert "128" in _refused(created, "display_name")
    assert emulator_client.get(SESSIONS).json()["data"] == []
    session = new_session_on(emulator_client, resources, display_name=longest)
    assert session["display_name"] == longest
    patched = emulator_client.patch(f"{SESSIONS}/{session['id']}", json={"display_name": too_long})
    _refused(patched, "display_name")
    kept = emulator_client.get(f"{SESSIONS}/{session['id']}").json()
    assert kept["display_name"] == longest
