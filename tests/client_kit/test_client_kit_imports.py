"""The client kit's modules import in one direction: no circle in its import graph (every
import counts, those under TYPE_CHECKING and inside functions too), the data types are a leaf,
and a driver process learns `FEATURES` without loading jsonschema."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from client_kit_runs import REPO

PACKAGE = REPO / "client_kit" / "together_rl_client_kit"
NAME = "together_rl_client_kit"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The kit's modules that ``name`` imports (a `from X import y` of a submodule is y)."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            for alias in node.names:
                child = f"{target}.{alias.name}"
                found.add(child if child in modules else target)
    return {module for module in found if module in modules and module != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, modules) for name, path in modules.items()}


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for child in sorted(graph[node]):
            found = visit(child, [*path, node])
            if found:
                return found
        done.add(node)
        return None

    for start in sorted(graph):
        found = visit(start, [])
        if found:
            return found
    return None


def test_the_import_graph_has_no_circle() -> None:
    graph = _graph()
    assert f"{NAME}._rules" in graph and graph[f"{NAME}._runner"], graph
    circle = _circle(graph)
    assert circle is None, " -> ".join(circle or [])


def test_the_circle_finder_finds_one() -> None:
    """The check above can fail: the graph the kit had (rules, referee, scenarios)."""
    had = {
        "_referee": {"_scenarios"},
        "_rules": {"_referee", "_scenarios"},
        "_scenarios": {"_rules"},
    }
    assert _circle(had) == ["_referee", "_scenarios", "_rules", "_referee"]


def test_the_data_types_are_a_leaf() -> None:
    assert _graph()[f"{NAME}._types"] == set()


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
