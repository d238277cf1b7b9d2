"""The vectors come out the same whatever the BLAS kernel and the thread count.

The generator runs in four subprocesses, with ``OPENBLAS_CORETYPE`` unset (OpenBLAS picks the
kernel for this CPU) and ``=Haswell``, each with ``OPENBLAS_NUM_THREADS=1`` and ``=2``. Every run's
files agree with the recorded ones and with every other run's: exact data equal, floats within the
tolerance of ``contract_tests/together_rl_contract_tests/vectors/_compare.py``. (The recorded sha256
of the offloaded sample body used to differ between the two kernels on these machines: the last bits
of its float64 log-probs moved.) A full generation takes about a second, so the four run side by
side.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from together_rl_contract_tests.vectors import VECTORS_DIR, compare_vectors

pytestmark = pytest.mark.slow

REPO = VECTORS_DIR.parents[1]
CORETYPES = (None, "Haswell")
THREADS = ("1", "2")
SETTINGS = [(coretype, threads) for coretype in CORETYPES for threads in THREADS]


def _label(coretype: str | None, threads: str) -> str:
    return f"OPENBLAS_CORETYPE={coretype or '<unset>'} OPENBLAS_NUM_THREADS={threads}"


def _environment(coretype: str | None, threads: str) -> dict[str, str]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS=threads)
    env.pop("OPENBLAS_CORETYPE", None)
    if coretype is not None:
        env["OPENBLAS_CORETYPE"] = coretype
    return env


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, object]]:
    """Per setting, the vector files its generator run wrote (by file name)."""
    root = tmp_path_factory.mktemp("vectors")
    runs = {}
    for coretype, threads in SETTINGS:
        directory = root / f"{coretype or 'unset'}-{threads}"
        command = [
            sys.executable,
            "-m",
            "together_rl_contract_tests.vectors",
            "--directory",
            str(directory),
        ]
        runs[_label(coretype, threads), directory] = subprocess.Popen(
            command,
            cwd=REPO,
            env=_environment(coretype, threads),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
    out: dict[str, dict[str, object]] = {}
    for (label, directory), process in runs.items():
        output, _ = process.communicate(timeout=600)
        assert process.returncode == 0, f"{label}: the generator failed\n{output}"
        out[label] = {p.name: json.loads(p.read_text()) for p in sorted(Path(directory).iterdir())}
    return out


def _recorded() -> dict[str, object]:
    return {p.name: json.loads(p.read_text()) for p in sorted(VECTORS_DIR.glob("*.json"))}


@pytest.mark.parametrize("setting", [_label(*s) for s in SETTINGS])
def test_each_setting_reproduces_the_recorded_vectors(
    generated: dict[str, dict[str, object]], setting: str
) -> None:
    files = generated[setting]
    recorded = _recorded()
    assert sorted(files) == sorted(recorded)
    for name, content in files.items():
        comparison = compare_vectors(recorded[name], content)
        assert comparison.agree, (setting, name, comparison.differences)


def test_every_two_settings_agree(generated: dict[str, dict[str, object]]) -> None:
    for first, second in itertools.combinations(sorted(generated), 2):
        for name in generated[first]:
            comparison = compare_vectors(generated[first][name], generated[second][name])
            assert comparison.agree, (first, second, name, comparison.differences)
