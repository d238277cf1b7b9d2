"""A port's smoke run against the emulator, with the client kit's referee in front of it
playing two faults: the first forward-backward POST's connection is dropped after the emulator
committed it (the port must send the same key again and get the operation it created), and the
first two polls answer a status the spec does not list (the port must keep polling). The
verdict comes from what the referee and the emulator saw, and from the port's own report line.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from emulator_harness import start_live_emulator
from ports_build import REPO, Port
from together_rl_client_kit._faults import unknown_operation_status
from together_rl_client_kit._referee import Referee
from together_rl_client_kit._types import Attempt, Fault
from together_rl_emulator import create_app

__all__ = ["BODY", "SmokeRun", "run_smoke"]

BODY = REPO / "spec" / "examples" / "valid" / "forward_backward.cross_entropy.json"
_KEY = "ports-smoke-key"
# Long enough that the operation is still running when the port first reads it back.
_LATENCY_MS = 400
_FAULTS = (
    Fault(target="call", action="drop", commit=True, count=1),
    Fault(target="poll", action="poll_status", poll_status="unknown", count=2),
)


@dataclass
class SmokeRun:
    report: dict[str, Any]
    attempts: list[Attempt]
    operations_created: int
    stderr: str

    def problems(self) -> list[str]:
        """What the run got wrong; empty when the core flow held."""
        found: list[str] = []
        posts = [a for a in self.attempts if a.operation_id == "forwardBackward"]
        keys = {a.key for a in posts}
        if len(posts) < 3 or len(keys) != 1 or None in keys:
            found.append(
                f"expected >= 3 forward-backward POSTs with one key, saw {len(posts)} "
                f"with keys {sorted(map(str, keys))}"
            )
        if self.operations_created != 1:
            found.append(f"the emulator created {self.operations_created} operations, not 1")
        statuses = self.report.get("statuses", [])
        unknown = unknown_operation_status()
        if statuses.count(unknown) != 2:
            found.append(f"the port did not poll through the unknown status twice: {statuses}")
        if not statuses or statuses[-1] != "TRAINING_OPERATION_STATUS_COMPLETED":
            found.append(f"the port did not reach COMPLETED: {statuses}")
        if self.report.get("replayed_operation_id") != self.report.get("operation_id"):
            found.append(f"the replayed key gave another operation: {self.report}")
        if not isinstance(self.report.get("loss"), (int, float)):
            found.append(f"no loss reported: {self.report}")
        return found


def run_smoke(port: Port, work: Path, timeout_s: float = 300) -> SmokeRun:
    app = create_app(api_keys=[_KEY], op_latency_ms=_LATENCY_MS)
    live = start_live_emulator(app, api_key=_KEY)
    try:
        with Referee(live.base_url) as referee:
            referee.arm(_FAULTS, "forwardBackward")
            env = {
                **os.environ,
                **port.env(),
                "TOGETHER_BASE_URL": referee.base_url,
                "TOGETHER_API_KEY": _KEY,
            }
            done = subprocess.run(
                [*port.smoke(work), str(BODY)],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=timeout_s,
            )
            attempts = referee.attempts()
        stats = httpx.get(f"{live.base_url}/_emulator/stats", headers=live.headers()).json()
    finally:
        live.stop()
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    report = json.loads(lines[-1]) if lines else {}
    if done.returncode != 0 and not report:
        report = {"exit": done.returncode}
    return SmokeRun(report, attempts, _operations_created(stats), done.stderr[-4000:])


def _operations_created(stats: dict[str, Any]) -> int:
    created = stats.get("operations_created", 0)
    if isinstance(created, dict):
        return sum(int(v) for v in created.values())
    return int(created)
