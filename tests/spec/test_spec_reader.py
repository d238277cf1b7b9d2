"""`together_rl_spec`, the one reader of the spec: the document, local `$ref`s, schemas, enums,
operations, the server path and the upload threshold; every package reads the spec through it
(no other YAML parse of the spec, no other `$ref` walker in the hand-written packages)."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest
import together_rl_spec as spec
from together.post_training import _payloads as sdk_payloads

REPO = Path(__file__).resolve().parents[2]

TINY = {
    "openapi": "3.1.0",
    "servers": [{"url": "https://api.example.test/v2/"}],
    "paths": {
        "/things/upload": {
            "post": {
                "operationId": "upload",
                "x-rules": [{"rule": "big bodies are uploaded", "x-upload-threshold-bytes": 10}],
            }
        },
        "/things/{id}": {"get": {"operationId": "getThing"}},
    },
    "components": {
        "schemas": {
            "Colour": {"enum": ["COLOUR_UNSPECIFIED", "COLOUR_RED", "COLOUR_DARK_RED"]},
            "Alias": {"$ref": "#/components/schemas/Colour"},
            "Loop": {"$ref": "#/components/schemas/Loop"},
            "Slash": {"$ref": "#/components/schemas/a~1b"},
            "a/b": {"type": "integer"},
        }
    },
}


DEFAULTS = {
    "paths": {
        "/things": {
            "post": {
                "operationId": "createThing",
                "requestBody": {"$ref": "#/components/requestBodies/Thing"},
            }
        }
    },
    "components": {
        "requestBodies": {
            "Thing": {
                "content": {
                    "application/json": {
                        "examples": {
                            "small": {"value": {"size": 1}},
                            "shared": {"$ref": "#/components/examples/Big"},
                        }
                    }
                }
            }
        },
        "examples": {"Big": {"value": {"size": 9}}},
        "schemas": {
            "Size": {"type": "integer", "default": 3},
            "Thing": {
                "properties": {
                    "size": {"$ref": "#/components/schemas/Size"},
                    "ttl": {"type": "integer", "x-server-default": 60},
                    "name": {"type": "string"},
                    "mode": {"type": "string", "default": "fast", "x-server-default": "slow"},
                }
            },
        },
    },
}


def test_defaults_are_read_from_the_property_its_ref_or_the_server_default() -> None:
    # `default` before `x-server-default`; a property without either has none
    assert spec.defaults("Thing", DEFAULTS) == {"size": 3, "ttl": 60, "mode": "fast"}
    assert spec.defaults({"$ref": "#/components/schemas/Thing"}, DEFAULTS)["size"] == 3
    assert spec.default({"type": "string"}, DEFAULTS) == (False, None)


def test_request_examples_are_found_through_refs_and_a_missing_one_is_named() -> None:
    assert spec.request_example("createThing", "small", DEFAULTS) == {"size": 1}
    assert spec.request_example("createThing", "shared", DEFAULTS) == {"size": 9}
    with pytest.raises(KeyError, match=r"createThing has no request example 'huge'.*'shared'"):
        spec.request_example("createThing", "huge", DEFAULTS)


def test_the_installed_spec_states_defaults_and_examples_the_consumers_use() -> None:
    assert spec.defaults("AdamParams")  # the emulator's optimizer defaults
    assert spec.request_example("createModelResources", "tiny")  # the client kit's body


def _files_resolver(root: dict[str, object], files: dict[str, str]) -> spec.Resolver:
    return spec.Resolver(root, "api/openapi.yaml", read=lambda name: files[name])


def test_the_resolver_follows_refs_into_other_files_and_back() -> None:
    root = {
        "components": {
            "schemas": {"Pet": {"$ref": "schemas/pet.yaml#/Pet"}, "Id": {"type": "string"}}
        }
    }
    files = {
        "schemas/pet.yaml": "Pet:\n  properties:\n"
        "    id: {$ref: '../openapi.yaml#/components/schemas/Id'}\n"
    }
    refs = _files_resolver(root, files)
    refs.check_references()
    pet, name = refs.resolve("schemas/pet.yaml#/Pet")
    assert name == "schemas/pet.yaml#/Pet"
    id_ref = pet["properties"]["id"]["$ref"]
    assert refs.resolve(id_ref, "schemas/pet.yaml") == (
        {"type": "string"},
        "#/components/schemas/Id",
    )


def test_the_resolver_names_a_cycle_across_files_and_a_dangling_pointer() -> None:
    root = {"components": {"schemas": {"A": {"$ref": "b.yaml#/B"}}}}
    with pytest.raises(spec.DocumentError, match=r"\$ref cycle"):
        _files_resolver(
            root, {"b.yaml": "B: {$ref: 'openapi.yaml#/components/schemas/A'}\n"}
        ).check_references()
    with pytest.raises(spec.DocumentError, match="dangling"):
        _files_resolver(root, {"b.yaml": "C: {}\n"}).check_references()


def test_a_literal_segment_wins_over_a_parameter_listed_before_it() -> None:
    root = {
        "servers": [{"url": "https://api.example.test/v2"}],
        "paths": {
            "/items/{item_id}/parts": {"get": {"operationId": "byId"}},
            "/items/latest/parts": {"get": {"operationId": "latest"}},
        },
    }
    hit = spec.match_route("GET", "/v2/items/latest/parts", root)
    assert hit is not None and hit[0].operation_id == "latest"
    hit = spec.match_route("get", "/v2/items/abc/parts", root)
    assert hit is not None and (hit[0].operation_id, hit[1]) == ("byId", {"item_id": "abc"})
    assert spec.match_route("GET", "/items/abc/parts", root) is None  # the spec's server path
    assert spec.match_route("POST", "/v2/items/abc/parts", root) is None


def test_the_judges_match_the_installed_upload_route_literal_first() -> None:
    from together_rl_client_kit import _spec as kit_spec
    from together_rl_contract_tests import _spec as suite_spec

    path = spec.server_path() + "/rl/training-sessions/s1/payloads/upload-url"
    kit = kit_spec.match_route("POST", path)
    suite = suite_spec.find_route("POST", path)
    assert kit is not None and kit[0].operation_id == "createPayloadUploadUrl"
    assert suite is not None and suite.operation_id == "createPayloadUploadUrl"


def test_refs_are_followed_to_the_end_of_the_chain() -> None:
    assert spec.schema("Alias", TINY)["enum"][1] == "COLOUR_RED"
    assert spec.schema("Slash", TINY) == {"type": "integer"}  # ~1 is "/"


@pytest.mark.parametrize(
    "ref", ["#/components/schemas/Loop", "#/components/schemas/Nothing", "other.yaml#/x"]
)
def test_a_ref_that_loops_names_nothing_or_is_not_local_is_a_key_error(ref: str) -> None:
    with pytest.raises(KeyError, match="unresolvable"):
        spec.resolve_ref({"$ref": ref}, TINY)


def test_enum_values_by_their_suffix() -> None:
    assert spec.enum_values("Colour", TINY)[0] == "COLOUR_UNSPECIFIED"
    assert spec.enum_value("Colour", "DARK_RED", TINY) == "COLOUR_DARK_RED"
    with pytest.raises(KeyError, match="no single value ending in _BLUE"):
        spec.enum_value("Colour", "BLUE", TINY)


def test_operations_server_path_and_threshold_of_any_document() -> None:
    assert spec.find_operation("getThing", TINY)[:2] == ("/things/{id}", "get")
    with pytest.raises(KeyError, match="no operation 'nope'"):
        spec.find_operation("nope", TINY)
    assert spec.server_path(TINY) == "/v2"
    assert spec.server_path({"paths": {}}) == ""
    assert spec.upload_threshold_bytes(TINY) == 10


def test_a_threshold_stated_twice_or_not_at_all_is_refused() -> None:
    twice = {**TINY, "paths": {**TINY["paths"], "/again": TINY["paths"]["/things/upload"]}}
    with pytest.raises(ValueError, match="x-upload-threshold-bytes 2 times"):
        spec.upload_threshold_bytes(twice)
    with pytest.raises(ValueError, match="0 times"):
        spec.upload_threshold_bytes({"paths": {}})


def test_a_document_that_is_not_a_mapping_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"other\.yaml is not a YAML mapping"):
        spec.parse_document(b"- a list\n", "other.yaml")


def test_the_installed_spec_states_the_sdks_upload_threshold() -> None:
    assert spec.upload_threshold_bytes() == sdk_payloads._LARGE_PAYLOAD_THRESHOLD
    assert spec.server_path() == "/v1"


def test_every_consumer_takes_the_threshold_from_the_spec() -> None:
    from together_rl import Client, _fields
    from together_rl_client_kit import _spec as kit_spec
    from together_rl_emulator.state import _payloads as emulator_payloads

    threshold = spec.upload_threshold_bytes()
    default = inspect.signature(Client).parameters["upload_threshold"].default
    assert _fields.UPLOAD_THRESHOLD_BYTES == default == threshold
    assert emulator_payloads.LARGE_PAYLOAD_BYTES == kit_spec.upload_threshold_bytes() == threshold
    facts = (REPO / "client_kit" / "ports" / "typescript" / "src" / "facts.ts").read_text()
    assert f"UPLOAD_THRESHOLD_BYTES = {threshold};" in facts


#: the hand-written packages and scripts that read the spec
READERS = (
    "emulator", "contract_tests", "client_kit", "apidiff", "reliability", "scripts", "wrapper",
)  # fmt: skip
#: what only the one reader may do: parse YAML into the spec, walk a `$ref` by hand
_PARSE = re.compile(r"yaml\.(safe_)?load\(|spec_bytes\(\)\)")
_REF_WALK = re.compile(
    r"""\["\$ref"\]\.(rsplit|split|removeprefix)|ref\[2:\]\.split|ref\.removeprefix\("#/"\)\.split"""
)


def _hand_written() -> list[Path]:
    return [
        path
        for folder in READERS
        for path in sorted((REPO / folder).rglob("*.py"))
        if "node_modules" not in path.parts and path.name != "_fields.py"
    ]


def test_one_reader_parses_the_spec_and_follows_its_refs() -> None:
    """A YAML load in another package is of another document (a scenario, a config), never the
    spec: it names no spec file."""
    problems = []
    for path in _hand_written():
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), 1):
            if _REF_WALK.search(line) or (_PARSE.search(line) and "spec" in line.lower()):
                problems.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert problems == [], "read the spec through together_rl_spec:\n" + "\n".join(problems)
    walkers = [p for p in _hand_written() if "target = target[part" in p.read_text()]
    assert walkers == []
    everything = "".join(p.read_text() for p in _hand_written())
    assert "class Resolver" not in everything and "def _pointer_target" not in everything
    assert _readers_of_their_own() == []


#: the one reader's functions that load or resolve, and the facts it states once (the values a
#: client may choose, the loss types and params keys, the server path, the routes); elsewhere a
#: function of one of these names may only hand its work to the one reader (the emulator's seam
#: passes its document along)
_LOADERS = ("resolve_ref", "load_document", "parse_text", "parse_document")
_FACTS = ("choices", "loss_types", "params_keys", "route", "routes", "match_route")
_SERVER_PATHS = ("server_path", "server_prefix", "api_prefix", "server_path_prefix")
_ONE_READERS_OWN = (*_LOADERS, *_FACTS, *_SERVER_PATHS)
#: the classes only the one reader defines
_ONE_READERS_CLASSES = ("Route", "Document")


def _own_definitions(source: str, where: str) -> list[str]:
    """The definitions in `source` that restate the one reader's: a class of one of its names,
    a function of one of its names that does more than return the one reader's."""
    own = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef) and node.name in _ONE_READERS_CLASSES:
            own.append(f"{where}:{node.lineno}: class {node.name}")
        if not isinstance(node, ast.FunctionDef) or node.name not in _ONE_READERS_OWN:
            continue
        body = [b for b in node.body if not isinstance(b, ast.Expr)]  # docstrings aside
        delegated = (
            len(body) == 1
            and isinstance(body[0], ast.Return)
            and isinstance(call := body[0].value, ast.Call)
            and isinstance(call.func, ast.Attribute)
            and call.func.attr == node.name
            and ast.unparse(call.func.value) == "together_rl_spec"
        )
        if not delegated:
            own.append(f"{where}:{node.lineno}: def {node.name}")
    return own


def _readers_of_their_own() -> list[str]:
    own = []
    for path in _hand_written():
        own += _own_definitions(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    return own


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("class Route:\n    method: str\n", "m.py:1: class Route"),
        ("def choices(name):\n    return tuple(v for v in values(name))\n", "m.py:1: def choices"),
        ("def api_prefix():\n    return urlsplit(url).path\n", "m.py:1: def api_prefix"),
        ("def server_prefix():\n    return other.server_prefix()\n", "m.py:1: def server_prefix"),
        ("@dataclass\nclass Document:\n    root: dict\n", "m.py:2: class Document"),
    ],
)
def test_a_second_route_choices_or_server_path_is_found(source: str, found: str) -> None:
    assert _own_definitions(source, "m.py") == [found]


def test_a_function_handing_its_work_to_the_one_reader_is_not_a_second_one() -> None:
    source = '''def choices(name):
    """docs"""
    return together_rl_spec.choices(name, load_spec())
'''
    assert _own_definitions(source, "m.py") == []


def test_one_document_type_and_one_yaml_loader() -> None:
    """`parse_document` is the loader `load_document` uses: dates stay strings, bad YAML is a
    DocumentError naming the place."""
    assert spec.parse_document("openapi: 3.1.0\ninfo: {version: 2024-01-02}\n")["info"] == {
        "version": "2024-01-02"
    }
    with pytest.raises(spec.DocumentError, match=r"bad\.yaml: line 2 column 1: not YAML"):
        spec.parse_document(b"a: [1\n", "bad.yaml")
    assert spec.Document.__module__ == "together_rl_spec._loading"


def test_choices_leave_out_the_zero_value_and_loss_types_map_to_their_params() -> None:
    assert spec.choices("Colour", TINY) == ("COLOUR_RED", "COLOUR_DARK_RED")
    losses = {
        "components": {
            "schemas": {
                "LossType": {"enum": ["LOSS_TYPE_UNSPECIFIED", "LOSS_TYPE_PPO", "LOSS_TYPE_IS"]},
                "LossConfig": {"properties": {"type": {}, "ppo_params": {}}},
            }
        }
    }
    assert spec.loss_types(losses) == ("LOSS_TYPE_PPO", "LOSS_TYPE_IS")
    assert spec.params_keys(losses) == {"LOSS_TYPE_PPO": "ppo_params", "LOSS_TYPE_IS": None}
    assert spec.params_keys()["LOSS_TYPE_GRPO"] == "grpo_params"


def test_a_route_fills_its_wire_path_names_itself_and_matches() -> None:
    thing = spec.route("getThing", TINY)
    assert (thing.method, thing.template, thing.prefix) == ("GET", "/things/{id}", "/v2")
    assert thing.path({"id": "7"}) == "/v2/things/7"
    assert thing.label == "getThing (GET /things/{id})"
    assert thing.match("/v2/things/7") == {"id": "7"}
    assert thing.match("/things/7") is None
    with pytest.raises(KeyError, match="id"):
        thing.path()
    with pytest.raises(KeyError, match="no operationId 'nope'"):
        spec.route("nope", TINY)


def test_the_judges_share_the_one_readers_facts() -> None:
    from together_rl_client_kit import _spec as kit_spec
    from together_rl_contract_tests import _spec as suite_spec
    from together_rl_emulator.base import _spec as emulator_spec

    assert kit_spec.Route is suite_spec.Route is spec.Route
    assert emulator_spec.LOSS_TYPES == suite_spec.LOSS_TYPES == spec.loss_types()
    assert spec.params_keys() == emulator_spec.PARAMS_KEYS
    assert {t: k for t, k in spec.params_keys().items() if k} == suite_spec.PARAMS_KEYS
    assert emulator_spec.choices("WeightSyncType") == suite_spec.choices("WeightSyncType")
