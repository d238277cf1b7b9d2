"""Run the whole suite against one target and produce one :class:`SuiteResult`."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from contract_tests._provision import provision
from contract_tests._pytest_plugin import ResultCollector
from contract_tests._report import write_markdown
from contract_tests._results import FAILED, SKIPPED, CheckResult, SuiteResult, write_junit
from contract_tests._schemathesis_run import (
    ALL_PHASES,
    load_schema,
    run_schemathesis,
    skipped_operations,
)
from contract_tests._target import Target

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
)


@dataclasses.dataclass(frozen=True)
class SuiteOptions:
    seed: int = 0
    max_examples: int = 10
    phases: tuple[str, ...] = ALL_PHASES
    #: Run part 1 (schemathesis); ``operation_ids`` restricts it.
    schemathesis: bool = True
    operation_ids: tuple[str, ...] | None = None
    #: Scenario/loss modules to run (file names in contract_tests/); empty tuple = none.
    scenario_modules: tuple[str, ...] = SCENARIO_MODULES
    #: Extra pytest arguments, e.g. ("-k", "replay").
    pytest_args: tuple[str, ...] = ()
    report_dir: Path | None = None
    progress: bool = True


def run_suite(target: Target, options: SuiteOptions = SuiteOptions()) -> SuiteResult:
    started = time.monotonic()
    suite = SuiteResult(target=_describe(target))
    log = _logger(options.progress)
    if target.skip_reason is not None:
        suite.results.append(CheckResult("-", "-", "(all)", SKIPPED, target.skip_reason))
        log(f"[contract] skipped: {target.skip_reason}")
    else:
        try:
            provisioned = provision(target)
            log(f"[contract] provisioned: {provisioned}")
        except Exception as error:  # reported as a failure; nothing else can run without it
            suite.results.append(CheckResult("-", "-", "(provisioning)", FAILED, repr(error)))
            provisioned = None
        if options.schemathesis and provisioned is not None:
            schema = load_schema(
                target,
                provisioned,
                seed=options.seed,
                max_examples=options.max_examples,
                phases=options.phases,
                operation_ids=options.operation_ids,
            )
            results, notes = run_schemathesis(schema, progress=log)
            suite.results += skipped_operations(target, provisioned, options.operation_ids)
            suite.results += results
            suite.notes += notes
        if options.scenario_modules:
            collector = _run_pytest(target, options)
            suite.results += collector.results
            suite.notes += collector.notes
    suite.duration_s = time.monotonic() - started
    if options.report_dir is not None:
        write_junit(suite, options.report_dir / "conformance.junit.xml")
        write_markdown(suite, options.report_dir / "conformance.md")
    return suite


def _run_pytest(target: Target, options: SuiteOptions) -> ResultCollector:
    collector = ResultCollector(target, progress=options.progress)
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
    if not options.progress:
        args += ["-qq", "--capture=sys"]
    exit_code = pytest.main(args, plugins=[collector])
    if exit_code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or not collector.results:
        # A usage error or an empty selection must never look like a pass.
        collector.results.append(
            CheckResult("scenario", "-", "(pytest run)", FAILED, f"pytest exit code {exit_code!s}")
        )
    return collector


def _describe(target: Target) -> str:
    kind = "embedded emulator" if target.is_emulator else "external server"
    mutations = "mutations allowed" if target.may_mutate else "read-only + forward-only"
    return f"{target.base_url} ({kind}; {mutations})"


def _logger(enabled: bool) -> Callable[[str], None]:
    def log(line: str) -> None:
        if enabled:
            print(line, file=sys.stderr, flush=True)

    return log
