"""Running the client kit from the tests: against a driver command, from the repository root."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from together_rl_client_kit import KitOptions, KitReport, load_scenarios, run_kit

__all__ = ["REFERENCE_DRIVER", "REPO", "python_command", "run", "verdicts"]

REPO = Path(__file__).resolve().parents[2]
REFERENCE_DRIVER = Path(__file__).resolve().parent / "reference_driver.py"


def python_command(*args: str) -> str:
    """A driver command running this interpreter."""
    return shlex.join([sys.executable, *args])


def run(
    command: str,
    *,
    only: set[str] | None = None,
    call_timeout: float = 30.0,
    handshake_timeout: float = 30.0,
) -> KitReport:
    options = KitOptions(
        call_timeout=call_timeout,
        handshake_timeout=handshake_timeout,
        only=frozenset(only) if only is not None else None,
        cwd=str(REPO),
    )
    return run_kit(command, load_scenarios(), options)


def verdicts(report: KitReport) -> dict[str, str]:
    return {s.id: s.verdict for s in report.scenarios}
