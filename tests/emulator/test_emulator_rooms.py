"""The emulator's rooms: its subpackages import in one direction, through each other's public
names, with no circle among its modules (every import counts: those under TYPE_CHECKING and
inside functions too), and every module is small and says what it exports."""

from __future__ import annotations

import ast
from pathlib import Path

import together_rl_emulator
from package_imports import find_circle

PACKAGE = Path(together_rl_emulator.__file__).parent
NAME = "together_rl_emulator"
# The layering, bottom first: a room imports only the rooms before it. The package's own
# `__init__` and `__main__` ("top") stand above them all.
ROOMS = ("base", "checking", "compute", "state", "cost", "service", "web")
TOP = "top"
MAX_LINES = 400


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The emulator's modules that `name` imports (a `from X import y` of a submodule is y)."""
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


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ROOMS else TOP


def _layer_breaks(graph: dict[str, set[str]]) -> list[str]:
    """Every import that goes up or sideways between rooms, or into another room's private
    module (a room is entered through its package: `from ..state import Store`)."""
    order = {room: i for i, room in enumerate((*ROOMS, TOP))}
    breaks = []
    for module, imported in sorted(graph.items()):
        for target in sorted(imported):
            here, there = _room(module), _room(target)
            if here == there:
                continue
            if order[there] >= order[here]:
                breaks.append(f"{module} imports {target}: {there} is not below {here}")
            elif target != f"{NAME}.{there}":
                breaks.append(f"{module} imports {target}, not the public {NAME}.{there}")
    return breaks


def test_the_rooms_are_the_emulator_s_subpackages() -> None:
    rooms = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert rooms == set(ROOMS)
    assert {p.name for p in PACKAGE.glob("*.py")} == {"__init__.py", "__main__.py"}


def test_the_import_graph_has_nofind_circle() -> None:
    graph = _graph()
    assert graph[f"{NAME}.service._kinds"] and graph[f"{NAME}.web._app"], graph
    circle = find_circle(graph)
    assert circle is None, " -> ".join(circle or [])


def test_each_room_imports_only_the_public_names_of_rooms_below_it() -> None:
    assert _layer_breaks(_graph()) == []


def test_the_checks_find_a_circle_and_a_layer_break() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_circle(graph) == ["a", "b", "c", "a"]
    assert find_circle({"a": {"b"}, "b": set()}) is None
    upward = {f"{NAME}.base._spec": {f"{NAME}.state"}}
    private = {f"{NAME}.web._app": {f"{NAME}.state._store"}}
    assert _layer_breaks(upward) == [
        f"{NAME}.base._spec imports {NAME}.state: state is not below base"
    ]
    assert _layer_breaks(private) == [
        f"{NAME}.web._app imports {NAME}.state._store, not the public {NAME}.state"
    ]
    assert _layer_breaks({f"{NAME}.web._app": {f"{NAME}.state"}}) == []


def test_every_module_is_small_and_says_what_it_exports() -> None:
    for name, path in _modules().items():
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= MAX_LINES, f"{name} is over {MAX_LINES} lines"
        if path.name != "__main__.py":
            assert "__all__" in text, f"{name} has no __all__"
