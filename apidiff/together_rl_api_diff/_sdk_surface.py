"""An official SDK release's RL surface as an OpenAPI document, and the spec reduced to what
an SDK can state (names, required, types, enums), so the two compare with the same diff.

The release is installed with pip into a throwaway directory (from the wheel cache when one is
given and holds it) and read by `_sdk_probe.py` running in a separate interpreter.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any

from together_rl_spec import Document, DocumentError

__all__ = ["RL_PREFIX", "SdkSurfaceError", "project_spec", "sdk_document", "sdk_surface"]

RL_PREFIX = "/rl/"
_PROBE = Path(__file__).with_name("_sdk_probe.py")
_REQUIREMENT = re.compile(r"^together==(\d+(?:\.\d+)*[a-z0-9.]*)$")
_KEPT = (
    "type",
    "enum",
    "properties",
    "required",
    "items",
    "additionalProperties",
    "oneOf",
    "anyOf",
    "allOf",
    "$ref",
)


class SdkSurfaceError(Exception):
    """One line: the release and why its surface cannot be read."""


def _installed_version() -> str | None:
    try:
        return metadata.version("together")
    except metadata.PackageNotFoundError:
        return None


def _install(version: str, target: Path, cache: Path | None, offline: bool) -> None:
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--disable-pip-version-check",
        "--target",
        str(target),
    ]
    if offline:
        command += ["--no-index", *(["--find-links", str(cache)] if cache is not None else [])]
    elif cache is not None and any(cache.glob(f"together-{version}-*.whl")):
        command += ["--no-index", "--find-links", str(cache)]
    done = subprocess.run(
        [*command, f"together=={version}"], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
        reason = lines[-1].removeprefix("ERROR: ") if lines else "pip install failed"
        raise SdkSurfaceError(f"together=={version}: cannot be installed: {reason}")


def sdk_surface(
    requirement: str, *, cache: Path | None = None, offline: bool = False
) -> dict[str, Any]:
    """The probe's JSON for `together==X` (the installed release is read in place)."""
    found = _REQUIREMENT.match(requirement.strip())
    if found is None:
        raise SdkSurfaceError(f"{requirement}: not a release (give together==X.Y.Z)")
    version = found[1]
    with tempfile.TemporaryDirectory(prefix="together-sdk-") as scratch:
        environment = dict(os.environ)
        if _installed_version() != version:
            _install(version, Path(scratch), cache, offline)
            environment["PYTHONPATH"] = scratch
            resources = Path(scratch) / "together" / "resources"
            if not any((resources / part).is_dir() for part in ("post_training", "beta/rl")):
                raise SdkSurfaceError(
                    f"{requirement}: has no RL API "
                    "(neither client.post_training nor client.beta.rl)"
                )
        done = subprocess.run(
            [sys.executable, "-c", _PROBE.read_text(encoding="utf-8")],
            capture_output=True,
            text=True,
            check=False,
            cwd=scratch,
            env=environment,
        )
    if done.returncode == 3:
        raise SdkSurfaceError(done.stdout.strip())
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise SdkSurfaceError(f"{requirement}: its RL surface could not be read: {last}")
    surface: dict[str, Any] = json.loads(done.stdout)
    if surface.get("version") != version:
        raise SdkSurfaceError(f"{requirement}: the probe read together=={surface.get('version')}")
    if not any(o["path"].removeprefix("/v1").startswith(RL_PREFIX) for o in surface["operations"]):
        raise SdkSurfaceError(f"{requirement}: has no RL API (no /rl/ endpoint)")
    return surface


def _project(node: Any) -> Any:
    """Only what an SDK's types state: no bounds, defaults, formats, descriptions, x- rules."""
    if isinstance(node, list):
        return [_project(item) for item in node]
    if not isinstance(node, dict):
        return node
    kept: dict[str, Any] = {}
    for key in _KEPT:
        if key not in node:
            continue
        value = node[key]
        if key == "properties" and isinstance(value, dict):
            kept[key] = {name: _project(schema) for name, schema in value.items()}
        elif key == "additionalProperties":
            if isinstance(value, dict):
                kept[key] = _project(value)
        elif key == "type" and isinstance(value, list):
            kept[key] = [item for item in value if item != "null"]
        elif key in ("oneOf", "anyOf", "allOf"):
            members = [m for m in value if not (isinstance(m, dict) and m.get("type") == "null")]
            kept[key] = _project(members)
        else:
            kept[key] = _project(value) if isinstance(value, dict | list) else value
    if "const" in node:
        kept["enum"] = [node["const"]]
    return kept


def _success(responses: dict[str, Any]) -> Any:
    for code in sorted(responses):
        if str(code).startswith("2"):
            return responses[code]
    return None


def project_spec(document: Document) -> Document:
    """The spec's RL operations with only the facts an SDK states."""
    root = document.root
    paths: dict[str, Any] = {}
    for path, item in (root.get("paths") or {}).items():
        if not str(path).startswith(RL_PREFIX):
            continue
        projected_item = {}
        for method, operation in item.items():
            if method not in ("get", "put", "post", "patch", "delete"):
                continue
            projected: dict[str, Any] = {"responses": {}}
            parameters = [*item.get("parameters", []), *operation.get("parameters", [])]
            projected["parameters"] = [
                {
                    key: _project(value) if key == "schema" else value
                    for key, value in parameter.items()
                    if key in ("in", "name", "required", "schema", "$ref")
                }
                for parameter in parameters
            ]
            body = operation.get("requestBody")
            if body is not None:
                if "$ref" in body:
                    raise DocumentError(document.source, path, "requestBody $ref not supported")
                schema = (body.get("content") or {}).get("application/json", {}).get("schema", {})
                projected["requestBody"] = {
                    "content": {"application/json": {"schema": _project(schema)}}
                }
            response = _success(operation.get("responses") or {})
            if isinstance(response, dict) and "content" in response:
                schema = response["content"].get("application/json", {}).get("schema", {})
                projected["responses"]["200"] = {
                    "content": {"application/json": {"schema": _project(schema)}}
                }
            elif response is not None:
                projected["responses"]["200"] = {}
            projected_item[method] = projected
        paths[path] = projected_item
    components = root.get("components") or {}
    projected_components = {
        "schemas": {name: _project(s) for name, s in (components.get("schemas") or {}).items()},
        "parameters": {
            name: {
                k: _project(v) if k == "schema" else v
                for k, v in p.items()
                if k in ("in", "name", "required", "schema")
            }
            for name, p in (components.get("parameters") or {}).items()
        },
    }
    projected_root = {
        "openapi": "3.1.0",
        "info": {"title": "spec (SDK facts)", "version": document.version},
        "paths": paths,
        "components": projected_components,
    }
    return Document(document.source, projected_root)


def sdk_document(surface: dict[str, Any]) -> Document:
    """The release's RL surface as an OpenAPI document (paths without the `/v1` prefix)."""
    paths: dict[str, Any] = {}
    for operation in surface["operations"]:
        path = operation["path"].removeprefix("/v1")
        if not path.startswith(RL_PREFIX):
            continue
        projected: dict[str, Any] = {"parameters": operation["parameters"], "responses": {}}
        if "body" in operation:
            projected["requestBody"] = {
                "content": {"application/json": {"schema": operation["body"]}}
            }
        if "response" in operation:
            projected["responses"]["200"] = {
                "content": {"application/json": {"schema": operation["response"]}}
            }
        paths.setdefault(path, {})[operation["method"]] = projected
    root = {
        "openapi": "3.1.0",
        "info": {"title": f"together=={surface['version']}", "version": surface["version"]},
        "paths": paths,
        "components": {"schemas": _project_components(surface["components"])},
    }
    return Document(f"together=={surface['version']}", root)


def _project_components(components: dict[str, Any]) -> dict[str, Any]:
    return {name: _project(schema) for name, schema in components.items()}
