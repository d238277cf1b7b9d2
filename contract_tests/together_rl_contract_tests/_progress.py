"""Progress while the suite runs: a rich progress bar on a terminal, plain lines otherwise.

Both print on stderr and never print a key (every line goes through :func:`redact`).
"""

from __future__ import annotations

import re
import sys
from typing import TextIO

from together_rl_contract_tests._target import redact

__all__ = ["PlainProgress", "Progress", "RichProgress", "make_progress"]

#: On a terminal, only these lines are printed above the bar (the bar stands for the others).
NOTABLE = re.compile(r"FAILED|NO ANSWER|error|fatal|^\[contract\]|phase ", re.IGNORECASE)


class Progress:
    """Silent progress (``--quiet``, or the suite's own tests); the base of the others."""

    def __init__(self, secrets: tuple[str, ...] = ()) -> None:
        self.secrets = secrets

    def __call__(self, line: str) -> None:
        """One line about what just happened (a check's result, a phase starting, ...)."""

    def part(self, name: str, total: int) -> None:
        """A part of the suite starts with ``total`` steps."""

    def advance(self, steps: int = 1) -> None:
        """``steps`` steps of the current part are done."""

    def close(self) -> None:
        """The run is over."""


class PlainProgress(Progress):
    """Every line, as is: for logs and CI (stderr is not a terminal)."""

    def __init__(self, secrets: tuple[str, ...] = (), stream: TextIO | None = None) -> None:
        super().__init__(secrets)
        self.stream = stream if stream is not None else sys.stderr

    def __call__(self, line: str) -> None:
        print(redact(line, self.secrets), file=self.stream, flush=True)

    def part(self, name: str, total: int) -> None:
        self(f"[contract] {name}: {total} steps")


class RichProgress(Progress):
    """One bar per part; only notable lines (failures, errors, phases) are printed above it."""

    def __init__(self, secrets: tuple[str, ...] = (), stream: TextIO | None = None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as Bar

        super().__init__(secrets)
        console = Console(file=stream if stream is not None else sys.stderr)
        self._bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self._task: object | None = None
        self._bar.start()

    def __call__(self, line: str) -> None:
        if NOTABLE.search(line):
            self._bar.console.print(redact(line, self.secrets), markup=False, highlight=False)

    def part(self, name: str, total: int) -> None:
        self._task = self._bar.add_task(name, total=max(total, 1))

    def advance(self, steps: int = 1) -> None:
        if self._task is not None:
            self._bar.advance(self._task, steps)  # type: ignore[arg-type]

    def close(self) -> None:
        self._bar.stop()


def make_progress(
    enabled: bool, secrets: tuple[str, ...] = (), stream: TextIO | None = None
) -> Progress:
    """A bar on a terminal, plain lines otherwise, nothing when not ``enabled``."""
    if not enabled:
        return Progress(secrets)
    out = stream if stream is not None else sys.stderr
    if out.isatty():
        return RichProgress(secrets, out)
    return PlainProgress(secrets, out)
