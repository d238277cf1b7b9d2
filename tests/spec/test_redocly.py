"""`spec/openapi.yaml` passes Redocly CLI's lint (recommended rules, strict, with every example
checked against its schema; config in `spec/redocly.yaml`). Needs `npx` and the npm registry:
under CI=true their absence fails the test; elsewhere it is skipped with the reason shown."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from _npx import run_npx
from _spec_schema import REPO_ROOT, SPEC_PATH

REDOCLY = "@redocly/cli@2.77.0"
CONFIG_PATH = REPO_ROOT / "spec" / "redocly.yaml"


def _redocly_lint(spec: Path) -> subprocess.CompletedProcess[str]:
    return run_npx(REDOCLY, "lint", "--config", str(CONFIG_PATH), str(spec), cwd=REPO_ROOT)


def _clean(output: str) -> str:
    """Drop the framed Node.js deprecation banner Redocly prints."""
    return "\n".join(line for line in output.splitlines() if not re.search(r"[║╔╚]", line))


def test_spec_passes_redocly_lint() -> None:
    result = _redocly_lint(SPEC_PATH)
    output = _clean(result.stdout + result.stderr)
    assert result.returncode == 0, f"redocly lint failed:\n{output}"
    assert "validating" in output, output
    assert not re.search(r"\b[1-9]\d* (warning|error)s?\b", output), output


def test_redocly_lint_rejects_an_example_that_breaks_its_schema(tmp_path: Path) -> None:
    """The example rule is really active: an out-of-enum dtype in a request example fails (an
    operation's status is an open string: any status is a valid example)."""
    text = SPEC_PATH.read_text(encoding="utf-8")
    broken = text.replace("dtype: float32}", "dtype: float16}", 1)
    assert broken != text, "the spec's float32 example moved; update this test"
    spec = tmp_path / "openapi.yaml"
    spec.write_text(broken, encoding="utf-8")
    result = _redocly_lint(spec)
    output = _clean(result.stdout + result.stderr)
    assert result.returncode != 0, output
    assert "no-invalid-media-type-examples" in output, output
