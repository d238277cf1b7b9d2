"""`spec/openapi.yaml` is accepted, without any flag that skips validation, by the generators port
authors use: OpenAPI Generator (its parser and validator are shared by every language; one
language is generated end to end to keep this fast) and openapi-typescript.

OpenAPI Generator 7.26.0 comes from the `openapi-generator-cli` PyPI package (a dev dependency,
pinned in requirements.lock) and needs Java 11 or newer; openapi-typescript comes from npm through
`npx`, at the version pinned below. Where Java is missing the OpenAPI Generator tests are skipped
with the reason shown; a missing pinned package or `npx` follows `ci_policy` (a failure under
CI=true, a visible skip elsewhere). The four languages of docs/ports.md were checked by hand with
the command given there.
"""

from __future__ import annotations

import shutil
import subprocess
from importlib import resources
from importlib.util import find_spec
from pathlib import Path

import pytest
import yaml
from _npx import run_npx
from _spec_schema import REPO_ROOT, SPEC_PATH
from ci_policy import missing

OPENAPI_TYPESCRIPT = "openapi-typescript@7.13.0"


def _openapi_generator(*args: str) -> subprocess.CompletedProcess[str]:
    java = shutil.which("java")
    if java is None:  # a system runtime the project does not install: a skip, also under CI
        pytest.skip("java not found: install a Java 11+ runtime to run OpenAPI Generator")
    if find_spec("openapi_generator_cli") is None:
        missing("openapi-generator-cli is not installed: `make venv` installs the pinned one")
    jar = resources.files("openapi_generator_cli") / "openapi-generator.jar"
    return subprocess.run(
        # C1 only: a short run of the JVM, about half the wall time of the default JIT here.
        [java, "-XX:TieredStopAtLevel=1", "-jar", str(jar), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_openapi_generator_generates_a_client_from_the_spec(tmp_path: Path) -> None:
    result = _openapi_generator(
        "generate", "-g", "typescript", "-i", str(SPEC_PATH), "-o", str(tmp_path)
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]  # `generate` validates first; no skip flag
    assert (tmp_path / "apis" / "RlApi.ts").is_file(), sorted(p.name for p in tmp_path.iterdir())


def test_openapi_generator_validation_is_active(tmp_path: Path) -> None:
    """The check above would catch a regression: a link with an object `requestBody` (valid
    OpenAPI, refused by OpenAPI Generator's parser) makes `validate` fail."""
    spec = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))
    created = spec["paths"]["/rl/model-resources"]["post"]["responses"]["200"]
    created["links"]["StartTrainingSession"] = {
        "operationId": "startTrainingSession",
        "requestBody": {"model_resources_id": "$response.body#/id"},
    }
    broken = tmp_path / "openapi.yaml"
    broken.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    result = _openapi_generator("validate", "-i", str(broken))
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-4000:]
    assert "StartTrainingSession.requestBody is" in " ".join(output.split()), output[-4000:]


def test_openapi_typescript_generates_types_from_the_spec(tmp_path: Path) -> None:
    out = tmp_path / "together-rl.d.ts"
    result = run_npx(OPENAPI_TYPESCRIPT, str(SPEC_PATH), "-o", str(out), cwd=REPO_ROOT)
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    types = out.read_text(encoding="utf-8")
    assert "startTrainingSession" in types and "ForwardBackwardBody" in types
