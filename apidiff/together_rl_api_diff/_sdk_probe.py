"""Runs INSIDE the environment of one official SDK release (imports nothing of this package).

Prints, as JSON, that release's RL surface: every endpoint of its RL resources (method, path,
path/query/header parameters, body fields, response model) and every TypedDict and pydantic
model they reach, as JSON Schema. Read from the release's own code: the Stainless resource
methods (`self._post(path, body=maybe_transform({...}, XParams), cast_to=Y)`) by `ast`, the
types by `typing` introspection. Exit 3 with a one-line reason when the release has no RL API.
"""

from __future__ import annotations

import ast
import datetime
import importlib
import inspect
import json
import pkgutil
import re
import sys
import textwrap
import types
import typing
from pathlib import Path
from typing import Any

__all__ = ["main"]

_NAMESPACES = (
    ("together.resources.post_training", "client.post_training"),
    ("together.resources.beta.rl", "client.beta.rl"),
)
_HTTP = {"_get": "get", "_post": "post", "_put": "put", "_patch": "patch", "_delete": "delete"}


class _Schemas:
    def __init__(self) -> None:
        self.components: dict[str, Any] = {}
        self._names: dict[Any, str] = {}

    def _component(self, owner: Any, build: Any) -> dict[str, Any]:
        name = self._names.get(owner)
        if name is None:
            name = owner.__name__
            while name in self.components:
                name = f"{owner.__module__.rsplit('.', 1)[-1]}.{name}"
            self._names[owner] = name
            self.components[name] = {}
            self.components[name] = build(owner)
        return {"$ref": f"#/components/schemas/{name}"}

    def of(self, annotation: Any) -> dict[str, Any]:
        origin = typing.get_origin(annotation)
        arguments = typing.get_args(annotation)
        if origin is typing.Annotated:
            return self.of(arguments[0])
        if origin in (typing.Required, typing.NotRequired) or str(origin).endswith(
            ("Required", "NotRequired")
        ):
            return self.of(arguments[0])
        if annotation is type(None):
            return {"type": "null"}
        if origin is typing.Literal:
            kinds = {type(value) for value in arguments}
            named = {str: "string", int: "integer", bool: "boolean", float: "number"}
            if len(kinds) == 1 and next(iter(kinds)) in named:
                return {"type": named[next(iter(kinds))], "enum": list(arguments)}
            return {"enum": list(arguments)}
        if origin in (typing.Union, types.UnionType):
            members = [self.of(member) for member in arguments if member is not type(None)]
            return members[0] if len(members) == 1 else {"anyOf": members}
        if origin in (list, set, frozenset, tuple) or (
            origin is not None
            and getattr(origin, "__name__", "") in ("Iterable", "Sequence", "SequenceNotStr")
        ):
            return {"type": "array", "items": self.of(arguments[0]) if arguments else {}}
        if origin is dict or getattr(origin, "__name__", "") in ("Mapping",):
            value = self.of(arguments[1]) if len(arguments) == 2 else {}
            return {"type": "object", "additionalProperties": value}
        if annotation is str:
            return {"type": "string"}
        if annotation is bool:
            return {"type": "boolean"}
        if annotation is int:
            return {"type": "integer"}
        if annotation is float:
            return {"type": "number"}
        if annotation in (datetime.datetime, datetime.date):
            return {"type": "string"}
        if _is_typed_dict(annotation):
            return self._component(annotation, self._typed_dict)
        if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
            return self._component(annotation, self._model)
        if getattr(annotation, "__name__", "") == "SequenceNotStr" or str(annotation).endswith(
            "SequenceNotStr"
        ):
            return {"type": "array"}
        return {}

    def _typed_dict(self, owner: Any) -> dict[str, Any]:
        hints = typing.get_type_hints(owner, include_extras=True)
        properties, required = {}, []
        for name, hint in hints.items():
            wire = _alias(hint) or name
            properties[wire] = self.of(hint)
            if _required(owner, name, hint):
                required.append(wire)
        return {"type": "object", "properties": properties, "required": sorted(required)}

    def _model(self, owner: Any) -> dict[str, Any]:
        properties, required = {}, []
        for name, field in owner.model_fields.items():
            wire = field.alias or name
            properties[wire] = self.of(field.annotation)
            if field.is_required():
                required.append(wire)
        return {"type": "object", "properties": properties, "required": sorted(required)}


def _is_typed_dict(annotation: Any) -> bool:
    return isinstance(annotation, type) and hasattr(annotation, "__required_keys__")


def _required(owner: Any, name: str, hint: Any) -> bool:
    """`Required[...]` / `NotRequired[...]` wrappers decide; else the TypedDict's totality.

    (Under `from __future__ import annotations`, `__required_keys__` misses `Required[...]`.)
    """
    marker = str(typing.get_origin(hint) or "")
    if marker.endswith("NotRequired"):
        return False
    if marker.endswith("Required"):
        return True
    return bool(getattr(owner, "__total__", True))


def _alias(hint: Any) -> str | None:
    for part in typing.get_args(hint):
        if typing.get_origin(part) is typing.Annotated:
            found = _alias(part)
            if found:
                return found
        alias = getattr(part, "alias", None)
        if isinstance(alias, str):
            return alias
    if typing.get_origin(hint) is not typing.Annotated:
        inner = typing.get_args(hint)
        if inner and typing.get_origin(inner[0]) is typing.Annotated:
            return _alias(inner[0])
    return None


def _path(node: ast.expr) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(str(value.value))
            elif isinstance(value, ast.FormattedValue):
                parts.append("{" + ast.unparse(value.value) + "}")
        return "".join(parts)
    if isinstance(node, ast.Call) and node.args:
        return _path(node.args[0])
    return None


def _transform(node: ast.expr | None) -> tuple[list[str], str] | None:
    """`maybe_transform({"a": a, ...}, mod.XParams)` -> (["a", ...], "mod.XParams")."""
    if isinstance(node, ast.Await):
        node = node.value
    if not isinstance(node, ast.Call) or len(node.args) != 2:
        return None
    keys = node.args[0]
    names = (
        [str(k.value) for k in keys.keys if isinstance(k, ast.Constant)]
        if isinstance(keys, ast.Dict)
        else []
    )
    return names, ast.unparse(node.args[1])


def _endpoint(method: Any, module: Any, schemas: _Schemas, sdk_name: str) -> dict[str, Any] | None:
    tree = ast.parse(textwrap.dedent(inspect.getsource(method)))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef)
    call = next(
        (
            n
            for n in ast.walk(function)
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr in _HTTP
            and isinstance(n.func.value, ast.Name)
            and n.func.value.id == "self"
        ),
        None,
    )
    if call is None or not call.args:
        return None
    assert isinstance(call.func, ast.Attribute)
    verb = call.func.attr
    path = _path(call.args[0])
    if path is None:
        return None
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    hints = typing.get_type_hints(method, include_extras=True, globalns=vars(module))
    defaults = {
        name: parameter.default is not inspect.Parameter.empty
        for name, parameter in inspect.signature(method).parameters.items()
    }
    headers: dict[str, str] = {}
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "extra_headers" for t in node.targets)
            and isinstance(node.value, ast.Dict)
        ):
            for key, value in zip(node.value.keys, node.value.values, strict=True):
                if isinstance(key, ast.Constant) and isinstance(value, ast.Name):
                    headers[str(key.value)] = value.id
    operation: dict[str, Any] = {
        "sdk_method": sdk_name,
        "method": _HTTP[verb],
        "path": path,
    }
    parameters = []
    for header, argument in headers.items():
        parameters.append(
            {
                "in": "header",
                "name": header,
                "required": not defaults.get(argument, True),
                "schema": schemas.of(hints.get(argument, str)),
            }
        )
    for name in [n.strip("{}") for n in path.split("/") if n.startswith("{")]:
        parameters.append(
            {"in": "path", "name": name, "required": True, "schema": {"type": "string"}}
        )
    body = _transform(keywords.get("body"))
    query = None
    options = keywords.get("options")
    if isinstance(options, ast.Call):
        query = _transform(next((k.value for k in options.keywords if k.arg == "query"), None))
    if query is not None:
        query_type = eval(query[1], vars(module))
        query_hints = typing.get_type_hints(query_type, include_extras=True)
        for name in query[0]:
            if name in query_hints:
                parameters.append(
                    {
                        "in": "query",
                        "name": _alias(query_hints[name]) or name,
                        "required": _required(query_type, name, query_hints[name]),
                        "schema": schemas.of(query_hints[name]),
                    }
                )
    operation["parameters"] = parameters
    if body is not None:
        body_type = eval(body[1], vars(module))
        body_hints = typing.get_type_hints(body_type, include_extras=True)
        properties, required = {}, []
        for name in body[0]:
            if name in body_hints:
                wire = _alias(body_hints[name]) or name
                properties[wire] = schemas.of(body_hints[name])
                if _required(body_type, name, body_hints[name]):
                    required.append(wire)
        operation["body"] = {
            "type": "object",
            "properties": properties,
            "required": sorted(required),
        }
    cast_to = keywords.get("cast_to") or keywords.get("model")
    if cast_to is not None:
        target = eval(ast.unparse(cast_to), vars(module))
        operation["response"] = schemas.of(target)
    return operation


_RAW_CALL = re.compile(r"\.(get|post|put|patch|delete)\(\s*f?[\"'](/v1/rl/[^\"']+)[\"']")


def _hand_written_endpoints(together: Any) -> list[dict[str, Any]]:
    """Endpoints the hand-written layer (`together/post_training/`) calls untyped, by path."""
    root = Path(together.__file__).parent / "post_training"
    found = []
    for source in sorted(root.rglob("*.py")) if root.is_dir() else []:
        for method, path in _RAW_CALL.findall(source.read_text(encoding="utf-8")):
            found.append(
                {
                    "sdk_method": f"{source.relative_to(root.parent.parent)} (untyped)",
                    "method": method,
                    "path": path,
                    "parameters": [],
                    "untyped": True,
                }
            )
    return found


def main() -> int:
    import together

    version = (
        getattr(together, "__version__", None)
        or importlib.import_module("together._version").__version__
    )
    package = namespace = None
    for candidate, label in _NAMESPACES:
        try:
            package = importlib.import_module(candidate)
        except ImportError:
            continue
        namespace = label
        break
    if package is None:
        print(
            f"together=={version} has no RL API (neither client.post_training nor client.beta.rl)"
        )
        return 3
    from together._resource import SyncAPIResource

    schemas = _Schemas()
    operations = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for _, owner in inspect.getmembers(module, inspect.isclass):
            if owner.__module__ != module.__name__ or not issubclass(owner, SyncAPIResource):
                continue
            for name, method in vars(owner).items():
                if name.startswith("_") or not inspect.isfunction(method):
                    continue
                found = _endpoint(method, module, schemas, f"{namespace}.{info.name}.{name}")
                if found is not None:
                    operations.append(found)
    operations += _hand_written_endpoints(together)
    json.dump(
        {
            "version": version,
            "namespace": namespace,
            "operations": operations,
            "components": schemas.components,
        },
        sys.stdout,
        sort_keys=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
