"""An emulator in a process of its own, as deployed (uvicorn), for the benches that measure over
loopback: started on a free port, its base URL read from its "listening on" line, stopped on
exit."""

from __future__ import annotations

import contextlib
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence

__all__ = ["emulator_process"]

#: how the emulator is started unless a bench says otherwise
MODULE = (sys.executable, "-m", "together_rl_emulator")


@contextlib.contextmanager
def emulator_process(
    *args: str, env: Mapping[str, str] | None = None, launcher: Sequence[str] = MODULE
) -> Iterator[tuple[str, list[str]]]:
    """``launcher --port 0 *args`` running: its base URL, and the lines it printed up to the one
    that names it (a launcher may print what it imported first)."""
    command = [*launcher, "--port", "0", *args]
    environment = None if env is None else dict(env)
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=environment
    )
    try:
        assert process.stdout is not None
        lines: list[str] = []
        for line in process.stdout:
            lines.append(line)
            if found := re.search(r"listening on (http://\S+)", line):
                break
        else:
            raise RuntimeError(f"the emulator exited before listening: {''.join(lines)}")
        yield found.group(1), lines
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
