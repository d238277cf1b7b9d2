"""The wrapper follows the spec with no other edit: an edited copy of `spec/openapi.yaml` (a
bound, a limit, a page size, a new enum value) is generated with the Makefile's own command, and
the wrapper, run against that client, accepts and refuses what the edited spec says."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]

# What the wrapper reports about the facts the drill edits, against whichever generated client
# is first on the path.
PROBE = textwrap.dedent(
    """
    import json
    import together_rl_client
    from together_rl import InvalidRequestError, SamplingParams, losses
    from together_rl._bodies import AdamParams, build_sample, build_weights_sync
    from together_rl._http import endpoint_request
    from together_rl_client.api.rl import list_training_sessions

    def refused(build):
        try:
            build()
        except InvalidRequestError as exc:
            return exc.field
        return None

    print(json.dumps({
        "client": together_rl_client.__file__,
        "beta1_0.995": refused(lambda: AdamParams(beta1=0.995)),
        "delta_high_0.6": refused(lambda: losses.DPPO(delta_high=0.6)),
        "num_samples_100": refused(lambda: build_sample([[1, 2]], num_samples=100)),
        "max_tokens_9000": refused(lambda: SamplingParams(max_tokens=9000)),
        "new_sync_type": refused(lambda: build_weights_sync("drill")),
        "page_size": endpoint_request(list_training_sessions.ENDPOINT, None).params["limit"],
    }))
    """
)


def _edit(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    schemas["AdamParams"]["properties"]["beta1"]["exclusiveMaximum"] = 0.99
    schemas["DPPOLossParams"]["properties"]["delta_high"]["maximum"] = 0.5
    # The spec states no maximum for these (the API has none); the edit adds one.
    schemas["SampleBody"]["properties"]["num_samples"]["maximum"] = 64
    schemas["SamplingParams"]["properties"]["max_tokens"]["maximum"] = 8192
    schemas["WeightSyncType"]["enum"].append("WEIGHT_SYNC_TYPE_DRILL")
    for parameter in spec["paths"]["/rl/training-sessions"]["get"]["parameters"]:
        if parameter.get("name") == "limit":
            parameter["schema"]["default"] = 50


def _generate_command(spec: Path, output: Path) -> str:
    if shutil.which("make") is None:
        pytest.skip("make not found: the drill runs the Makefile's generate command")
    dry_run = subprocess.run(
        ["make", "--no-print-directory", "-n", "generate"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines = re.sub(r"\\\n\s*", " ", dry_run).splitlines()
    (command,) = [line for line in lines if "openapi-python-client generate" in line]
    command = re.sub(r"--path\s+\S+", f"--path {spec}", command)
    return re.sub(r"--output-path\s+\S+", f"--output-path {output}", command)


def _probe(client_dir: Path | None) -> dict[str, Any]:
    env = dict(os.environ)
    if client_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(client_dir), env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
    answer: dict[str, Any] = json.loads(result.stdout)
    return answer


def test_wrapper_follows_an_edited_spec(tmp_path: Path) -> None:
    spec = yaml.safe_load((ROOT / "spec" / "openapi.yaml").read_text(encoding="utf-8"))
    _edit(spec)
    edited = tmp_path / "openapi.yaml"
    edited.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    client_dir = tmp_path / "client"
    command = _generate_command(edited, client_dir / "together_rl_client")
    result = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"

    before = _probe(None)
    after = _probe(client_dir)
    assert str(client_dir) in after["client"] and str(client_dir) not in before["client"]
    assert before == {
        **before,
        "beta1_0.995": None,
        "delta_high_0.6": None,
        "num_samples_100": None,
        "max_tokens_9000": None,
        "new_sync_type": "weight_sync_type",
        "page_size": 20,
    }
    assert after == {
        **after,
        "beta1_0.995": "adam_params.beta1",
        "delta_high_0.6": "loss.dppo_params.delta_high",
        "num_samples_100": "num_samples",
        "max_tokens_9000": "sampling_params.max_tokens",
        "new_sync_type": None,
        "page_size": 50,
    }
