"""Every port of ports/ (and the TypeScript port of client_kit/ports) is generated from the spec
as it is now, built, and run against the emulator: resources, a session, a forward-backward
whose first answer is lost after the commit (the same key again: the same operation), polled to
COMPLETED through a status the spec does not list, then the same key once more (the same
operation). `make ports` runs this file alone."""

from __future__ import annotations

import pytest
from ports_build import build_port
from ports_registry import PORTS, Port
from ports_smoke import run_smoke


@pytest.mark.parametrize("port", PORTS, ids=[p.name for p in PORTS])
def test_port_builds_from_the_spec_and_runs_the_core_flow(port: Port) -> None:
    work = build_port(port)
    run = run_smoke(port, work)
    assert run.problems() == [], f"{port.language}: {run.report}\n{run.stderr}"
