"""Progress: a bar on a terminal, plain lines otherwise, nothing when quiet; never a key."""

from __future__ import annotations

import io

from together_rl_contract_tests._progress import (
    PlainProgress,
    Progress,
    RichProgress,
    make_progress,
)

KEY = "sk-progress-SECRET-0123456789"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_lines_when_not_a_terminal() -> None:
    stream = io.StringIO()
    progress = make_progress(True, (KEY,), stream)
    assert isinstance(progress, PlainProgress)
    progress.part("scenario and loss-math tests", 2)
    progress("[scenario] test_a  PASSED")
    progress(f"[scenario] test_b  FAILED (sent Bearer {KEY})")
    progress.advance()
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "[contract] scenario and loss-math tests: 2 steps"
    assert lines[1] == "[scenario] test_a  PASSED"
    assert lines[2].startswith("[scenario] test_b  FAILED (sent Bearer ...6789")
    assert KEY not in stream.getvalue()


def test_bar_on_a_terminal_prints_only_notable_lines() -> None:
    stream = Terminal()
    progress = make_progress(True, (KEY,), stream)
    assert isinstance(progress, RichProgress)
    progress.part("schemathesis (operation x phase)", 3)
    progress("[schemathesis] examples  GET /rl/supported-models   3 cases  success")
    progress(f"[schemathesis] fuzzing   GET /rl/training-sessions   3 cases  FAILED {KEY}")
    progress.advance(3)
    progress.close()
    out = stream.getvalue()
    assert "GET /rl/training-sessions" in out and "FAILED" in out
    assert "GET /rl/supported-models" not in out
    assert "3/3" in out
    assert KEY not in out


def test_quiet_prints_nothing() -> None:
    progress = make_progress(False, (KEY,), Terminal())
    assert type(progress) is Progress
