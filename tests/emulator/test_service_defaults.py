"""What the emulator gives when a creation request leaves a field out: the service's defaults,
each from the spec's `x-server-default` with its source."""

from __future__ import annotations

import httpx
from _emulator_bodies import TINY, stats
from _operation_kind_bodies import sample_body, submit_kind
from ci_policy import import_required
from emulator_harness import LiveEmulator
from together_rl_emulator.base._spec import spec_defaults

import_required("together", "3.1.1")
from together.post_training import ModelResourcesClient  # noqa: E402


def test_the_spec_states_the_compute_defaults() -> None:
    assert spec_defaults("ComputeConfigRequest") == {
        "gpu_type": "B200-SXM",
        "num_generator_replicas": 1,
    }
    assert spec_defaults("SessionCreate") == {"load_optimizer": True}


def test_resources_created_without_compute_config_have_a_generator(
    emulator_client: httpx.Client,
) -> None:
    r = emulator_client.post("/v1/rl/model-resources", json={"base_model": TINY})
    assert r.status_code == 200, r.text
    assert r.json()["compute_config"] == {"num_generator_replicas": 1, "gpu_type": "B200-SXM"}
    partial = emulator_client.post(
        "/v1/rl/model-resources", json={"base_model": TINY, "compute_config": {}}
    ).json()
    assert partial["compute_config"]["num_generator_replicas"] == 1
    cost = emulator_client.post("/v1/rl/model-resources/estimate-cost", json={"base_model": TINY})
    with_one = emulator_client.post(
        "/v1/rl/model-resources/estimate-cost",
        json={"base_model": TINY, "compute_config": {"num_generator_replicas": 1}},
    )
    assert cost.json() == with_one.json()


def test_trainer_only_resources_refuse_to_sample(emulator_client: httpx.Client) -> None:
    resources = emulator_client.post(
        "/v1/rl/model-resources",
        json={"base_model": TINY, "compute_config": {"num_generator_replicas": 0}},
    ).json()
    sid = emulator_client.post(
        "/v1/rl/training-sessions", json={"model_resources_id": resources["id"]}
    ).json()["id"]
    r = submit_kind(emulator_client, sid, "sample", sample_body([5, 6]), "trainer-only")
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert error["param"] == "session_id" and "trainer-only" in error["message"]
    assert stats(emulator_client).get("operations_created", {}) == {}


def test_the_sdk_s_defaults_give_a_session_that_samples(live_emulator: LiveEmulator) -> None:
    # The SDK's Tinker layer creates resources like this (no compute_config), then samples.
    resources = ModelResourcesClient.create(
        api_key=live_emulator.api_key, base_url=live_emulator.base_url, base_model=TINY
    )
    try:
        with resources.create_session(interval=0.01) as session:
            assert session.has_generator
            result = session.generator.sample(
                {"chunks": [{"encoded_text": {"tokens": [5, 6]}}]},
                sampling_params={"max_tokens": 3, "stop": ["\n"]},
                interval=0.01,
            )
            assert 1 <= len(result.sequences[0].tokens) <= 3
    finally:
        resources.stop()
