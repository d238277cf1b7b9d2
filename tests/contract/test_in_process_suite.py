"""The contract suite against the emulator served in-process: every phase `make conformance`
runs, with fewer fuzzed examples."""

from __future__ import annotations

from together_rl_contract_tests import SuiteOptions, run_suite
from together_rl_contract_tests._results import FAILED

KINDS = ("forward-backward", "optim-step", "sample", "weights-sync", "custom-forward-backward")
SPEC_OPERATIONS = {
    "POST /rl/model-resources",
    "GET /rl/model-resources/{model_resources_id}",
    "GET /rl/supported-models",
    "POST /rl/rollouts/estimate",
    "POST /rl/training-sessions",
    "GET /rl/training-sessions",
    "GET /rl/training-sessions/{session_id}",
    "POST /rl/training-sessions/{session_id}/stop",
    "POST /rl/training-sessions/{session_id}/payloads/upload-url",
    "POST /rl/training-sessions/{session_id}/payloads/{payload_id}/download-url",
    *(f"POST /rl/training-sessions/{{session_id}}/operations/{kind}" for kind in KINDS),
    *(
        f"GET /rl/training-sessions/{{session_id}}/operations/{kind}/{{operation_id}}"
        for kind in KINDS
    ),
}


def test_emulator_passes_the_suite(serve_emulator, tmp_path) -> None:  # type: ignore[no-untyped-def]
    options = SuiteOptions(
        max_examples=3,
        report_dir=tmp_path,
        progress=False,
    )
    with serve_emulator() as target:
        suite = run_suite(target, options)
    failures = [
        f"{r.part} {r.operation} {r.check}: {r.detail[:600]}"
        for r in suite.results
        if r.status == FAILED
    ]
    assert not failures, "\n\n".join(failures)
    fuzzed = {
        r.operation for r in suite.results if r.part == "schemathesis" and r.status == "passed"
    }
    assert fuzzed >= SPEC_OPERATIONS, SPEC_OPERATIONS - fuzzed
    parts = {r.part for r in suite.results if r.status == "passed"}
    assert parts == {"schemathesis", "scenario", "loss-math"}
    assert (tmp_path / "conformance.junit.xml").exists()
    assert "Verdict: **PASSED**" in (tmp_path / "conformance.md").read_text()
