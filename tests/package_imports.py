"""Reading the import graph of the repository's packages from their sources (ast, nothing is
imported): each module's imports as absolute dotted paths, another package's private ones, the
graph inside one package and its circles. Used by tests/test_package_seams.py and the client
kit's import test."""

from __future__ import annotations

import ast
import dataclasses
import functools
from collections.abc import Iterator
from pathlib import Path

__all__ = [
    "Import",
    "Module",
    "circles",
    "find_circle",
    "import_graph",
    "imports",
    "modules",
    "private_imports",
]


@dataclasses.dataclass(frozen=True)
class Module:
    name: str  # dotted import name
    path: Path
    package: str  # the top-level name it belongs to

    @property
    def is_package(self) -> bool:
        return self.path.name == "__init__.py"


@dataclasses.dataclass(frozen=True)
class Import:
    importer: Module
    target: str  # dotted path: a module, or a module and a name imported from it
    line: int


def modules(
    root: Path, package_folders: tuple[str, ...], flat_folders: tuple[str, ...] = ()
) -> list[Module]:
    """The modules under ``root``: each folder of ``package_folders`` holds one package (named
    by the folder), each file of a ``flat_folders`` folder is a top-level module of its own."""
    found = []
    for folder in package_folders:
        base = (root / folder).parent
        for path in sorted((root / folder).rglob("*.py")):
            parts = path.relative_to(base).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found.append(Module(name, path, parts[0]))
    for folder in flat_folders:
        found += [Module(p.stem, p, p.stem) for p in sorted((root / folder).glob("*.py"))]
    return found


@functools.cache
def imports(module: Module) -> tuple[Import, ...]:
    """Every import of ``module`` as absolute dotted paths (`from a import b` gives `a.b`)."""
    return tuple(_imports(module))


def _imports(module: Module) -> Iterator[Import]:
    own_package = module.name if module.is_package else module.name.rpartition(".")[0]
    for node in ast.walk(ast.parse(module.path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, alias.name, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(
                    own_package.split(".")[: len(own_package.split(".")) - node.level + 1]
                )
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            for alias in node.names:
                name = source if alias.name == "*" else f"{source}.{alias.name}"
                yield Import(module, name, node.lineno)


def is_private(component: str) -> bool:
    return component.startswith("_") and not component.startswith("__")


def private_imports(found: list[Module], root: Path, allowed: tuple[str, ...]) -> list[str]:
    """``path:line imports package._private`` for each import of another package's private
    module or name (the path up to its first private component), outside the allow-list."""
    breaches = set()
    for module in found:
        for each in imports(module):
            parts = each.target.split(".")
            first = next((i for i, p in enumerate(parts) if i and is_private(p)), None)
            if parts[0] == module.package or first is None:
                continue
            private = ".".join(parts[: first + 1])
            if any(private == a or private.startswith(a + ".") for a in allowed):
                continue
            where = module.path.relative_to(root).as_posix()
            breaches.add(f"{where}:{each.line} imports {private}")
    return sorted(breaches)


def import_graph(found: list[Module], package: str) -> dict[str, set[str]]:
    """The modules of ``package`` each of its modules imports (a submodule named in a
    `from X import y` is X.y; any other name is X)."""
    names = {m.name for m in found if m.package == package}
    graph: dict[str, set[str]] = {}
    for module in found:
        if module.package != package:
            continue
        edges = set()
        for each in imports(module):
            target = each.target
            while target and target not in names:
                target = target.rpartition(".")[0]
            if target and target != module.name:
                edges.add(target)
        graph[module.name] = edges
    return graph


def find_circle(graph: dict[str, set[str]]) -> list[str] | None:
    """A circle of the graph as its path (first node repeated at the end), or None."""
    done: set[str] = set()

    def visit(node: str, path: list[str]) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        for child in sorted(graph.get(node, ())):
            if circle := visit(child, [*path, node]):
                return circle
        done.add(node)
        return None

    for start in sorted(graph):
        if circle := visit(start, []):
            return circle
    return None


def tangles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The groups of two or more modules that reach each other (strongly connected)."""
    reach = {node: reachable(graph, node) for node in graph}
    groups = {frozenset(n for n in reach[node] if node in reach[n]) for node in graph}
    return sorted((set(g) for g in groups if len(g) > 1), key=sorted)


def reachable(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        for child in graph.get(todo.pop(), ()):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def circles(found: list[Module], skip: tuple[str, ...] = ()) -> list[list[str]]:
    """One circle through each tangle of each package's graph."""
    found_circles = []
    for package in sorted({m.package for m in found} - set(skip)):
        graph = import_graph(found, package)
        for group in tangles(graph):
            inside = {node: graph[node] & group for node in group}
            found_circles.append(find_circle(inside) or [])
    return found_circles
