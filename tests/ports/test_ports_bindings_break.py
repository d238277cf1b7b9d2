"""A spec edit that breaks a port's code fails the port's build with the compiler's words,
naming the language, the file and the line: here `ForwardBackwardOperation.status` renamed to
`state` in a copy of the spec, against a copy of the Go port (Go: the fastest build). The same
port builds from the spec as it is: tests/ports/test_ports_smoke.py."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from ports_build import REPO, SPEC, PortBuildError, build_port
from ports_registry import GO


def _renamed_status(tmp_path: Path) -> Path:
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    operation = spec["components"]["schemas"]["ForwardBackwardOperation"]
    operation["properties"]["state"] = operation["properties"].pop("status")
    operation["required"] = ["state" if r == "status" else r for r in operation["required"]]
    edited = tmp_path / "openapi.yaml"
    edited.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return edited


def test_a_renamed_field_fails_the_go_build_naming_file_and_line(tmp_path: Path) -> None:
    work = tmp_path / "go"
    shutil.copytree(REPO / GO.folder, work, ignore=shutil.ignore_patterns("rlapi", ".build"))
    with pytest.raises(PortBuildError) as failure:
        build_port(GO, work, spec=_renamed_status(tmp_path))
    smoke = (work / "cmd" / "smoke" / "main.go").read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(smoke, 1) if "operation.GetStatus()" in text)
    message = str(failure.value)
    assert message.startswith("Go port (ports/go) does not build against this spec:"), message
    assert f"ports/go/cmd/smoke/main.go:{line}: operation.GetStatus undefined" in message, message
