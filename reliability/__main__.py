"""`python -m reliability [soak|crash|load|hostile|access|negative|shared ...]`: the long runs.

With no argument every proof runs with its long parameters; the figures replace the block
between the markers in docs/reliability.md. Exit code 0 only when every proof held.
"""

# ruff: noqa: E501  (the corpus / report lines are data: one case or figure per line)

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

DOC = Path(__file__).resolve().parent.parent / "docs" / "reliability.md"
START, END = "<!-- figures:start -->", "<!-- figures:end -->"


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counts.items())


def _comparison(c: Any) -> str:
    return (
        f"- vs the fault-free run: max policy (trainer weights) difference "
        f"{c.max_abs_policy_diff:.1e}, sampler weights and Adam moments {c.max_abs_other_diff:.1e}, "
        f"accumulated gradients (relative) {c.max_rel_grad_diff:.1e}; counter mismatches "
        f"{len(c.counter_mismatches)}; results that differ {len(c.result_mismatches)}"
    )


def _stream_verdict(r: Any, total: int, made: int) -> list[str]:
    """The closing lines of a stream proof (soak, crash): comparison, duplicates, losses, errors."""
    return [
        _comparison(r.comparison),
        f"- duplicates: {max(0, made - total)}; losses: {total - sum(r.results_returned.values())}; "
        f"**{'PASS' if r.ok else 'FAIL'}**",
    ] + [
        f"  - {e}"
        for e in (r.errors + r.comparison.counter_mismatches + r.comparison.result_mismatches)[:10]
    ]


def _soak(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from .soak import run_soak

    r = run_soak(a.soak_submissions, n_sessions=4, fault_rate=0.3, seed=7)
    armed = ", ".join(f"{k} {v}" for k, v in sorted(r.faults_armed.items()))
    seen = ", ".join(f"{k} {v}" for k, v in sorted(r.faults_seen.items()))
    total, made = sum(r.expected_operations.values()), sum(r.operations_created.values())
    return r.ok, [
        f"### Fault soak ({r.duration_s:.0f} s)",
        "",
        f"- operations submitted: {_kinds(r.expected_operations)} on {r.sessions} sessions; "
        f"/v1 requests sent by the wrapper: {r.requests}",
        f"- faults injected ({sum(r.faults_armed.values())}, {sum(r.faults_armed.values()) / max(1, r.requests):.0%} of the requests): {armed}",
        f"- faults seen by the wrapper: {seen}; left armed at the end: {r.faults_left_armed}",
        f"- operations created: {_kinds(r.operations_created)}; idempotent replays: {_kinds(r.idempotent_replays)}",
        f"- per session: optimizer steps {r.steps} (fault-free run: {r.expected_steps}), weights versions "
        f"{r.weights_versions} ({r.expected_weights_versions}), passes accumulated since the last step "
        f"{r.accumulated_passes} ({r.expected_passes})",
        f"- futures that returned their result: {_kinds(r.results_returned)}; errors: {len(r.errors)}",
        *_stream_verdict(r, total, made),
    ]


def _crash(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from .crash import run_crash_loop

    r = run_crash_loop(a.crash_submissions, n_sessions=2, kills=a.crash_kills, seed=11)
    total, stored = sum(r.expected_operations.values()), sum(r.operations_stored.values())
    return r.ok, [
        f"### Crash loop ({r.duration_s:.0f} s)",
        "",
        f"- operations submitted: {_kinds(r.expected_operations)} on {r.sessions} sessions; "
        f"kill -9: {r.kills}; restarts: {r.restarts}",
        f"- acknowledged operations at each kill (of {total}): {r.kill_points}",
        f"- operations stored: {_kinds(r.operations_stored)}; idempotency records: {_kinds(r.idempotency_records)}; "
        f"not completed: {r.unfinished_operations}",
        f"- per session: optimizer steps {r.steps} (fault-free run: {r.expected_steps}), passes accumulated "
        f"since the last step {r.accumulated_passes} ({r.expected_passes})",
        f"- futures that returned their result: {_kinds(r.results_returned)}; errors: {len(r.errors)}",
        *_stream_verdict(r, total, stored),
    ]


def _load(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from .load import run_load

    r = run_load(clients=32, sessions=8, seconds=a.load_seconds)
    return r.ok, [
        f"### Load ({r.clients} clients, {r.sessions} sessions, {r.duration_s:.0f} s)",
        "",
        f"- the client and the emulator share the machine's {os.cpu_count()} cores (1-minute load "
        f"average {os.getloadavg()[0]:.2f} as the run ended): throughput and latencies are a "
        "floor, not a benchmark",
        f"- operations completed: {r.operations} ({r.operations / r.duration_s:.0f}/s); HTTP requests: {r.requests}; "
        f"GETs per operation: {r.gets_per_operation:.2f}",
        f"- statuses: {r.status_counts}; errors: {len(r.errors)}; server log errors: {r.server_error_lines}; "
        f"order violations: {len(r.order_violations)}",
        f"- submit (POST) latency: p50 {r.submit_p50_ms:.1f} ms, p99 {r.submit_p99_ms:.1f} ms",
        f"- poll (GET) latency: p50 {r.get_p50_ms:.1f} ms, p99 {r.get_p99_ms:.1f} ms",
        f"- submit-to-result: p50 {r.result_p50_ms:.1f} ms, p99 {r.result_p99_ms:.1f} ms",
        f"- emulator RSS: {r.rss_start_kib / 1024:.0f} MiB after start, peak (VmHWM) {r.rss_peak_kib / 1024:.0f} MiB; "
        f"**{'PASS' if r.ok else 'FAIL'}**",
    ] + [f"  - {e}" for e in (r.errors + r.order_violations)[:10]]


def _hostile(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from together_rl_emulator import create_app, serve_emulator

    from ._hostile_cases import HOSTILE_KEY, MAX_BODY_MB
    from .hostile import run_in_process, run_loopback

    lines = ["### Hostile input", ""]
    ok = True
    for mode in ("in-process", "loopback"):
        if mode == "in-process":
            app = create_app(api_keys=[HOSTILE_KEY], max_body_mb=MAX_BODY_MB)
            r, outcomes = run_in_process(app)
            app.emulator.close()
        else:
            server = serve_emulator(api_keys=[HOSTILE_KEY], max_body_mb=MAX_BODY_MB)
            try:
                r, outcomes = run_loopback(server.base_url)
            finally:
                server.stop()
        ok = ok and r.ok
        lines += [
            f"- {mode}: {r.cases} cases; answered by {r.by_layer}; statuses {r.by_status}; "
            f"failures {len(r.failures)}; state unchanged: {r.state_unchanged}; alive: {r.alive}",
            f"  - by category: {r.by_category}",
        ]
        not_emulator = [o for o in outcomes if o.layer != "emulator"]
        if not_emulator:
            lines.append(
                "  - not answered by the emulator: "
                + "; ".join(f"{o.case.name} ({o.layer} {o.status})" for o in not_emulator)
            )
        lines += [f"  - FAIL {f}" for f in r.failures[:10]]
    lines.append(f"- **{'PASS' if ok else 'FAIL'}**")
    return ok, lines


def _access(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from together_rl_contract_tests.harness import EmulatorProcess
    from together_rl_emulator import create_app

    from .access import (
        INTRUDER_KEY,
        OWNER_KEY,
        counters_reveal_other_keys,
        in_process_clients,
        keys_in,
        loopback_clients,
        run_access,
    )

    app = create_app(api_keys=[OWNER_KEY, INTRUDER_KEY])
    local = run_access(in_process_clients(app))
    leaks = counters_reveal_other_keys(in_process_clients(app))
    app.emulator.close()
    server = EmulatorProcess(
        api_keys=[OWNER_KEY, INTRUDER_KEY], extra_args=("--log-level", "debug")
    )
    server.start()
    try:
        remote = run_access(loopback_clients(server.base_url))
    finally:
        server.stop()
    in_log = keys_in("".join(server.output))
    ok = local.ok and remote.ok and not in_log and not leaks
    return ok, [
        "### Access",
        "",
        f"- routes checked: {remote.routes_checked} (spec + /_emulator); unauthenticated or wrong-key requests: "
        f"{remote.unauthenticated_requests} per run, all 401 with a JSON error",
        f"- cross-key checks (identical to a missing id): {remote.cross_tenant_checks} per run; "
        f"failures in-process {len(local.failures)}, over loopback {len(remote.failures)}",
        f"- keys found in answers: 0 of {len(local.bodies) + len(remote.bodies)} answers checked; "
        f"in the emulator's output at --log-level debug ({len(server.output)} lines): {len(in_log)}",
        f"- /_emulator/stats counters of the intruder that moved when the owner worked: {len(leaks)}",
        f"- **{'PASS' if ok else 'FAIL'}**",
    ] + [f"  - FAIL {f}" for f in (local.failures + remote.failures)[:10]]


def _negative(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from .negative import run_negative

    r = run_negative(max_examples=a.negative_examples)
    return r.ok, [
        f"### schemathesis, negative mode ({r.duration_s:.0f} s)",
        "",
        f"- max examples per operation and phase: {r.max_examples} (CI: 10, both modes)",
        f"- operations fuzzed: {len(r.checks_by_operation)} (checks per operation: "
        f"{min(r.checks_by_operation.values(), default=0)} to {max(r.checks_by_operation.values(), default=0)})",
        f"- checks passed: {r.checks_passed}; failed: {r.checks_failed}",
        f"- checks run: {r.checks_by_name}",
        f"- **{'PASS' if r.ok else 'FAIL'}**",
    ] + [f"  - FAIL {f}".replace("\n", " ")[:700] for f in r.failures[:10]]


def _shared(a: argparse.Namespace) -> tuple[bool, list[str]]:
    from .shared_use import run_shared_use

    r = run_shared_use(timing_reps=a.shared_timing_reps, large_samples=a.shared_large_samples)
    held = sum(p.held for p in r.probes)
    return r.ok, [
        "### Shared use",
        "",
        f"- probes tried: {len(r.probes)}; held: {held}; by family (held/tried): {r.by_family}",
        *[
            f"- {p.family}: {p.name}: {p.detail}"
            for p in r.probes
            if p.family == "large body" or " ms " in p.detail
        ],
        f"- **{'PASS' if r.ok else 'FAIL'}**",
    ] + [f"  - FAIL {f}" for f in r.failures[:10]]


# One entry per proof: `python -m reliability NAME` runs it; a new module adds its line here.
PROOFS: dict[str, Callable[[argparse.Namespace], tuple[bool, list[str]]]] = {
    "soak": _soak, "crash": _crash, "load": _load, "hostile": _hostile, "access": _access,
    "negative": _negative, "shared": _shared,
}  # fmt: skip
from .proxy_hostile import proof as proxy_hostile_proof  # noqa: E402  (the proxy's families)

PROOFS["proxy-hostile"] = proxy_hostile_proof


def write_figures(lines: list[str]) -> None:
    text = DOC.read_text() if DOC.exists() else f"{START}\n{END}\n"
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    DOC.write_text(head + START + "\n" + "\n".join(lines) + "\n" + END + tail)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m reliability", description=__doc__)
    parser.add_argument("proofs", nargs="*", choices=[*PROOFS, []], help="default: all")
    parser.add_argument("--soak-submissions", type=int, default=2000)
    parser.add_argument("--crash-submissions", type=int, default=400)
    parser.add_argument("--crash-kills", type=int, default=10)
    parser.add_argument("--load-seconds", type=float, default=60.0)
    parser.add_argument("--negative-examples", type=int, default=100)
    parser.add_argument("--shared-timing-reps", type=int, default=200)
    parser.add_argument("--shared-large-samples", type=int, default=150_000)
    parser.add_argument("--no-doc", action="store_true", help="print only; leave the doc alone")
    args = parser.parse_args(argv)
    chosen = args.proofs or list(PROOFS)
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    command = " ".join(["python -m reliability", *(argv if argv is not None else sys.argv[1:])])
    lines = [f"Measured {when} on {platform.machine()} ({os.cpu_count()} cores, 1-minute load "
             f"average {os.getloadavg()[0]:.2f} at the start), Python "
             f"{platform.python_version()}, by `{command}`.", ""]  # fmt: skip
    all_ok = True
    for name in chosen:
        print(f"[reliability] {name} ...", file=sys.stderr, flush=True)
        ok, section = PROOFS[name](args)
        all_ok = all_ok and ok
        print("\n".join(section), flush=True)
        lines += [*section, ""]
    if not args.no_doc and not args.proofs:
        write_figures(lines)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
