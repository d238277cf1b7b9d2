"""together_rl_client_kit: a conformance kit for CLIENTS of the RL training API.

    together-rl-client-kit --driver "python -m together_rl_client_kit.drivers.wrapper"

The kit starts the emulator with a referee in front of it, starts the driver (any language, one
JSON line per call over stdin/stdout, see docs/ports.md), runs data-driven scenarios in which
the referee scripts faults, and judges the client from the traffic the referee saw.
"""

from __future__ import annotations

from ._driver import Declaration, DriverError, DriverProcess
from ._report import (
    KitReport,
    ScenarioResult,
    apply_expected_failures,
    read_expected_failures,
    render,
)
from ._rules import RULES
from ._runner import KitOptions, run_kit
from ._scenarios import ScenarioError, builtin_scenario_files, load_scenarios
from ._types import FEATURES, Scenario

__all__ = [
    "FEATURES",
    "RULES",
    "Declaration",
    "DriverError",
    "DriverProcess",
    "KitOptions",
    "KitReport",
    "Scenario",
    "ScenarioError",
    "ScenarioResult",
    "apply_expected_failures",
    "builtin_scenario_files",
    "load_scenarios",
    "read_expected_failures",
    "render",
    "run_kit",
]
