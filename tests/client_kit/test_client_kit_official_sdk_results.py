"""The official SDK's results published in docs/ports.md are what the kit finds now (the table
holds verdicts and rule names only, so it is deterministic); `make client-kit-sdk-report`
regenerates it."""

from __future__ import annotations

from ci_policy import import_required
from client_kit_runs import REPO, python_command, run
from together_rl_client_kit._publish import published_table, results_table

import_required("together", "3.1.1")


def test_published_official_sdk_results_are_fresh() -> None:
    report = run(python_command("-m", "together_rl_client_kit.drivers.official_sdk"))
    assert published_table(REPO / "docs" / "ports.md") == results_table(report), (
        "docs/ports.md is stale: run `make client-kit-sdk-report`"
    )
