"""The seams between the repository's packages: no module outside tests/ imports another
package's private (`_x`) module or name, and no package's modules import each other in a circle.

Every import counts: at module level, under ``if TYPE_CHECKING:`` and inside functions. A private
path is one with a component after the package's own name that starts with a single underscore
(``together_rl._bodies``, ``from together_rl_spec import _helper``); a relative import stays
inside its package. Each rule is checked here on the repository and, to show it can fail, on a
small tree with a planted breach.
"""

from __future__ import annotations

from pathlib import Path

from package_imports import Module, circles, find_circle, modules, private_imports

ROOT = Path(__file__).resolve().parents[1]

#: The folders of our packages. A folder holding one importable package is named by that
#: package; a flat folder of scripts (`scripts/`, `examples/`) is one top-level module a file.
PACKAGE_FOLDERS = (
    "wrapper/together_rl",
    "generated/together_rl_client",
    "emulator/together_rl_emulator",
    "contract_tests/together_rl_contract_tests",
    "client_kit/together_rl_client_kit",
    "apidiff/together_rl_api_diff",
    "spec_reader/together_rl_spec",
    "benchmarks",
    "reliability",
)
FLAT_FOLDERS = ("scripts", "examples")

#: Private paths of third-party packages that are used on purpose; nothing of ours belongs here.
ALLOWED_PRIVATE = (
    # The official SDK's request transform: the benchmarks measure its cost next to the
    # wrapper's (bench_builders_side_by_side, _wrapper_large_batch).
    "together._utils",
    # The official SDK's resource base class: the SDK probe of the API diff finds the SDK's
    # resources by it (together_rl_api_diff/_sdk_probe.py).
    "together._resource",
)

#: Packages whose import graph is not ours to shape: openapi-python-client writes it, and its
#: models would import each other (under TYPE_CHECKING) if two schemas of the spec referred to
#: each other (none do today).
CIRCLES_NOT_CHECKED = ("together_rl_client",)

EMULATOR = "together_rl_emulator"


REPOSITORY = modules(ROOT, PACKAGE_FOLDERS, FLAT_FOLDERS)


def test_every_python_file_outside_tests_is_in_a_listed_package() -> None:
    listed = {m.path for m in REPOSITORY}
    skipped = {"tests", "node_modules", "build", "dist", "reports", "__pycache__"}
    unlisted = [
        path.relative_to(ROOT).as_posix()
        for path in ROOT.rglob("*.py")
        if path not in listed
        and not any(p in skipped or p.startswith(".") for p in path.relative_to(ROOT).parts)
    ]
    assert not unlisted, f"add their folder to PACKAGE_FOLDERS or FLAT_FOLDERS: {unlisted}"


def breaches_by_target() -> tuple[list[str], list[str]]:
    """The repository's private imports: of the emulator, and of anything else."""
    breaches = private_imports(REPOSITORY, ROOT, ALLOWED_PRIVATE)
    of_emulator = [b for b in breaches if b.split(" imports ")[1].startswith(EMULATOR + ".")]
    return of_emulator, [b for b in breaches if b not in of_emulator]


def test_no_package_imports_another_packages_private_module() -> None:
    _, breaches = breaches_by_target()
    assert not breaches, "import a public name instead:\n" + "\n".join(breaches)


def test_no_package_imports_a_private_module_of_the_emulator() -> None:
    """The benchmarks and the reliability proofs reach the emulator through its package and its
    public modules, like everyone else (listed apart from the check above)."""
    breaches, _ = breaches_by_target()
    assert not breaches, "import a public name of the emulator instead:\n" + "\n".join(breaches)


def test_no_package_imports_itself_in_a_circle() -> None:
    found = circles(REPOSITORY, CIRCLES_NOT_CHECKED)
    assert not found, "\n".join(" -> ".join(circle) for circle in found)


def test_the_listing_sees_every_package() -> None:
    packages = {m.package for m in REPOSITORY}
    assert {"together_rl", "together_rl_emulator", "benchmarks", "reliability"} <= packages
    assert "provenance_rules" in packages and "grpo_toy" in packages


# ----------------------------------------------------------------------------- planted breaches
def plant(root: Path, files: dict[str, str]) -> list[Module]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return modules(root, ("one/pkg_a", "two/pkg_b"), ("flat",))


def test_a_planted_private_import_is_found_however_it_is_written(tmp_path: Path) -> None:
    found = plant(
        tmp_path,
        {
            "one/pkg_a/__init__.py": "from ._inner import VALUE\nfrom . import _inner\n",
            "one/pkg_a/_inner.py": "VALUE = 1\n",
            "one/pkg_a/sub/__init__.py": "from .. import _inner\nfrom ..sub import leaf\n",
            "one/pkg_a/sub/leaf.py": "",
            "two/pkg_b/__init__.py": "import pkg_a._inner\nfrom pkg_a import VALUE, __name__\n",
            "two/pkg_b/typed.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from pkg_a._inner import VALUE\n"
                "def late():\n    from pkg_a import _inner\n"
            ),
            "two/pkg_b/third.py": "import together._utils._transform\nimport other._secret\n",
            "flat/script.py": "from helper import _text, public\n",
            "flat/helper.py": "def _text(): ...\ndef public(): ...\n",
        },
    )
    assert private_imports(found, tmp_path, ALLOWED_PRIVATE) == [
        "flat/script.py:1 imports helper._text",
        "two/pkg_b/__init__.py:1 imports pkg_a._inner",
        "two/pkg_b/third.py:2 imports other._secret",
        "two/pkg_b/typed.py:3 imports pkg_a._inner",
        "two/pkg_b/typed.py:5 imports pkg_a._inner",
    ]


def test_a_planted_circle_is_found_through_type_checking_and_functions(tmp_path: Path) -> None:
    found = plant(
        tmp_path,
        {
            "one/pkg_a/__init__.py": "from ._first import ONE\n",
            "one/pkg_a/_first.py": "from . import _second\nONE = 1\n",
            "one/pkg_a/_second.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ._third import X\n"
            ),
            "one/pkg_a/_third.py": "def late():\n    from pkg_a._first import ONE\n",
            "two/pkg_b/__init__.py": "from pkg_a import ONE\n",
            "two/pkg_b/_x.py": "from pkg_b import _y\n",
            "two/pkg_b/_y.py": "import pkg_b._x\n",
        },
    )
    assert circles(found) == [
        ["pkg_a._first", "pkg_a._second", "pkg_a._third", "pkg_a._first"],
        ["pkg_b._x", "pkg_b._y", "pkg_b._x"],
    ]
    assert find_circle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
