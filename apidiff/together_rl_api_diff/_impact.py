"""For this project's own spec: what a change moves in generated/ and the wrapper, and which
files of the emulator and the contract suite a maintainer must look at for its kind.

`IMPACT_ROWS` is the one statement of that table; `docs/api-changes.md` prints it
(`together-rl-api-diff --impact-table`) and a test keeps the copy fresh.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from together_rl_spec import UPLOAD_THRESHOLD_KEYWORD

from ._changes import Change
from ._naming import class_name, module_name
from ._rules import RULES, ImpactGroup

__all__ = ["IMPACT_ROWS", "Impact", "ImpactRow", "impact_of", "impact_table", "is_project_spec"]

PROJECT_TITLE = "Together RL training API"


@dataclass(frozen=True)
class ImpactRow:
    change: str
    follow: str  # what follows by itself, or the files to touch
    needs_code: bool
    applies: Callable[[Change], bool]


def _schema_name(change: Change) -> str | None:
    found = re.match(r"^#/components/schemas/([^/]+)", change.location)
    return found[1] if found else None


def _group(change: Change) -> ImpactGroup:
    """The impact group of the change's kind (its registry entry)."""
    return RULES[change.kind].impact


def _enum_of(*names: str) -> Callable[[Change], bool]:
    def applies(change: Change) -> bool:
        return _group(change) == "enum-value-added" and (_schema_name(change) or "").endswith(names)

    return applies


def _in_group(group: ImpactGroup) -> Callable[[Change], bool]:
    return lambda change: _group(change) == group


def _new_operation_kind(change: Change) -> bool:
    return _group(change) == "operation-added" and "/operations/" in str(change.new)


def _loss_default(change: Change) -> bool:
    return _group(change) == "default" and (_schema_name(change) or "").endswith("Params")


IMPACT_ROWS: tuple[ImpactRow, ...] = (
    ImpactRow(
        "a new operation kind (`POST .../operations/<kind>` + its GET)",
        "emulator: one `OperationKind` entry in `service/_kinds.py`, its request type and "
        "validator in `checking/_requests.py` or `checking/_simple_requests.py` (none for a kind "
        "without a body), its runner in `compute/_engine.py`, its cost in `cost/_gpu_model.py`. "
        "Wrapper: its result type, output parser and `_kind(name, parser)` "
        "line in `_results.py`, its body builder (`_bodies.py`), and the session method that "
        "submits it in `_async_sessions.py` (then `make derive` writes the sync twin). "
        "Contract suite: a "
        "probe body in `_provision.py` (`KIND_PROBE_BODIES`) and its scenario tests; "
        "`_http.GUARDED_KINDS` if it changes state on a real server. Docs: `docs/emulator.md`, "
        "`docs/wrapper.md`",
        True,
        _new_operation_kind,
    ),
    ImpactRow(
        "a new loss type (a value added to `LossType`)",
        "emulator: its formula, gradient and metrics in `compute/_losses.py` (its required "
        "inputs come from the spec's `x-required-inputs`). Wrapper: its builder in `losses.py` "
        "(its fields "
        "come from its params object, once named in `scripts/derive_fields.py`). Contract "
        "suite: its reference in `_loss_reference.py` and a case in `test_loss_math.py`. Docs: "
        "its definition in `docs/losses.md`. Spec examples: a valid body in `spec/examples/valid/`",
        True,
        _enum_of("LossType"),
    ),
    ImpactRow(
        "a new GRPO aggregation or ratio type",
        "its definition in `docs/losses.md`, `emulator/together_rl_emulator/compute/_losses.py` "
        "and `contract_tests/together_rl_contract_tests/_loss_reference.py` (the contract suite "
        "fails with a `KeyError` until it has one)",
        True,
        _enum_of("AggregationType", "RatioType"),
    ),
    ImpactRow(
        "a status or error code that must mean something new (a value added to a `*Status` or "
        "`*ErrorCode` enum)",
        "where the code names it: the emulator's `base/_spec.py` users, the wrapper's "
        "`_results.py`, "
        "`contract_tests/together_rl_contract_tests/_http.py`",
        True,
        _enum_of("Status", "ErrorCode"),
    ),
    ImpactRow(
        "a rule JSON Schema cannot say (an `x-` rule keyword or an `x-rules` entry)",
        "an `x-` keyword: where the request is validated, the emulator's `checking/_requests.py` "
        "and the "
        "wrapper's body checks (`_schema.py`), which read the `x-` keywords; a new keyword needs "
        "its reader there, and an invalid example in `spec/examples/invalid/`. An `x-rules` "
        f"entry is prose no code reads (one with a number, as `{UPLOAD_THRESHOLD_KEYWORD}`, is "
        "read by `together_rl_spec`, whose readers every consumer imports): the emulator's code "
        "that honours it, and a contract test that checks it",
        True,
        _in_group("rule"),
    ),
    ImpactRow(
        "a default of a loss params object (`default` or `x-server-default`)",
        "nothing else: the emulator's losses, the contract suite's reference "
        "(`_loss_reference.DEFAULTS`) and the generated models read the spec",
        False,
        _loss_default,
    ),
    ImpactRow(
        "a bound (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, lengths, counts)",
        "nothing else: the emulator's 400s (naming the field) and the generated models",
        False,
        _in_group("bound"),
    ),
    ImpactRow(
        "an added enum value the code gives no meaning of its own (a weight-sync type, a dtype)",
        "nothing else: the emulator accepts it; the contract suite and the examples test take the "
        "enum from the spec",
        False,
        _in_group("enum-value-added"),
    ),
    ImpactRow(
        "a new optional field the emulator may ignore",
        "nothing else: the generated models and the wrapper's builders and keyword arguments "
        "(`make generate` derives `_fields.py`); the emulator's schema validation",
        False,
        _in_group("optional-property"),
    ),
    ImpactRow(
        "any other change (a field, type, requirement or operation moved)",
        "the emulator validates from the spec (`checking/_validation.py`, "
        "`checking/_requests.py`) and serves what "
        "`service/_service.py` builds; the contract suite judges from the spec "
        "(`contract_tests/together_rl_contract_tests/_spec.py`); look at the tests that name the "
        "field",
        True,
        lambda change: True,
    ),
)


def impact_table() -> str:
    """The markdown table of `IMPACT_ROWS` (docs/api-changes.md holds a copy)."""
    lines = ["| change | needs code | what follows, or the files to touch |", "|---|---|---|"]
    for row in IMPACT_ROWS:
        lines.append(f"| {row.change} | {'yes' if row.needs_code else 'no'} | {row.follow} |")
    return "\n".join(lines) + "\n"


def is_project_spec(root: dict[str, Any]) -> bool:
    info = root.get("info")
    return isinstance(info, dict) and info.get("title") == PROJECT_TITLE


@dataclass(frozen=True)
class Impact:
    change: Change
    generated: list[str]
    wrapper: list[str]
    row: ImpactRow


def _class_overrides(repo: Path) -> dict[str, dict[str, str]]:
    config = repo / "spec" / "generator.yaml"
    if not config.is_file():
        return {}
    loaded = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    overrides = loaded.get("class_overrides") or {}
    return overrides if isinstance(overrides, dict) else {}


def _wrapper_public_names(repo: Path) -> dict[str, list[str]]:
    """wrapper module file -> the public names `together_rl/__init__.py` takes from it."""
    init = repo / "wrapper" / "together_rl" / "__init__.py"
    if not init.is_file():
        return {}
    names: dict[str, list[str]] = {}
    for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            names.setdefault(f"{node.module}.py", []).extend(a.name for a in node.names)
    return names


def impact_of(changes: list[Change], root: dict[str, Any], repo: Path) -> list[Impact]:
    """What each change moves in generated/ and the wrapper, and its row of the table."""
    overrides = _class_overrides(repo)
    public = _wrapper_public_names(repo)
    sources = {
        path.name: path.read_text(encoding="utf-8")
        for path in sorted((repo / "wrapper" / "together_rl").glob("*.py"))
    }
    operation_ids = {}
    for path, item in (root.get("paths") or {}).items():
        for method, operation in (item or {}).items():
            if isinstance(operation, dict) and "operationId" in operation:
                tag = (operation.get("tags") or ["default"])[0]
                operation_ids[f"{method.upper()} {path}"] = (operation["operationId"], tag)
    impacts = []
    for change in changes:
        generated: list[str] = []
        classes: list[str] = []
        schema = _schema_name(change)
        if schema is not None:
            override = overrides.get(class_name(schema), {})
            klass = override.get("class_name", class_name(schema))
            module = override.get("module_name", module_name(klass))
            classes.append(klass)
            field = re.search(r"/properties/([^/]+)$", change.location)
            where = f"`{klass}` (models/{module}.py)"
            generated.append(f"attribute `{field[1]}` of {where}" if field else where)
        for label in change.operations:
            operation_id, tag = operation_ids.get(label, (None, None))
            if operation_id is not None and (schema is None or change.kind.startswith("operation")):
                generated.append(f"api/{module_name(tag)}/{module_name(operation_id)}.py")
        wrapper = []
        for file, text in sources.items():
            if any(re.search(rf"\b{re.escape(klass)}\b", text) for klass in classes):
                names = public.get(file, [])
                shown = f" (public: {', '.join(names)})" if names else ""
                wrapper.append(f"wrapper/together_rl/{file}{shown}")
        row = next(row for row in IMPACT_ROWS if row.applies(change))
        impacts.append(Impact(change, generated, wrapper, row))
    return impacts
