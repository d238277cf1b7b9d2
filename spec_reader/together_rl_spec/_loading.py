"""Reading an OpenAPI document: a file, JSON or YAML (tolerant), or a git revision of one.

A document that cannot be read raises `DocumentError` naming the file, the place and the
reason; nothing half-read ever reaches the comparison.
"""

from __future__ import annotations

import functools
import hashlib
import json
import posixpath
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DEFAULT_SPEC_PATH",
    "Document",
    "DocumentError",
    "load_document",
    "parse_data",
    "parse_text",
]

DEFAULT_SPEC_PATH = "spec/openapi.yaml"


class DocumentError(Exception):
    """A document that cannot be read: `str()` is one line naming file, place and reason."""

    def __init__(self, source: str, place: str, reason: str) -> None:
        super().__init__(f"{source}: {place}: {reason}")
        self.source = source
        self.place = place
        self.reason = reason


@dataclass(frozen=True)
class Document:
    """A parsed OpenAPI document, the name it was read under, and how to read the files its
    `$ref`s name (by a path relative to its directory; None: it has no directory)."""

    source: str
    root: dict[str, Any]
    read_beside: Callable[[str], str] | None = field(default=None, compare=False, repr=False)

    @property
    def version(self) -> str:
        info = self.root.get("info")
        return str(info.get("version", "")) if isinstance(info, dict) else ""


_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when present


class _NoDatesLoader(_BaseLoader):  # type: ignore[misc]
    """PyYAML's safe loader, keeping dates and times as the strings they are in an API spec."""


_NoDatesLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class _Unusual(Exception):
    """A YAML feature the fast constructor leaves to PyYAML's own (merge keys, custom tags)."""


_STR = "tag:yaml.org,2002:str"
_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_SCALARS = {
    "tag:yaml.org,2002:int": "construct_yaml_int",
    "tag:yaml.org,2002:float": "construct_yaml_float",
    "tag:yaml.org,2002:bool": "construct_yaml_bool",
    "tag:yaml.org,2002:null": "construct_yaml_null",
}


def _fast_yaml(text: str) -> Any:
    """libyaml composes the nodes; plain dicts, lists and scalars are built from them directly
    (PyYAML's generic constructor takes most of the load time of a large spec)."""
    loader = _NoDatesLoader(text)
    try:
        root = loader.get_single_node()
    finally:
        loader.dispose()
    if root is None:
        return None
    scalars = {tag: getattr(loader, name) for tag, name in _SCALARS.items()}
    built: dict[int, Any] = {}
    building: set[int] = set()

    def construct(node: Any) -> Any:
        tag = node.tag
        if tag == _STR:
            return node.value
        key = id(node)
        if key in built:
            return built[key]
        if tag in scalars:
            return scalars[tag](node)
        if key in building:
            raise _Unusual("a recursive alias")
        building.add(key)
        if tag == _MAP:
            value: Any = {}
            for key_node, value_node in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise _Unusual("a merge key")
                name = construct(key_node)
                if isinstance(name, dict | list):
                    raise _Unusual("a complex key")
                value[name] = construct(value_node)
        elif tag == _SEQ:
            value = [construct(item) for item in node.value]
        else:
            raise _Unusual(tag)
        building.discard(key)
        built[key] = value
        return value

    return construct(root)


def _yaml_place(error: Exception) -> str:
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is not None:
        return f"line {mark.line + 1} column {mark.column + 1}"
    return "document"


def _ruamel_load(text: str) -> Any:
    from ruamel.yaml import YAML

    reader = YAML(typ="safe", pure=True)
    reader.allow_duplicate_keys = True
    return reader.load(text)


@functools.lru_cache(maxsize=256)
def _parse_cached(digest: str, text: str, source: str) -> Any:
    del digest  # part of the cache key only
    return parse_data(text, source)


def parse_data(text: str, source: str) -> Any:
    """Parse JSON or YAML text (PyYAML first, then ruamel.yaml), uncached: every call builds
    new objects. DocumentError names the place where it breaks."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            pass  # JSON is YAML: the YAML readers below say where it breaks
    try:
        try:
            return _fast_yaml(text)
        except _Unusual:
            return yaml.load(text, Loader=_NoDatesLoader)
    except yaml.YAMLError as first:
        try:
            return _ruamel_load(text)
        except Exception as second:  # ruamel's errors share no base class with PyYAML's
            del second
            reason = str(getattr(first, "problem", None) or first).strip()
            raise DocumentError(source, _yaml_place(first), f"not YAML: {reason}") from first


def parse_text(text: str, source: str) -> dict[str, Any]:
    """Parse one OpenAPI document's text (JSON, YAML; PyYAML first, then ruamel.yaml)."""
    digest = hashlib.sha256(text.encode()).hexdigest()
    root = _parse_cached(digest, text, source)
    if not isinstance(root, dict):
        raise DocumentError(source, "document", "not an OpenAPI document (not a mapping)")
    version = root.get("openapi")
    if version is None:
        reason = "Swagger 2.0 is not supported" if "swagger" in root else "no `openapi` field"
        raise DocumentError(source, "openapi", f"not an OpenAPI 3.x document ({reason})")
    if not re.match(r"^3\.[01]\.", str(version)):
        raise DocumentError(source, "openapi", f"unsupported OpenAPI version {version!r}")
    paths = root.get("paths", {})
    if paths is not None and not isinstance(paths, dict):
        raise DocumentError(source, "paths", "not a mapping")
    return root


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, encoding="utf-8"
    )


def _repo_root(start: Path) -> Path | None:
    found = _git(["rev-parse", "--show-toplevel"], start)
    return Path(found.stdout.strip()) if found.returncode == 0 else None


def read_git_blob(revision: str, path: str, cwd: Path) -> str:
    """The text of `path` at `revision` (`git show REV:PATH`), or DocumentError."""
    source = f"{revision}:{path}"
    root = _repo_root(cwd)
    if root is None:
        raise DocumentError(source, "git", f"{cwd} is not inside a git repository")
    shown = _git(["show", f"{revision}:{path}"], root)
    if shown.returncode != 0:
        reason = shown.stderr.strip().splitlines()[-1] if shown.stderr.strip() else "unknown"
        raise DocumentError(source, "git revision", reason.removeprefix("fatal: "))
    return shown.stdout


def load_document(
    spec: str, *, default_path: str = DEFAULT_SPEC_PATH, cwd: Path | None = None
) -> Document:
    """Read `spec`: a file, `REV:PATH`, or a git revision `REV` of `default_path`."""
    here = cwd or Path.cwd()
    candidate = here / spec
    if candidate.is_file():
        try:
            text = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise DocumentError(spec, "file", str(error)) from error
        directory = candidate.parent
        return Document(spec, parse_text(text, spec), _file_reader(directory))
    if ":" in spec and not spec.startswith(("/", ".")):
        revision, _, path = spec.partition(":")
    elif spec.endswith((".yaml", ".yml", ".json")):
        raise DocumentError(spec, "file", "no such file")
    else:
        revision, path = spec, default_path
    source = f"{revision}:{path}"
    text = read_git_blob(revision, path, here)
    return Document(source, parse_text(text, source), _git_reader(revision, path, here))


def _file_reader(directory: Path) -> Callable[[str], str]:
    def read(relative: str) -> str:
        return (directory / relative).read_text(encoding="utf-8")

    return read


def _git_reader(revision: str, path: str, cwd: Path) -> Callable[[str], str]:
    base = posixpath.dirname(path)

    def read(relative: str) -> str:
        return read_git_blob(revision, posixpath.normpath(posixpath.join(base, relative)), cwd)

    return read
