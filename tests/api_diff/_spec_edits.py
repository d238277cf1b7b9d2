"""A small OpenAPI document to edit, shared by the corpus tests."""

from __future__ import annotations

import copy
from typing import Any

from together_rl_api_diff import Document

__all__ = ["BASE", "CHANGE_FIELDS", "document", "edited"]

#: The stable JSON interface of one change, in its order.
CHANGE_FIELDS = [
    "id",
    "kind",
    "location",
    "operations",
    "old",
    "new",
    "clients",
    "servers",
    "message",
]

BASE: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "Pets", "version": "1.0.0"},
    "security": [{"bearer": []}],
    "paths": {
        "/pets": {
            "post": {
                "requestBody": {
                    "required": True,
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/PetCreate"}}
                    },
                },
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            },
            "get": {
                "parameters": [
                    {"name": "limit", "in": "query", "schema": {"type": "integer", "maximum": 100}}
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "items": {"$ref": "#/components/schemas/Pet"},
                                }
                            }
                        },
                    }
                },
            },
        },
        "/pets/{pet_id}": {
            "get": {
                "parameters": [
                    {"name": "pet_id", "in": "path", "required": True, "schema": {"type": "string"}}
                ],
                "responses": {
                    "200": {
                        "description": "ok",
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}
                        },
                    }
                },
            }
        },
    },
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        "schemas": {
            "Kind": {"type": "string", "enum": ["cat", "dog"]},
            "PetCreate": {
                "type": "object",
                "additionalProperties": False,
                "required": ["name"],
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "kind": {"type": "string", "enum": ["cat", "dog"]},
                    "age": {"type": "integer", "default": 1},
                    "weight": {"type": "number", "default": 0.5},
                },
            },
            "Pet": {
                "type": "object",
                "required": ["id", "name"],
                "properties": {
                    "id": {"type": "string"},
                    "name": {"type": "string"},
                    "tag": {"type": "string"},
                    "kind": {"$ref": "#/components/schemas/Kind"},
                    "parent": {"$ref": "#/components/schemas/Pet"},
                },
            },
        },
    },
}


def document(root: dict[str, Any], source: str = "spec.yaml") -> Document:
    return Document(source, root)


def edited(edit: Any) -> Document:
    root = copy.deepcopy(BASE)
    edit(root)
    return document(root, "edited.yaml")
