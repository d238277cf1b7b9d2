"""`make dist` gives the same wheel bytes for the same commit, built in two folders, and its
metadata check names each problem of a distribution that an index would refuse or show badly."""

from __future__ import annotations

import hashlib
import io
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dist_build import REPO, copy_sources, make_dist


@pytest.fixture
def check_dist() -> Iterator[Any]:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        import check_dist

        yield check_dist
    finally:
        sys.path.remove(str(REPO / "scripts"))


@pytest.mark.slow
def test_two_builds_of_one_commit_give_the_same_wheel_bytes(tmp_path: Path) -> None:
    wheels = []
    for folder in ("first", "second-build"):  # two paths: the build does not record its folder
        dist = make_dist(copy_sources(tmp_path / folder))
        (wheel,) = dist.glob("together_rl_toolkit-*.whl")
        wheels.append(hashlib.sha256(wheel.read_bytes()).hexdigest())
        assert len(list(dist.glob("together_rl_toolkit-*.tar.gz"))) == 1
    assert wheels[0] == wheels[1]


_GOOD = b"""Metadata-Version: 2.4
Name: together-rl-toolkit
Version: 0.1.0
Summary: s
License-Expression: Apache-2.0
License-File: LICENSE
Classifier: Programming Language :: Python :: 3
Project-URL: Together AI, https://together.ai
Requires-Python: >=3.11
Description-Content-Type: text/markdown

# The toolkit

Some *text*.
"""


def _dist(tmp_path: Path, metadata: bytes, files: dict[str, bytes]) -> Path:
    """A wheel and an sdist carrying ``metadata``; the wheel also holds ``files``."""
    wheel = tmp_path / "together_rl_toolkit-0.1.0-py3-none-any.whl"
    dist_info = "together_rl_toolkit-0.1.0.dist-info"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
        archive.writestr(f"{dist_info}/METADATA", metadata)
        archive.writestr(f"{dist_info}/licenses/LICENSE", b"licence text")
    with tarfile.open(tmp_path / "together_rl_toolkit-0.1.0.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("together_rl_toolkit-0.1.0/PKG-INFO")
        info.size = len(metadata)
        archive.addfile(info, io.BytesIO(metadata))
    return tmp_path


def test_a_good_distribution_passes(tmp_path: Path, check_dist: Any) -> None:
    files = {"together_rl_spec/openapi.yaml": b"openapi: 3.1.0\n", "together_rl/x.py": b""}
    assert check_dist.dist_problems(_dist(tmp_path, _GOOD, files)) == []


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (b"Classifier: Programming Language :: Python :: 3\n", "no Classifier"),
        (b"Project-URL: Together AI, https://together.ai\n", "no Project-URL"),
        (b"Requires-Python: >=3.11\n", "no Requires-Python"),
        (b"License-Expression: Apache-2.0\n", "no License-Expression"),
        (b"Description-Content-Type: text/markdown\n", "no Description-Content-Type"),
    ],
)
def test_each_missing_field_is_named(
    tmp_path: Path, check_dist: Any, line: bytes, problem: str
) -> None:
    files = {"together_rl_spec/openapi.yaml": b"openapi: 3.1.0\n"}
    problems = check_dist.dist_problems(_dist(tmp_path, _GOOD.replace(line, b""), files))
    assert any(problem in p for p in problems), problems


def test_a_readme_that_does_not_render_is_named(tmp_path: Path, check_dist: Any) -> None:
    broken = _GOOD.replace(b"text/markdown", b"text/x-rst").replace(
        b"# The toolkit", b"Title\n=====\n\n.. unknown-directive::"
    )
    problems = check_dist.dist_problems(_dist(tmp_path, broken, {}))
    assert any("the readme does not render as text/x-rst" in p for p in problems), problems


def test_a_stray_package_and_a_second_spec_are_named(tmp_path: Path, check_dist: Any) -> None:
    files = {
        "together_rl_spec/openapi.yaml": b"openapi: 3.1.0\n",
        "together_rl_emulator/openapi.yaml": b"openapi: 3.1.0\n",
        "contract_tests/__init__.py": b"",
    }
    problems = check_dist.dist_problems(_dist(tmp_path, _GOOD, files))
    assert any("outside together_rl*: ['contract_tests']" in p for p in problems), problems
    assert any("2 copies of openapi.yaml" in p for p in problems), problems
