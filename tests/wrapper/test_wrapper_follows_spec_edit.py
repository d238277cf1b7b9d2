"""The wrapper follows the spec with no other edit: an edited copy of `spec/openapi.yaml` (a
bound, a limit, a page size, a new enum value, a new field of a parameter object) is generated
with the Makefile's own commands, and the wrapper, run against that client and its field lists
derived from the edited spec, accepts, sends and refuses what the edited spec says."""

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
    import together_rl
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
        except TypeError:  # a keyword the builder does not have
            return "TypeError"
        return None

    print(json.dumps({
        "client": together_rl_client.__file__,
        "wrapper": together_rl.__file__,
        "beta1_0.995": refused(lambda: AdamParams(beta1=0.995)),
        "delta_high_0.6": refused(lambda: losses.DPPO(delta_high=0.6)),
        "num_samples_100": refused(lambda: build_sample([[1, 2]], num_samples=100)),
        "max_tokens_9000": refused(lambda: SamplingParams(max_tokens=9000)),
        "new_sync_type": refused(lambda: build_weights_sync("drill")),
        "page_size": endpoint_request(list_training_sessions.ENDPOINT, None).params["limit"],
        "new_adam_field": refused(lambda: AdamParams(momentum=-1.0)),
        "new_adam_field_sent": refused(lambda: AdamParams(momentum=0.5)) or AdamParams(
            momentum=0.5
        ).to_wire(),
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
    schemas["AdamParams"]["properties"]["momentum"] = {"type": "number", "minimum": 0}
    for parameter in spec["paths"]["/rl/training-sessions"]["get"]["parameters"]:
        if parameter.get("name") == "limit":
            parameter["schema"]["default"] = 50


def _generate_commands(spec: Path, output: Path, fields: Path) -> str:
    """The Makefile's ``generate`` recipe, writing the client to ``output`` and the wrapper's
    field lists to ``fields``, from ``spec``."""
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
    command = re.sub(r"--output-path\s+\S+", f"--output-path {output}", command)
    (derive,) = [line for line in lines if "derive_fields.py" in line]
    return f"{command} && {derive} --spec {spec} --output {fields}"


def _probe(*paths: Path) -> dict[str, Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, paths), env.get("PYTHONPATH", "")])
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
    client_dir, wrapper_dir = tmp_path / "client", tmp_path / "wrapper"
    shutil.copytree(ROOT / "wrapper" / "together_rl", wrapper_dir / "together_rl")
    fields = wrapper_dir / "together_rl" / "_fields.py"
    command = _generate_commands(edited, client_dir / "together_rl_client", fields)
    result = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, f"{command}\n{result.stdout}\n{result.stderr}"

    before = _probe()
    after = _probe(client_dir, wrapper_dir)
    assert str(client_dir) in after["client"] and str(client_dir) not in before["client"]
    assert str(wrapper_dir) in after["wrapper"] and str(wrapper_dir) not in before["wrapper"]
    assert before == {
        **before,
        "beta1_0.995": None,
        "delta_high_0.6": None,
        "num_samples_100": None,
        "max_tokens_9000": None,
        "new_sync_type": "weight_sync_type",
        "page_size": 20,
        "new_adam_field": "TypeError",
        "new_adam_field_sent": "TypeError",
    }
    assert after == {
        **after,
        "beta1_0.995": "adam_params.beta1",
        "delta_high_0.6": "loss.dppo_params.delta_high",
        "num_samples_100": "num_samples",
        "max_tokens_9000": "sampling_params.max_tokens",
        "new_sync_type": None,
        "page_size": 50,
        "new_adam_field": "adam_params.momentum",
        "new_adam_field_sent": {"momentum": 0.5},
    }
