"""The wrapper's derived modules (``make derive``): the sync twins of the async sources and the
field lists of the spec's parameter objects are what their derivation gives today."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("script", ["unasync.py", "derive_fields.py"])
def test_derived_modules_are_fresh(script: str) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, (
        f"a file derived by scripts/{script} is stale: run `make derive` and commit the result.\n"
        + result.stdout[-4000:]
        + result.stderr
    )


def _script(name: str) -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "scripts"))


def test_field_derivation_follows_the_spec() -> None:
    """A field added to a parameter object reaches its builder and the keyword arguments; a
    ``$ref`` to an enum is a str, to an int64 an int; required fields are not keywords."""
    derive_fields = _script("derive_fields")
    spec = yaml.safe_load((ROOT / "spec" / "openapi.yaml").read_text())
    schemas = spec["components"]["schemas"]
    schemas["AdamParams"]["properties"]["momentum_dtype"] = {
        "$ref": "#/components/schemas/GRPOLossAggregationType"
    }
    schemas["SessionCreate"]["properties"]["tags"] = {"type": "array", "items": {"type": "string"}}
    text = derive_fields.derive(spec)
    adam = text.split("class AdamParamsFields:", 1)[1].split("\n\n\n", 1)[0]
    assert "    momentum_dtype: str | None = None" in adam
    assert "    learning_rate: float | None = None" in adam
    sampling = text.split("class SamplingParamsFields:", 1)[1].split("\n\n\n", 1)[0]
    assert "    seed: int | None = None" in sampling  # Int64Value
    create = text.split("class SessionCreateKeywords(", 1)[1].split("\n\n\n", 1)[0]
    assert "    tags: Sequence[str] | None" in create
    assert "model_resources_id" not in create  # required: a positional parameter
    schemas["SamplingParams"]["properties"]["logit_bias"] = {"oneOf": [{"type": "string"}]}
    with pytest.raises(ValueError, match="no Python type for the schema"):
        derive_fields.derive(spec)


def test_derivation_turns_async_code_into_sync_code() -> None:
    unasync = _script("unasync")
    source = (
        "class AsyncThing:\n"
        "    async def get(self, fetch: Callable[[], Awaitable[int]]) -> int:\n"
        "        async with self._lock:\n"
        "            await asyncio.sleep(0)\n"
        "            return await fetch()\n"
        "    # unasync: async only\n"
        "    def __await__(self): ...\n"
        "    # unasync: end\n"
    )
    derived = unasync.unasync_text(source, "_async.py")
    assert derived.splitlines()[1:] == [
        "class Thing:",
        "    def get(self, fetch: Callable[[], int]) -> int:",
        "        with self._lock:",
        "            time.sleep(0)",
        "            return fetch()",
    ]


def test_the_documented_layout_lists_every_module() -> None:
    """docs/wrapper.md's layout names every module of the wrapper (and no module that is gone)."""
    import re

    text = (ROOT / "docs" / "wrapper.md").read_text()
    block = text.split("## Layout: how the wrapper sits on the spec", 1)[1].split("```")[1]
    listed = set(re.findall(r"\b(_?\w+\.py)\b", block)) - {"unasync.py", "derive_fields.py"}
    modules = {path.name for path in (ROOT / "wrapper" / "together_rl").glob("*.py")}
    assert listed == modules
