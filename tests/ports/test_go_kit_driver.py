"""The Go port's kit driver (ports/go/cmd/kitdriver over package port and the generated client):
it passes every scenario of the client kit in the documented CI job
(tests/ports/test_ports_ci_recipe.py); here, its variant that decodes operation statuses as a
closed enum (what a client generated from a closed OperationStatus does) fails
`poll.unknown-status` where the driver passes it."""

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


def test_a_closed_status_enum_fails_poll_unknown_status() -> None:
    scenarios = {"poll.unknown-status", "poll.pending"}
    report = run(f"{_built()} -closed-status-enum", only=scenarios)
    assert {s.id: s.verdict for s in report.scenarios if s.id in scenarios} == {
        "poll.unknown-status": "FAIL",
        "poll.pending": "PASS",
    }
    assert "poll-through-unknown-status" in next(
        s.message for s in report.scenarios if s.id == "poll.unknown-status"
    )


def test_the_go_kit_driver_polls_through_an_unknown_status() -> None:
    report = run(str(_built()), only={"poll.unknown-status"})
    assert [s.verdict for s in report.scenarios if s.id == "poll.unknown-status"] == ["PASS"]


def test_the_go_upload_threshold_is_the_specs() -> None:
    spec = (REPO / "spec" / "openapi.yaml").read_text(encoding="utf-8")
    threshold = re.search(r"x-upload-threshold-bytes:\s*(\d+)", spec)
    source = (REPO / GO.folder / "port" / "payload.go").read_text(encoding="utf-8")
    declared = re.search(r"const UploadThresholdBytes = (\d+)", source)
    assert threshold and declared and declared[1] == threshold[1]
