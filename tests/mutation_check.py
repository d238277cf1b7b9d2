"""Mutation check of the tests that were strengthened: plant each bug they name in a temporary
copy of the repository and show that those tests now fail (and passed before the bug).

    .venv/bin/python tests/mutation_check.py            # every mutation (about 2 minutes)
    .venv/bin/python tests/mutation_check.py ttl mask   # only those

Not part of `make test`: it is a check of the tests, not of the code. Each mutation is one exact
text replacement; the script fails if a replacement no longer applies (the code moved), if a test
fails before its bug is planted, or if a planted bug goes unnoticed. It also shows the CI policy:
with npx, make and the pinned SDK out of reach, CI=true fails the tests that need them, and
outside CI they are skipped.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MUTATIONS", "Mutation", "main"]

REPO = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    bug: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    #: Tests that must still pass with the bug in (shows what the old check missed).
    still_passing: tuple[str, ...] = ()
    #: A command run in the copy after planting (e.g. regenerate the vectors).
    then_run: tuple[str, ...] = field(default=())


E = "emulator/together_rl_emulator/"
W = "wrapper/together_rl/"
VALIDATION = "tests/emulator/test_validation.py::"
FAST = "tests/emulator/test_large_body_fast_paths.py::"

MUTATIONS = [
    Mutation(
        "infinite-loss",
        "the wrapper returns an infinite loss (x == approx(x) holds for inf)",
        W + "_results.py",
        'loss=float(output["loss"]),',
        'loss=float("inf"),',
        (
            "tests/wrapper/test_emulator_scenarios.py::test_post_fault_retried_creates_one_operation",
        ),
    ),
    Mutation(
        "params-dropped",
        "validation drops the loss params object (CISPO bounds, DRO beta) from the request",
        E + "checking/_requests.py",
        "loss=dict(loss),",
        'loss={"type": loss["type"]},',
        (
            VALIDATION + "test_cispo_bounds_may_be_equal",
            VALIDATION + "test_every_loss_type_accepts_its_minimal_inputs",
        ),
    ),
    Mutation(
        "float32-mask",
        "a float32 mask is refused (only int64 allowed: the spec's x-input-dtypes edited)",
        "spec_reader/together_rl_spec/openapi.yaml",  # the spec the emulator reads
        "        mask: [int64, float32]\n",
        "        mask: [int64]\n",
        (VALIDATION + "test_weights_and_mask_take_either_dtype",),
    ),
    Mutation(
        "negative-mask",
        "a negative mask entry masks the token out (m = 1[mask > 0] instead of 1[mask != 0])",
        E + "compute/_losses.py",
        "masks = [(w != 0).astype(np.float64) for w in weights]",
        "masks = [(w > 0).astype(np.float64) for w in weights]",
        (VALIDATION + "test_a_negative_mask_is_only_a_nonzero_mask",),
    ),
    Mutation(
        "short-tensor",
        "a tensor shorter than its sample is accepted",
        E + "checking/_requests.py",
        "    if length != n_tokens:",
        "    if length > n_tokens:",
        (VALIDATION + "test_any_odd_value_anywhere_is_refused_naming_it_unless_valid",),
    ),
    Mutation(
        "download-without-owner",
        "a checkpoint download skips the owner check (only the download route)",
        E + "state/_checkpoints.py",
        "        row = self.row(owner, checkpoint_id)\n        variant, files",
        "        row = self.store.get_checkpoint(None, checkpoint_id)"
        " or self.row(owner, checkpoint_id)\n        variant, files",
        ("tests/emulator/test_app_checkpoints.py::test_another_key_cannot_download_a_checkpoint",),
    ),
    Mutation(
        "idempotency-ignores-api-key",
        "the idempotency lookup ignores the API key (invisible over HTTP)",
        E + "state/_store.py",
        '" WHERE owner = ? AND session_id = ? AND kind = ? AND key = ?"',
        '" WHERE (owner = ? OR 1) AND session_id = ? AND kind = ? AND key = ?"',
        (
            "tests/emulator/test_idempotency_scope.py::test_a_record_is_found_only_in_its_own_scope",
            "tests/emulator/test_idempotency_scope.py::test_the_gate_replays_only_for_the_same_api_key",
        ),
        still_passing=("tests/emulator/test_app_idempotency.py",),
    ),
    Mutation(
        "ttl-never-pruned",
        "expired idempotency keys are never pruned",
        E + "state/_store.py",
        '"DELETE FROM idempotency WHERE created_at < ?"',
        '"DELETE FROM idempotency WHERE created_at < ? AND 0"',
        ("tests/emulator/test_app_idempotency.py::test_keys_expire_after_the_ttl_and_not_before",),
    ),
    Mutation(
        "ttl-pruned-early",
        "idempotency keys are pruned before the TTL is over",
        E + "state/_store.py",
        "(clock() - IDEMPOTENCY_TTL_S,)",
        "(clock() - IDEMPOTENCY_TTL_S / 2,)",
        ("tests/emulator/test_app_idempotency.py::test_keys_expire_after_the_ttl_and_not_before",),
    ),
    Mutation(
        "fresh-key-on-transport-retry",
        "a POST retried after a transport error gets a fresh Idempotency-Key (sync client)",
        W + "_sync_http.py",
        "                    raise _http.transport_error(exc, spec.operation, "
        "state.retries + 1) from exc\n"
        "            self.sleep(delay)\n",
        "                    raise _http.transport_error(exc, spec.operation, "
        "state.retries + 1) from exc\n"
        "                spec = __import__('dataclasses').replace(spec, headers={\n"
        "                    **dict(spec.headers or {}),\n"
        "                    'Idempotency-Key': __import__('uuid').uuid4().hex})\n"
        "            self.sleep(delay)\n",
        (
            "tests/wrapper/test_transport_mock.py::test_every_attempt_of_a_call_carries_the_same_key",
        ),
        still_passing=(
            "tests/wrapper/test_transport_mock.py::test_odd_bodies_are_retried_with_one_key",
        ),
    ),
    Mutation(
        "served-loss-off",
        "the served loss is not the loss of the logprobs the policy reports",
        E + "compute/_engine.py",
        'output: dict[str, Any] = {"loss": result.loss, "metrics": result.metrics}',
        'output: dict[str, Any] = {"loss": result.loss * 1.001, "metrics": result.metrics}',
        ("tests/emulator/test_app_operations.py::test_every_loss_type_completes_with_metrics",),
    ),
    Mutation(
        "unmasked-outputs",
        "per-token logprobs are not zeroed where the weight is 0",
        E + "compute/_engine.py",
        '"data": np.where(mask != 0, logp, 0.0).astype(np.float32),',
        '"data": np.asarray(logp).astype(np.float32),',
        ("tests/emulator/test_app_routes.py::test_forward_backward_shapes",),
    ),
    Mutation(
        "custom-fb-not-accumulated",
        "custom forward-backward completes but accumulates nothing",
        E + "compute/_trainer.py",
        "    accumulate(state, grads)\n",
        "    pass  # accumulate(state, grads)\n",
        (
            "tests/wrapper/test_operation_kinds_emulator.py::test_each_operation_sync_and_async",
            "tests/emulator/test_sdk_operation_kinds.py::test_raw_methods_of_every_new_operation",
        ),
    ),
    Mutation(
        "route-missed",
        "the access proof's route list misses the payload routes",
        "reliability/access.py",
        'if isinstance(op, dict) and "operationId" in op:',
        'if isinstance(op, dict) and "operationId" in op and "payloads" not in path:',
        ("tests/reliability/test_access.py::test_routes_are_enumerated_from_the_spec",),
    ),
    Mutation(
        "load-results-lost",
        "the load proof loses the results of all clients but the first",
        "reliability/load.py",
        "            results.append(time.monotonic() - submitted)",
        "            if index == 0:\n                results.append(time.monotonic() - submitted)",
        ("tests/reliability/test_load_smoke.py::test_load_smoke_has_no_error_and_keeps_order",),
    ),
    Mutation(
        "fixed-horizon-divisor",
        "GRPO's fixed horizon divides by B x the longest masked-in count, not B x T_max,"
        " and the vectors are regenerated from it",
        E + "compute/_losses.py",
        "return float(max(1, B * tok.t_max))  # FIXED_HORIZON",
        "return float(max(1, B * tok.n.max()))  # FIXED_HORIZON",
        ("tests/contract/test_vectors_fresh.py::test_published_losses_match_the_reference",),
        still_passing=("tests/contract/test_vectors_fresh.py::test_vectors_are_fresh",),
        then_run=("-m", "together_rl_contract_tests.vectors"),
    ),
    Mutation(
        "ppo-clip-high-both-bounds",
        "PPO clips with clip_high_threshold as both bounds; the vectors are regenerated from it",
        E + "compute/_losses.py",
        'float(p["clip_low_threshold"]),\n        float(p["clip_high_threshold"]),',
        'float(p["clip_high_threshold"]),\n        float(p["clip_high_threshold"]),',
        ("tests/contract/test_vectors_fresh.py::test_published_losses_match_the_reference",),
        still_passing=("tests/contract/test_vectors_fresh.py::test_vectors_are_fresh",),
        then_run=("-m", "together_rl_contract_tests.vectors"),
    ),
    Mutation(
        "fast-decode-nested-lists",
        "the fast decoder takes a number list with lists inside it (as_buffer flattens them)",
        E + "checking/_fast_decode.py",
        'if raw.count(b"[") != builder.lists:',
        "if False:",
        (
            FAST + "test_the_fast_decoder_declines_what_it_cannot_be_sure_of"
            "[a list hidden in a number list]",
        ),
    ),
    Mutation(
        "fast-decode-ints-among-floats",
        "the fast decoder reads a list of floats and ints as floats only (1 and 1.0 alike)",
        E + "checking/_fast_decode.py",
        "if (doubles == np.trunc(doubles)).any():",
        "if False:",
        (FAST + "test_the_fast_decoder_digest_is_the_plain_digest[a float made an int]",),
    ),
]


def _copy_repo(into: Path) -> Path:
    copy = into / "repo"
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"],
        cwd=REPO, capture_output=True, text=True, check=True,
    ).stdout.split("\n")  # fmt: skip
    for name in filter(None, files):
        source = REPO / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    return copy


def _env(copy: Path, **extra: str) -> dict[str, str]:
    """Imports resolve to the copy: its package folders come before the editable install."""
    roots = [
        *(copy / folder for folder in ("emulator", "wrapper", "generated", "spec")),
        *(copy / folder for folder in ("contract_tests", "client_kit")),
        copy,
    ]
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join(str(p) for p in roots)
    env.update(extra)
    return env


def _pytest(copy: Path, tests: tuple[str, ...], **env: str) -> tuple[int, str]:
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--no-header", *tests],
        cwd=copy, env=_env(copy, **env), capture_output=True, text=True, check=False,
    )  # fmt: skip
    lines = [line for line in run.stdout.splitlines() if line.strip()]
    return run.returncode, lines[-1] if lines else run.stderr.strip()[-200:]


def _check_imports_from(copy: Path) -> None:
    code = "import together_rl, together_rl_emulator; print(together_rl.__file__, together_rl_emulator.__file__)"  # noqa: E501
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=copy, env=_env(copy), capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    assert all(path.startswith(str(copy)) for path in out.split()), out


def run_mutation(copy: Path, mutation: Mutation) -> bool:
    target = copy / mutation.path
    original = target.read_text()
    if original.count(mutation.old) != 1:
        print(f"  ! {mutation.name}: the text to replace is not found once in {mutation.path}")
        return False
    every = (*mutation.tests, *mutation.still_passing)
    before, summary = _pytest(copy, every)
    if before != 0:
        print(f"  ! {mutation.name}: the tests fail without the bug: {summary}")
        return False
    target.write_text(original.replace(mutation.old, mutation.new))
    vectors = copy / "contract_tests" / "together_rl_contract_tests" / "vectors"
    saved_vectors = {p: p.read_bytes() for p in vectors.glob("*.json")}
    try:
        if mutation.then_run:
            subprocess.run(
                [sys.executable, *mutation.then_run], cwd=copy, env=_env(copy), check=True,
                capture_output=True,
            )  # fmt: skip
        ok = True
        for test in mutation.tests:
            code, summary = _pytest(copy, (test,))
            caught = code != 0
            ok &= caught
            print(f"  {'FAILS (caught)' if caught else 'PASSES (MISSED)':16} {test}  [{summary}]")
        for test in mutation.still_passing:
            code, summary = _pytest(copy, (test,))
            print(f"  {'passes (old check)' if code == 0 else 'fails':16} {test}  [{summary}]")
        return ok
    finally:
        target.write_text(original)
        for path, content in saved_vectors.items():
            path.write_bytes(content)


def show_ci_policy(copy: Path, scratch: Path) -> bool:
    """npx and make out of PATH, a `together` of the wrong version first on the path."""
    empty_bin = scratch / "empty-bin"
    empty_bin.mkdir()
    fake = scratch / "fake-sdk" / "together"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('__version__ = "0.0.0"\n')
    tests = (
        "tests/spec/test_redocly.py",
        "tests/spec/test_generated.py::test_generated_client_is_fresh",
        "tests/emulator/test_sdk_e2e.py",
    )
    ok = True
    pythonpath = os.pathsep.join([str(fake.parent), _env(copy)["PYTHONPATH"]])
    for ci in ("true", ""):
        for test in tests:  # one run each: under CI, a module that cannot import stops a run
            env = {**_env(copy), "PATH": str(empty_bin), "CI": ci, "PYTHONPATH": pythonpath}
            run = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfEs", test],
                cwd=copy, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            summary = [line for line in run.stdout.splitlines() if line.strip()][-1]
            failed = run.returncode not in (0, 5)  # 5: every test of the module skipped
            ok &= failed == (ci == "true")
            print(f"  CI={ci or '(unset)':6} exit {run.returncode} {test}: {summary}")
            for line in run.stdout.splitlines():
                if line.startswith(("FAILED", "ERROR", "SKIPPED")):
                    print(f"      {line[:160]}")
    return ok


def main(argv: list[str]) -> int:
    chosen = [m for m in MUTATIONS if not argv or any(a in m.name for a in argv)]
    with tempfile.TemporaryDirectory(prefix="mutation-check-") as tmp:
        copy = _copy_repo(Path(tmp))
        _check_imports_from(copy)
        results = {}
        for mutation in chosen:
            print(f"\n[{mutation.name}] {mutation.bug}\n  planted in {mutation.path}")
            results[mutation.name] = run_mutation(copy, mutation)
        if not argv or "ci" in argv:
            print("\n[ci-policy] npx and make missing from PATH, `together` 0.0.0 instead of 3.1.1")
            results["ci-policy"] = show_ci_policy(copy, Path(tmp))
    print("\nsummary: " + ", ".join(f"{k} {'ok' if v else 'NOT OK'}" for k, v in results.items()))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
