"""`together-rl-sdk-drift together==X`: the spec against one official SDK release's RL surface.

The report reads as a diff from the spec (OLD) to the release (NEW): "property added" is a
field the release has and the spec lacks. Same JSON and formats as `together-rl-api-diff`.
Exit codes: 0 no drift (or `--fail-on never`), 1 drift, 2 the release or the spec cannot be read.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from ._changes import Change, DiffReport
from ._comparing import compare_documents
from ._formats import FORMATS, render
from ._loading import DEFAULT_SPEC_PATH, Document, DocumentError, load_document
from ._sdk_surface import SdkSurfaceError, project_spec, sdk_document, sdk_surface

__all__ = ["allowed", "drift_from_surface", "drift_report", "main"]

_PARAMETER = re.compile(r"\{[^}/]*\}")


def _adopt_untyped(spec: Document, sdk: Document, surface: dict[str, Any]) -> None:
    """An endpoint the SDK calls untyped states only its method and path: take the rest from
    the spec, so only its presence is compared."""
    by_key = {}
    adopted = False
    for path, item in (spec.root.get("paths") or {}).items():
        for method, operation in item.items():
            by_key[(method, _PARAMETER.sub("{}", path))] = operation
    for operation in surface["operations"]:
        if not operation.get("untyped"):
            continue
        path = operation["path"].removeprefix("/v1")
        key = (operation["method"], _PARAMETER.sub("{}", path))
        if key in by_key:
            sdk.root["paths"].setdefault(path, {})[operation["method"]] = by_key[key]
            adopted = True
    if adopted:  # what the adopted operations refer to; SDK components keep their own names
        components = sdk.root.setdefault("components", {})
        for section, entries in (spec.root.get("components") or {}).items():
            for name, entry in entries.items():
                components.setdefault(section, {}).setdefault(name, entry)


def drift_report(
    requirement: str,
    *,
    spec: str = DEFAULT_SPEC_PATH,
    cache: Path | None = None,
    offline: bool = False,
) -> DiffReport:
    """Every difference between the spec and `together==X` (raises SdkSurfaceError,
    DocumentError)."""
    surface = sdk_surface(requirement, cache=cache, offline=offline)
    return drift_from_surface(surface, load_document(spec))


def drift_from_surface(surface: dict[str, Any], spec: Document) -> DiffReport:
    """The diff from the spec's SDK-stated facts to a release's surface (`sdk_surface`)."""
    projected = project_spec(spec)
    released = sdk_document(surface)
    released.root["info"]["version"] = spec.version  # semver: the bump agreeing would need
    _adopt_untyped(projected, released, surface)
    return compare_documents(projected, released)


def allowed(change: Change, allow_list: dict[str, str]) -> bool:
    """True when an allow-list key is the property (`/properties/NAME`) the change is about."""
    return any(change.location.endswith(f"/properties/{key}") for key in allow_list)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="together-rl-sdk-drift",
        description="Compare spec/openapi.yaml with the RL surface of one official SDK release.",
    )
    parser.add_argument("release", help="together==X.Y.Z")
    parser.add_argument("--spec", default=DEFAULT_SPEC_PATH)
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path(".venv/sdk-releases"),
        help="wheels to install from without the registry, when they hold it",
    )
    parser.add_argument("--offline", action="store_true", help="install from --cache only")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", dest="output_format")
    parser.add_argument("--fail-on", choices=["drift", "never"], default="never")
    arguments = parser.parse_args(argv)
    try:
        report = drift_report(
            arguments.release, spec=arguments.spec, cache=arguments.cache, offline=arguments.offline
        )
    except (SdkSurfaceError, DocumentError) as error:
        print(f"together-rl-sdk-drift: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(render(report, arguments.output_format))
    return 1 if arguments.fail_on == "drift" and report.changes else 0


if __name__ == "__main__":
    sys.exit(main())
