"""The catalog as published data: `catalog.json`, its sources, and what reads it."""

from __future__ import annotations

import json
from importlib.resources import files

import httpx
import pytest
from together_rl_emulator.base._catalog import CATALOG, TINY_MODEL, load_catalog
from together_rl_emulator.cost import OperationWork, operation_seconds
from together_rl_emulator.service import KINDS

PUBLISHED_START_MODEL = "Qwen/Qwen3.8-27B"  # docs.together.ai/docs/post-training/supported-models


def _data() -> dict:
    return json.loads(files("together_rl_emulator").joinpath("catalog.json").read_text())


def test_the_catalog_is_the_data_file() -> None:
    assert list(CATALOG) == [entry["name"] for entry in _data()["models"]]


def test_every_fact_of_every_model_names_its_source() -> None:
    for entry in _data()["models"]:
        facts = set(entry) - {"sources"}
        assert facts == set(entry["sources"]), entry["name"]
        assert all(source.strip() for source in entry["sources"].values())


def test_a_fact_without_a_source_is_refused() -> None:
    data = _data()
    del data["models"][0]["sources"]["vocab_size"]
    with pytest.raises(ValueError, match="no source for \\['vocab_size'\\]"):
        load_catalog(json.dumps(data))


def test_an_unknown_field_is_refused() -> None:
    data = _data()
    data["models"][0]["colour"] = "red"
    data["models"][0]["sources"]["colour"] = "emulator"
    with pytest.raises(ValueError, match="unknown fields \\['colour'\\]"):
        load_catalog(json.dumps(data))


def test_the_published_starting_model_and_the_tiny_test_model_are_served() -> None:
    assert PUBLISHED_START_MODEL in CATALOG
    assert CATALOG[PUBLISHED_START_MODEL].vocab_size == 248_320
    assert CATALOG[TINY_MODEL].vocab_size == 1_024


def test_the_catalog_has_a_mixture_of_experts_model() -> None:
    moe = [model for model in CATALOG.values() if model.is_mixture_of_experts]
    assert moe
    for model in moe:
        assert 0 < model.experts_per_token < model.num_experts
        assert model.active_parameters < model.parameters
    for model in CATALOG.values():
        if not model.is_mixture_of_experts:
            assert model.num_experts == model.experts_per_token == 0
            assert model.active_parameters == model.parameters


def test_a_mixture_of_experts_computes_by_its_active_parameters() -> None:
    moe = next(model for model in CATALOG.values() if model.is_mixture_of_experts)
    dense = CATALOG[PUBLISHED_START_MODEL]
    # Forward-backward is compute: the 3B-active MoE is faster than the 27B dense model, though
    # it holds more weights; the optimizer step reads every weight, so it is slower.
    tokens = {"input_tokens": 65_536}
    work = OperationWork(**tokens)
    fb, optim = KINDS["forward-backward"].seconds, KINDS["optim-step"].seconds
    assert operation_seconds(moe.name, fb, work) < operation_seconds(dense.name, fb, work)
    assert operation_seconds(moe.name, optim) > operation_seconds(dense.name, optim)


def test_supported_models_lists_the_catalog_with_its_limits(
    emulator_client: httpx.Client,
) -> None:
    body = emulator_client.get("/v1/rl/supported-models").json()
    listed = {entry["base_model"]: entry for entry in body["data"]}
    assert list(listed) == list(CATALOG)
    for name, model in CATALOG.items():
        (config,) = listed[name]["compute_configs"]
        assert config["generator_config"]["context_length"] == model.context_length
        assert config["trainer_config"]["lora"]["max_seq_length"] == model.max_seq_length
        assert ("full" in config["trainer_config"]) == model.supports_full_weight


def test_full_weight_resources_of_a_lora_only_model_are_refused(
    emulator_client: httpx.Client,
) -> None:
    lora_only = next(m for m in CATALOG.values() if not m.supports_full_weight)
    body = {"base_model": lora_only.name, "lora_enabled": False}
    for path in ("/v1/rl/model-resources", "/v1/rl/model-resources/estimate-cost"):
        r = emulator_client.post(path, json=body)
        assert r.status_code == 400, r.text
        assert r.json()["error"]["param"] == "lora_enabled"
    assert emulator_client.get("/v1/rl/model-resources").json()["data"] == []
    assert (
        emulator_client.post(
            "/v1/rl/model-resources", json={**body, "lora_enabled": True}
        ).status_code
        == 200
    )
