"""Derive the wrapper's field lists from the spec (``wrapper/together_rl/_fields.py``): for each
parameter object the wrapper builds, a frozen dataclass of its fields, and for each request body
whose optional fields are keyword arguments, a ``TypedDict`` of them. The fields are spec facts:
a field added to the spec reaches the builders and the signatures by ``make generate``, without
a hand edit. Never edit the derived file.

    python scripts/derive_fields.py           # rewrite the derived file
    python scripts/derive_fields.py --check   # exit 1 (with a diff) when it is stale
"""

from __future__ import annotations

import argparse
import difflib
import subprocess
import sys
from pathlib import Path
from typing import Any

from together_rl_spec import params_keys, parse_document, resolve_ref, upload_threshold_bytes

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "openapi.yaml"
TARGET = ROOT / "wrapper" / "together_rl" / "_fields.py"

#: the parameter objects the wrapper builds as frozen dataclasses (``losses``, ``AdamParams``...)
DATACLASSES = (
    "AdamParams",
    "SamplingParams",
    "CrossEntropyLossParams",
    "GRPOLossParams",
    "PPOLossParams",
    "CISPOLossParams",
    "DROLossParams",
    "DPPOLossParams",
)
#: the bodies whose optional fields the wrapper's methods take as keyword arguments
KEYWORDS = (
    "AdamParams",
    "SamplingParams",
    "SessionCreate",
    "SessionUpdate",
    "ModelResourcesCreate",
    "RolloutEstimateRequest",
)
_SCALARS = {"number": "float", "integer": "int", "boolean": "bool", "string": "str"}

HEADER = '''\
# Derived from spec/openapi.yaml by scripts/derive_fields.py (make generate, make derive): edit
# the spec, not this.
"""The fields of the spec's parameter objects and request bodies, as the wrapper takes them:
``<Schema>Fields`` are frozen dataclasses (every field optional, keyword-only, ``None`` for
unset), ``<Schema>Keywords`` the optional fields of a body as keyword arguments. A ``$ref`` to an
enum is a ``str`` (short names are expanded), to an int64 an ``int``, to an object a mapping."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypedDict

from together_rl_client import models
'''
#: the only rule of ``LossFnInputs``' ``x-tensor-length`` the wrapper knows
TENSOR_LENGTH = "model_input"


def python_type(prop: dict[str, Any], spec: dict[str, Any]) -> str:
    """The annotation (without ``| None``) of a property as the wrapper takes it."""
    if "$ref" in prop:
        target = resolve_ref(prop, spec)
        if "enum" in target:
            return "str"
        if any(branch.get("type") == "integer" for branch in target.get("oneOf", ())):
            return "int"  # Int64Value: an integer, or its decimal string on the wire
        return python_type(target, spec)
    if prop.get("type") == "array":
        return f"Sequence[{python_type(prop['items'], spec)}]"
    if prop.get("type") == "object":
        return "Mapping[str, Any]"
    if prop.get("type") not in _SCALARS:
        raise ValueError(f"no Python type for the schema {prop!r}: teach python_type() its type")
    return _SCALARS[prop["type"]]


def _sets(mapping: dict[str, Any]) -> str:
    """A dict of frozensets, as Python source (sorted: the file stays byte-stable)."""
    items = (f"{k!r}: frozenset({sorted(v)!r})" for k, v in mapping.items())
    return "{" + ", ".join(items) + "}"


def sample_facts(spec: dict[str, Any]) -> str:
    """What ``LossConfig`` and ``LossFnInputs`` say of a sample's inputs."""
    inputs = spec["components"]["schemas"]["LossFnInputs"]
    if inputs.get("x-tensor-length") != TENSOR_LENGTH:
        raise ValueError(f"x-tensor-length {inputs.get('x-tensor-length')!r}: teach the wrapper")
    dtypes = {key: tuple(value) for key, value in inputs["x-input-dtypes"].items()}
    groups = tuple(tuple(group) for group in inputs["x-exclusive-inputs"])
    required = spec["components"]["schemas"]["LossConfig"]["x-required-inputs"]
    losses = {t: (key, required[t]) for t, key in params_keys(spec).items()}
    loss_lines = "".join(
        f"    {t!r}: ({key!r}, frozenset({sorted(inputs)!r})),\n"
        for t, (key, inputs) in losses.items()
    )
    return (
        "#: ``loss_fn_inputs`` key -> its dtypes, the first sent for a bare array or list\n"
        f"INPUT_DTYPES: dict[str, tuple[str, ...]] = {dtypes!r}\n"
        "#: groups of ``loss_fn_inputs`` keys of which a sample holds one at most\n"
        f"EXCLUSIVE_INPUTS: tuple[tuple[str, ...], ...] = {groups!r}\n"
        "#: loss type -> its ``LossConfig`` params key and the inputs every sample needs\n"
        f"LOSS_TYPES: dict[str, tuple[str | None, frozenset[str]]] = {{\n{loss_lines}}}"
    )


def derive(spec: dict[str, Any]) -> str:
    schemas = spec["components"]["schemas"]
    blocks = []
    for name in DATACLASSES:
        lines = [
            "@dataclass(frozen=True, kw_only=True)",
            f"class {name}Fields:",
            f'    """The fields of the spec\'s ``{name}``."""',
            "",
            f"    spec_model: ClassVar[type | None] = models.{name}",
        ]
        positive = {
            field: prop["x-requires-inputs-when-positive"]
            for field, prop in schemas[name].get("properties", {}).items()
            if "x-requires-inputs-when-positive" in prop
        }
        if positive:  # the inputs a positive value of the field requires
            annotation = "ClassVar[dict[str, frozenset[str]]]"
            lines.append(f"    inputs_when_positive: {annotation} = {_sets(positive)}")
        for field, prop in schemas[name].get("properties", {}).items():
            lines.append(f"    {field}: {python_type(prop, spec)} | None = None")
        blocks.append("\n".join(lines))
    for name in KEYWORDS:
        schema = schemas[name]
        lines = [
            f"class {name}Keywords(TypedDict, total=False):",
            f'    """The optional fields of the spec\'s ``{name}``, as keyword arguments."""',
            "",
        ]
        for field, prop in schema.get("properties", {}).items():
            if field not in schema.get("required", ()):
                lines.append(f"    {field}: {python_type(prop, spec)} | None")
        blocks.append("\n".join(lines))
    names = [f"{name}Fields" for name in DATACLASSES] + [f"{name}Keywords" for name in KEYWORDS]
    names += ["UPLOAD_THRESHOLD_BYTES", "INPUT_DTYPES", "EXCLUSIVE_INPUTS", "LOSS_TYPES"]
    ordered = sorted(names, key=lambda name: (not name.isupper(), name))  # constants first
    listing = "".join(f'    "{name}",\n' for name in ordered)
    threshold = (
        "#: Operation bodies whose compact JSON is longer are uploaded (x-upload-threshold-bytes)\n"
        f"UPLOAD_THRESHOLD_BYTES = {upload_threshold_bytes(spec)}"
    )
    blocks.insert(0, threshold + "\n" + sample_facts(spec))
    text = HEADER + f"\n__all__ = [\n{listing}]\n\n" + "\n\n\n".join(blocks) + "\n"
    return _formatted(text)


def _formatted(text: str) -> str:
    """``text`` formatted by ruff with the project's configuration (quotes, line breaks)."""
    ruff = Path(sys.executable).with_name("ruff")
    command = [str(ruff), "format", "--config", str(ROOT / "pyproject.toml"), "-"]
    command[2:2] = ["--stdin-filename", str(TARGET)]
    return subprocess.run(command, input=text, capture_output=True, text=True, check=True).stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the file is fresh")
    parser.add_argument("--spec", type=Path, default=SPEC, help="the spec (default: %(default)s)")
    parser.add_argument("--output", type=Path, default=TARGET, help="default: %(default)s")
    args = parser.parse_args(argv)
    fresh = derive(parse_document(args.spec.read_bytes(), str(args.spec)))
    target: Path = args.output
    current = target.read_text(encoding="utf-8") if target.exists() else ""
    if fresh == current:
        return 0
    if args.check:
        diff = difflib.unified_diff(
            current.splitlines(keepends=True),
            fresh.splitlines(keepends=True),
            str(target),
            "derived",
        )
        sys.stdout.writelines(diff)
        print(f"\nstale: {target}; run `make derive`", file=sys.stderr)
        return 1
    target.write_text(fresh, encoding="utf-8")
    print(f"derived {target} from {args.spec}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
