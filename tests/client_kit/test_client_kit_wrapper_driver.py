"""The wrapper's driver passes every MUST and SHOULD scenario of the kit, and the kit's JSON
report says so in its stable shape."""

from __future__ import annotations

import json

from client_kit_runs import python_command, run
from together_rl_client_kit import render


def test_wrapper_driver_passes_every_scenario() -> None:
    report = run(python_command("-m", "together_rl_client_kit.drivers.wrapper"))
    failed = {s.id: s.message for s in report.scenarios if s.verdict != "PASS"}
    assert failed == {}
    assert report.exit_code() == 0
    assert {s.level for s in report.scenarios} == {"MUST", "SHOULD"}
    document = json.loads(render(report, "json"))
    assert document["driver"] == "together_rl (wrapper)"
    assert set(document["scenarios"][0]) == {"id", "level", "verdict", "message"}
