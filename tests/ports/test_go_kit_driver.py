"""The Go port's kit driver (ports/go/cmd/kitdriver over package port and the generated client)
passes every scenario of the client kit; its variant that decodes operation statuses as a closed
enum (what a client generated from a closed OperationStatus does) fails `poll.unknown-status`."""

from __future__ import annotations

import re
from pathlib import Path

from ports_build import REPO, build_port
from ports_registry import GO
from together_rl_client_kit import KitOptions, KitReport, load_scenarios, run_kit

DRIVER = REPO / GO.folder / ".build" / "kitdriver"


def run(command: str, only: set[str] | None = None) -> KitReport:
    options = KitOptions(only=frozenset(only) if only else None, cwd=str(REPO))
    return run_kit(command, load_scenarios(), options)


def _built() -> Path:
    build_port(GO)
    return DRIVER


def test_the_go_kit_driver_passes_every_scenario() -> None:
    report = run(str(_built()))
    assert report.driver == "go port (openapi-generator go)"
    assert {s.id: s.message for s in report.scenarios if s.verdict != "PASS"} == {}


def test_a_closed_status_enum_fails_poll_unknown_status() -> None:
    scenarios = {"poll.unknown-status", "poll.pending"}
    report = run(f"{_built()} -closed-status-enum", only=scenarios)
    assert {s.id: s.verdict for s in report.scenarios if s.id in scenarios} == {
        "poll.unknown-status": "FAIL",
        "poll.pending": "PASS",
    }


def test_the_go_upload_threshold_is_the_specs() -> None:
    spec = (REPO / "spec" / "openapi.yaml").read_text(encoding="utf-8")
    threshold = re.search(r"x-upload-threshold-bytes:\s*(\d+)", spec)
    source = (REPO / GO.folder / "port" / "payload.go").read_text(encoding="utf-8")
    declared = re.search(r"const UploadThresholdBytes = (\d+)", source)
    assert threshold and declared and declared[1] == threshold[1]
