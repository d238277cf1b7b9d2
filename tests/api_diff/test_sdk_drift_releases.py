"""`together-rl-sdk-drift` on older official releases, installed offline from the wheels that
the venv step caches in `.venv/sdk-releases` (never fetched by a test).

What each release lacks or has in other shapes was read from the two releases' code (a diff of
`together/types/post_training/` and `together/resources/post_training/`, 3.0.0 against 3.1.1;
`together/types/beta/rl/` for 2.40.0).
"""

from __future__ import annotations

import functools
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from _spec_edits import CHANGE_FIELDS
from ci_policy import missing
from together_rl_api_diff import load_document
from together_rl_api_diff._drift_report import drift_of
from together_rl_api_diff._sdk_drift import main
from together_rl_api_diff._sdk_surface import SdkSurfaceError, sdk_surface
from together_rl_api_diff._upstream import sdk_upstream

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(sys.prefix) / "sdk-releases"


@functools.cache
def surface(release: str) -> dict[str, Any]:
    version = release.split("==")[1]
    if not any(CACHE.glob(f"together-{version}-*.whl")):
        missing(f"{release} is not cached in {CACHE}; `make venv` downloads it")
    return sdk_surface(release, cache=CACHE, offline=True)


def drift(release: str) -> set[tuple[str, str, str]]:
    """(kind, location, clients) of every unexplained difference; the explained ones are
    exactly those of 3.1.1: the `payload_id` entries, the rollout estimate and the open
    operation status."""
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    report = drift_of(sdk_upstream(surface(release), spec))
    assert {f.change.location.removeprefix("#/components/schemas/") for f in report.explained} == {
        f"{schema}/properties/payload_id" for schema in PAYLOAD_SCHEMAS
    } | {IN_NO_RELEASE, "OperationStatusValue"}
    return {
        (f.change.kind, f.change.location.removeprefix("#/components/schemas/"), f.change.clients)
        for f in report.drift
    }


#: Our schemas that have `payload_id` (explained: the SDK sends it untyped).
PAYLOAD_SCHEMAS = (
    "ForwardBackwardBody",
    "CustomForwardBackwardBody",
    "SampleBody",
    "ForwardBackwardResult",
    "SampleOutput",
)
#: The rollout estimate: in the API reference, in no SDK release (explained too).
IN_NO_RELEASE = "#/paths/~1rl~1rollouts~1estimate/post"


def test_3_0_0_lacks_exactly_what_3_1_1_added() -> None:
    """3.1.1 added `model_resources.extend_expiry` (model_resource_extend_expiry_params.py),
    `inactive_timeout` in the create and estimate-cost params, and `inactive_timeout` and
    `expires_at` in the ModelResources model; nothing else of the RL surface moved."""
    assert drift("together==3.0.0") == {
        (
            "operation-removed",
            "#/paths/~1rl~1model-resources~1{model_resources_id}~1extend-expiry/post",
            "breaking",
        ),
        ("property-removed", "ModelResourcesCreate/properties/inactive_timeout", "breaking"),
        ("property-removed", "ModelResources/properties/inactive_timeout", "breaking"),
        ("property-removed", "ModelResources/properties/expires_at", "breaking"),
    }


def test_2_40_0_under_client_beta_rl_had_other_checkpoint_results_and_a_wider_gpu_enum() -> None:
    found = surface("together==2.40.0")
    assert found["namespace"] == "client.beta.rl"
    changes = drift("together==2.40.0")
    assert {
        ("property-removed", "TrainingCheckpointResult/properties/checkpoint", "breaking"),
        (
            "property-added-required",
            "TrainingCheckpointResult/properties/checkpoint_id",
            "compatible",
        ),
        ("property-removed", "InferenceCheckpointResult/properties/checkpoint", "breaking"),
        ("enum-value-added", "GpuType", "breaking"),
        ("property-removed", "ModelResources/properties/expires_at", "breaking"),
    } <= changes


def test_the_command_reports_in_the_same_json(capsys: pytest.CaptureFixture[str]) -> None:
    surface("together==3.0.0")  # skips (or fails under CI) when the wheel is not cached
    code = main(
        [
            "together==3.0.0",
            "--cache",
            str(CACHE),
            "--offline",
            "--format",
            "json",
            "--spec",
            str(REPO / "spec" / "openapi.yaml"),
            "--fail-on",
            "drift",
        ]
    )
    assert code == 1
    document = json.loads(capsys.readouterr().out)
    assert document["counts"] == {"behind": 0, "ahead": 4, "differ": 0}
    # payload_id, the estimate and the open operation status, as for 3.1.1
    assert len(document["explained"]) == 7
    finding = document["groups"]["ahead"][0]
    assert list(finding) == [*CHANGE_FIELDS, "group", "x-source", "explained"]
    assert {f["location"].rsplit("/", 1)[-1] for f in document["groups"]["ahead"]} == {
        "post",
        "inactive_timeout",
        "expires_at",
    }


def test_an_unknown_release_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["together==0.0.0.999", "--cache", str(CACHE), "--offline"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("together-rl-sdk-drift: together==0.0.0.999: cannot be installed: ")
    assert main(["tinker==1.0"]) == 2
    assert "not a release" in capsys.readouterr().err
    with pytest.raises(SdkSurfaceError, match="not a release"):
        sdk_surface("together>=3")


def _wheel_without_rl(directory: Path, version: str) -> None:
    """A tiny `together` release with no RL resources, as a wheel pip installs offline."""
    name = f"together-{version}"
    files = {
        "together/__init__.py": f'__version__ = "{version}"\n',
        "together/resources/__init__.py": "",
        f"{name}.dist-info/METADATA": "Metadata-Version: 2.1\nName: together\n"
        f"Version: {version}\n",
        f"{name}.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    files[f"{name}.dist-info/RECORD"] = "".join(f"{path},,\n" for path in files) + (
        f"{name}.dist-info/RECORD,,\n"
    )
    with zipfile.ZipFile(directory / f"{name}-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def test_a_release_without_an_rl_api_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _wheel_without_rl(tmp_path, "0.0.42")
    assert main(["together==0.0.42", "--cache", str(tmp_path), "--offline"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err == (
        "together-rl-sdk-drift: together==0.0.42: has no RL API "
        "(neither client.post_training nor client.beta.rl)\n"
    )
