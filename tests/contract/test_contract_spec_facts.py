"""The contract suite reads its schema facts from the spec
(`contract_tests/together_rl_contract_tests/_spec.py`): an edited copy of the spec is followed with
no other edit, and the few defaults the spec states only in prose are the ones its prose states."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import together_rl_spec
import yaml
from together_rl_contract_tests import _loss_reference as ref
from together_rl_contract_tests._spec import OPERATION_KINDS, PARAMS_KEYS, params_defaults, spec

REPO_ROOT = Path(__file__).resolve().parents[2]


def _facts_of(root: Path) -> dict[str, Any]:
    """What the contract suite under ``root`` derives from ``root/spec/openapi.yaml``."""
    script = """
import json
from together_rl_contract_tests import _http, _loss_reference, _spec
print(json.dumps({
    "kinds": _spec.OPERATION_KINDS,
    "operation_kinds": list(_http.OPERATION_KINDS),
    "terminal": sorted(_http.TERMINAL_STATUSES),
    "defaults": _loss_reference.DEFAULTS,
    "params_keys": _spec.PARAMS_KEYS,
    "agg_types": list(_spec.enum_values("GRPOLossAggregationType")),
    "invalid_examples": len(_spec.invalid_examples()),
    "module": _spec.__file__,
}))
"""
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    facts: dict[str, Any] = json.loads(result.stdout)
    return facts


def _copy_with_spec(tmp_path: Path, edited: dict[str, Any]) -> Path:
    """A copy of the contract suite beside a copy of the spec package holding the edited spec."""
    shutil.copytree(
        REPO_ROOT / "contract_tests" / "together_rl_contract_tests",
        tmp_path / "together_rl_contract_tests",
        ignore=shutil.ignore_patterns("__pycache__", "vectors"),
    )
    (tmp_path / "together_rl_spec").mkdir()
    shutil.copy(together_rl_spec.__file__, tmp_path / "together_rl_spec" / "__init__.py")
    spec_text = yaml.safe_dump(edited, sort_keys=False)
    (tmp_path / "together_rl_spec" / together_rl_spec.SPEC_FILE).write_text(
        spec_text, encoding="utf-8"
    )
    return tmp_path


def test_an_edited_spec_is_followed_with_no_other_edit(tmp_path: Path) -> None:
    edited = copy.deepcopy(spec())
    schemas = edited["components"]["schemas"]
    schemas["DPPOLossParams"]["properties"]["delta_low"]["default"] = 0.2
    schemas["PPOLossParams"]["properties"]["clip_high_threshold"]["x-server-default"] = 1.5
    schemas["GRPOLossAggregationType"]["enum"].append("GRPO_LOSS_AGGREGATION_TYPE_NEW_MODE")
    ops = "/rl/training-sessions/{session_id}/operations"
    paths = edited["paths"]
    paths[f"{ops}/new-kind"] = {
        "post": {**paths[f"{ops}/sample"]["post"], "operationId": "newKind"}
    }
    paths[f"{ops}/new-kind/{{operation_id}}"] = {
        "get": {**paths[f"{ops}/sample/{{operation_id}}"]["get"], "operationId": "getNewKind"}
    }
    before, after = _facts_of(REPO_ROOT), _facts_of(_copy_with_spec(tmp_path, edited))

    assert before["defaults"]["LOSS_TYPE_DPPO"]["delta_low"] == 0.15
    assert after["defaults"]["LOSS_TYPE_DPPO"]["delta_low"] == 0.2
    assert before["defaults"]["LOSS_TYPE_PPO"]["clip_high_threshold"] == 1.2
    assert after["defaults"]["LOSS_TYPE_PPO"]["clip_high_threshold"] == 1.5
    assert after["agg_types"][-1] == "GRPO_LOSS_AGGREGATION_TYPE_NEW_MODE"
    assert after["kinds"]["new-kind"] == ["newKind", "getNewKind"]
    assert after["operation_kinds"] == [*before["operation_kinds"], "new-kind"]
    assert after["terminal"] == before["terminal"]
    assert after["params_keys"] == before["params_keys"]
    # Found as package data of the copy, outside the repository (no path of the checkout).
    assert after["module"].startswith(str(tmp_path))
    assert after["invalid_examples"] == before["invalid_examples"] > 0


def test_operation_kinds_pair_each_post_with_its_poll() -> None:
    for kind, (submit, poll) in OPERATION_KINDS.items():
        assert poll.lower().startswith("get"), (kind, poll)
        # `forwardBackward` / `getForwardBackwardOperation`, `createTrainingCheckpoint` /
        # `getTrainingCheckpointOperation`
        assert submit.lower().removeprefix("create") in poll.lower(), (kind, submit, poll)


def test_every_params_object_of_the_spec_belongs_to_one_loss_type() -> None:
    declared = {
        key for key in spec()["components"]["schemas"]["LossConfig"]["properties"]
        if key.endswith("_params")
    }  # fmt: skip
    assert set(PARAMS_KEYS.values()) == declared
    assert len(set(PARAMS_KEYS.values())) == len(PARAMS_KEYS)


def test_server_defaults_are_read_from_the_spec() -> None:
    """`x-server-default` counts like `default`, on a property or the enum schema it refers to."""
    assert params_defaults("grpo_params") == {
        "clip_low_threshold": 0.8,
        "clip_high_threshold": 1.28,
        "beta": 0,
        "agg_type": "GRPO_LOSS_AGGREGATION_TYPE_FIXED_HORIZON",
        "ratio_type": "GRPO_LOSS_RATIO_TYPE_TOKEN",
    }
    cispo = {"clip_low_threshold": 0.0, "clip_high_threshold": 4.0}
    assert ref.DEFAULTS["LOSS_TYPE_CISPO"] == cispo
