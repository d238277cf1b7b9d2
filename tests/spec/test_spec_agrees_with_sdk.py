"""The spec against the official SDK `together==3.1.1`, by introspection of its RL surface.

For every RL operation: the endpoint (method and path), the request params (names, required,
types, Literal enums: the TypedDicts of `*_params.py`) and the response models (pydantic fields,
required, enums) must equal the spec's. This is the same implementation as
`together-rl-sdk-drift` (`together_rl_api_diff._sdk_drift`), run on the release installed in the
venv. The allow-lists are short and each entry says why; an entry that no longer matches fails.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from ci_policy import import_required
from together_rl_api_diff import Change, load_document
from together_rl_api_diff._sdk_drift import allowed, drift_from_surface
from together_rl_api_diff._sdk_surface import sdk_surface

import_required("together", "3.1.1")

REPO = Path(__file__).resolve().parents[2]

#: property name -> why the SDK's typed surface does not declare it.
ALLOWED_DRIFT = {
    "payload_id": "the large-payload protocol: the SDK's hand-written layer "
    "(together/post_training/_payloads.py) sends `payload_id` through `extra_body` and reads it "
    "from the raw output; the typed params and models never declare it",
}

#: operation -> why the release lacks it although the spec has it.
ALLOWED_MISSING_OPERATIONS = {
    "POST /rl/rollouts/estimate": "published in the API reference "
    "(docs.together.ai/reference/post-training/rollouts-estimate), in no SDK release yet",
}


def _known(change: Change) -> bool:
    missing = change.kind == "operation-removed" and change.old in ALLOWED_MISSING_OPERATIONS
    return missing or allowed(change, ALLOWED_DRIFT)


@functools.cache
def surface() -> dict[str, Any]:
    return sdk_surface("together==3.1.1")


def test_the_spec_agrees_with_the_sdk_beyond_the_allow_list() -> None:
    report = drift_from_surface(surface(), load_document("spec/openapi.yaml", cwd=REPO))
    drift = [c.message for c in report.changes if not _known(c)]
    assert drift == [], "the spec and together==3.1.1 differ:\n" + "\n".join(drift)
    used = {key for key in ALLOWED_DRIFT if any(allowed(c, {key: ""}) for c in report.changes)}
    assert used == set(ALLOWED_DRIFT), "allow-list entries that match nothing any more"
    missing = {c.old for c in report.changes if c.kind == "operation-removed"}
    assert missing == set(ALLOWED_MISSING_OPERATIONS), "operations the release lacks"


def test_the_surface_is_the_whole_rl_api_of_the_release() -> None:
    found = surface()
    assert found["namespace"] == "client.post_training"
    typed = [
        o for o in found["operations"] if o["path"].startswith("/v1/rl/") and not o.get("untyped")
    ]
    assert len(typed) == 29
    forward_backward = next(o for o in typed if o["path"].endswith("operations/forward-backward"))
    assert forward_backward["method"] == "post"
    assert forward_backward["body"]["required"] == ["loss", "samples"]
    assert {
        "in": "header",
        "name": "Idempotency-Key",
        "required": True,
        "schema": {"type": "string"},
    } in forward_backward["parameters"]


def test_drift_in_the_spec_is_found(tmp_path: Path) -> None:
    """The check can fail: a spec with one more status value and one less required field."""
    spec = load_document("spec/openapi.yaml", cwd=REPO)
    root = json.loads(json.dumps(spec.root))
    root["components"]["schemas"]["SessionStatus"]["enum"].append("TRAINING_SESSION_STATUS_PAUSED")
    root["components"]["schemas"]["SessionError"]["required"].remove("code")
    (tmp_path / "drifted.json").write_text(json.dumps(root), encoding="utf-8")
    report = drift_from_surface(surface(), load_document("drifted.json", cwd=tmp_path))
    drift = {(c.kind, c.location.rsplit("/", 1)[-1]) for c in report.changes if not _known(c)}
    assert drift == {("enum-value-removed", "SessionStatus"), ("property-became-required", "code")}
