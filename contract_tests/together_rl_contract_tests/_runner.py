"""Run the whole suite against one target and produce one :class:`SuiteResult`."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import time
from pathlib import Path

import pytest

from together_rl_contract_tests._plan import PlannedCheck
from together_rl_contract_tests._preflight import (
    TargetUnavailable,
    TargetWatch,
    is_transport_error,
    preflight,
)
from together_rl_contract_tests._progress import Progress, RichProgress, make_progress
from together_rl_contract_tests._provision import provision
from together_rl_contract_tests._pytest_plugin import ResultCollector
from together_rl_contract_tests._report import write_markdown
from together_rl_contract_tests._results import (
    FAILED,
    NO_ANSWER,
    CheckResult,
    SuiteResult,
    write_junit,
)
from together_rl_contract_tests._schemathesis_config import ALL_PHASES, load_schema
from together_rl_contract_tests._schemathesis_plan import scenario_count, skipped_operations
from together_rl_contract_tests._schemathesis_run import run_schemathesis
from together_rl_contract_tests._spec import spec_version
from together_rl_contract_tests._target import Target, redact

__all__ = ["SCENARIO_MODULES", "SuiteOptions", "describe", "plan_scenarios", "run_suite"]

PACKAGE_DIR = Path(__file__).resolve().parent
SCENARIO_MODULES = (
    "test_lifecycle.py",
    "test_idempotency.py",
    "test_auth.py",
    "test_validation.py",
    "test_ordering.py",
    "test_operation_kinds.py",
    "test_training.py",
    "test_sampling.py",
    "test_payloads.py",
    "test_loss_math.py",
    "test_checkpoints.py",
    "test_model_resources.py",
    "test_rollouts.py",
)


@dataclasses.dataclass(frozen=True)
class SuiteOptions:
    seed: int = 0
    max_examples: int = 10
    phases: tuple[str, ...] = ALL_PHASES
    #: Run part 1 (schemathesis); ``operation_ids`` restricts it.
    schemathesis: bool = True
    operation_ids: tuple[str, ...] | None = None
    #: Scenario/loss modules to run (file names in this package); empty tuple = none.
    scenario_modules: tuple[str, ...] = SCENARIO_MODULES
    #: Extra pytest arguments, e.g. ("-k", "replay").
    pytest_args: tuple[str, ...] = ()
    report_dir: Path | None = None
    progress: bool = True


def run_suite(
    target: Target, options: SuiteOptions = SuiteOptions(), progress: Progress | None = None
) -> SuiteResult:
    """Preflight, then the three parts; the reports are written whatever happened."""
    started = time.monotonic()
    suite = SuiteResult(target=describe(target), spec_version=spec_version())
    if progress is None:
        progress = make_progress(options.progress, target.secrets)
    try:
        preflight(target)
    except TargetUnavailable as error:
        suite.not_run = str(error)
    else:
        progress(f"[contract] preflight passed: {target.base_url} answers as this API")
        _run_parts(target, options, suite, progress)
    finally:
        progress.close()
    suite.duration_s = time.monotonic() - started
    _redact(suite, target.secrets)
    if options.report_dir is not None:
        write_junit(suite, options.report_dir / "conformance.junit.xml")
        write_markdown(suite, options.report_dir / "conformance.md")
    return suite


def _run_parts(
    target: Target, options: SuiteOptions, suite: SuiteResult, progress: Progress
) -> None:
    watch = TargetWatch(target)
    provisioned = None
    try:
        provisioned = provision(target)
        progress(f"[contract] provisioned: {provisioned}")
    except Exception as error:  # nothing of part 1 can run without it
        if is_transport_error(error):
            detail = watch.no_answer(error)
            suite.results.append(CheckResult("-", "-", "(provisioning)", NO_ANSWER, detail))
        else:
            suite.results.append(CheckResult("-", "-", "(provisioning)", FAILED, repr(error)))
    if options.schemathesis and provisioned is not None and watch.lost is None:
        schema = load_schema(
            target,
            provisioned,
            seed=options.seed,
            max_examples=options.max_examples,
            phases=options.phases,
            operation_ids=options.operation_ids,
        )
        planned = scenario_count(target, provisioned, options.phases, options.operation_ids)
        finished = 0

        def advance() -> None:
            nonlocal finished
            finished += 1
            progress.advance()

        progress.part("schemathesis (operation x phase)", planned)
        results, notes = run_schemathesis(
            schema, target, progress=progress, watch=watch, advance=advance
        )
        suite.results += skipped_operations(target, provisioned, options.operation_ids)
        suite.results += results
        suite.notes += notes
        if watch.lost is not None:
            never = CheckResult("schemathesis", "-", "(operation x phase not run)", NO_ANSWER,
                                "not run: the target was lost before it")  # fmt: skip
            suite.results += [never] * max(planned - finished, 0)
    if options.scenario_modules:
        collector = _run_pytest(target, options, progress, watch)
        suite.results += collector.results
        suite.notes += collector.notes
    suite.lost = watch.lost


def _run_pytest(
    target: Target, options: SuiteOptions, progress: Progress, watch: TargetWatch | None
) -> ResultCollector:
    collector = ResultCollector(target, progress=progress, watch=watch)
    # Under a progress bar pytest's own output (dots, tracebacks) is noise: the bar and the
    # notable lines replace it, and every failure's traceback is in the reports.
    bar = isinstance(progress, RichProgress)
    with contextlib.redirect_stdout(io.StringIO()) if bar else contextlib.nullcontext():
        exit_code = pytest.main(_pytest_args(options, quiet=bar), plugins=[collector])
    lost = watch is not None and watch.lost is not None
    if not lost and (
        exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not collector.results
    ):
        # A usage error or an empty selection must never look like a pass.
        collector.results.append(
            CheckResult("scenario", "-", "(pytest run)", FAILED, f"pytest exit code {exit_code!s}")
        )
    return collector


def plan_scenarios(target: Target, options: SuiteOptions) -> list[PlannedCheck]:
    """Collect parts 2 and 3 without running them: each test and why it would be skipped."""
    collector = ResultCollector(target, dry_run=True)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exit_code = pytest.main(_pytest_args(options, quiet=True), plugins=[collector])
    if exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise RuntimeError(f"collecting the scenario tests failed:\n{output.getvalue()}")
    return collector.planned


def _pytest_args(options: SuiteOptions, *, quiet: bool = False) -> list[str]:
    paths = [str(PACKAGE_DIR / name) for name in options.scenario_modules]
    args = [
        *paths,
        "-q",
        "-p", "no:cacheprovider",
        "--rootdir", str(PACKAGE_DIR.parent),
        "--no-header",
        "-o", "addopts=",
        "-W", "ignore::DeprecationWarning",
        *options.pytest_args,
    ]  # fmt: skip
    if quiet or not options.progress:
        args += ["-qq", "--capture=sys", "-p", "no:warnings"]
    return args


def _redact(suite: SuiteResult, secrets: tuple[str, ...]) -> None:
    """No key in any result, note or cause (they end up in the reports and on the terminal)."""
    suite.results = [
        dataclasses.replace(r, detail=redact(r.detail, secrets)) if r.detail else r
        for r in suite.results
    ]
    suite.notes = [redact(note, secrets) for note in suite.notes]
    if suite.not_run is not None:
        suite.not_run = redact(suite.not_run, secrets)
    if suite.lost is not None:
        suite.lost = redact(suite.lost, secrets)


def describe(target: Target) -> str:
    """The target as reports name it (its URL and mode, never its key)."""
    kind = "embedded emulator" if target.is_emulator else "external server"
    mutations = "mutations allowed" if target.may_mutate else "read-only + forward-only"
    return f"{target.base_url} ({kind}; {mutations})"
