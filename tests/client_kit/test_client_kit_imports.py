"""The client kit's modules import in one direction: the data types are a leaf, and a driver
process learns `FEATURES` without loading jsonschema. (No circle in its import graph, every
import counted: tests/test_package_seams.py checks it for every package.)"""

from __future__ import annotations

import subprocess
import sys

from client_kit_runs import REPO
from package_imports import import_graph, modules

NAME = "together_rl_client_kit"


def test_the_data_types_are_a_leaf() -> None:
    graph = import_graph(modules(REPO, ("client_kit/together_rl_client_kit",)), NAME)
    assert graph[f"{NAME}._runner"], graph  # the graph is read
    assert graph[f"{NAME}._types"] == set()


def test_a_driver_learns_features_without_jsonschema() -> None:
    script = (
        "import sys\n"
        "from together_rl_client_kit.drivers import wrapper\n"
        "assert wrapper.SUPPORTS and 'polling' in wrapper.SUPPORTS\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "[]"
