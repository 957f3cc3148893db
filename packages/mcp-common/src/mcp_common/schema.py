"""JSON schemas generated from pydantic models, in the shape the tool contract asks for.

pydantic's raw output is valid JSON Schema but noisy for a model to read and awkward for some
clients: titles on every node, ``$ref``/``$defs`` indirections, ``anyOf [X, null]`` for an
optional argument. The schemas here are inlined, title-free and state an optional argument
by its type alone (absent and ``null`` mean the same to every tool). Output schemas keep
``null`` as a type where a result field may be null.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

_DROPPED = frozenset({"title"})


def _inline(node: Any, definitions: Mapping[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        target = definitions[reference.rsplit("/", 1)[-1]]
        merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return _inline(merged, definitions)
    cleaned: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key == "$defs":
            continue
        if key == "properties" and isinstance(value, dict):
            # property names are data here, not keywords: a property called "title" stays
            cleaned[key] = {name: _inline(spec, definitions) for name, spec in value.items()}
        else:
            cleaned[key] = _inline(value, definitions)
    return cleaned


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and node == {"type": "null"}


def _merge_nullable(node: Any, *, keep_null: bool) -> Any:
    """``anyOf [X, {type: null}]`` becomes X (inputs) or X with ``null`` added (outputs)."""
    if isinstance(node, list):
        return [_merge_nullable(item, keep_null=keep_null) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _merge_nullable(value, keep_null=keep_null) for key, value in node.items()}
    branches = node.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and any(map(_is_null, branches)):
        (other,) = [branch for branch in branches if not _is_null(branch)]
        rest = {key: value for key, value in node.items() if key != "anyOf"}
        merged = {**other, **rest}
        if not keep_null:
            if merged.get("default", 0) is None:
                del merged["default"]
            return merged
        kind = other.get("type")
        if isinstance(kind, str):
            merged["type"] = [kind, "null"]
            return merged
        return {**rest, "anyOf": [other, {"type": "null"}]}
    return node


def _clean(schema: dict[str, Any], *, keep_null: bool) -> dict[str, Any]:
    definitions = schema.get("$defs", {})
    inlined = _inline(schema, definitions)
    cleaned = _merge_nullable(inlined, keep_null=keep_null)
    assert isinstance(cleaned, dict)
    return cleaned


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The ``inputSchema`` of a tool whose arguments are ``model``: a closed object."""
    schema = _clean(model.model_json_schema(by_alias=True, mode="validation"), keep_null=False)
    # the tool's own description says what the call does; the model's docstring is for authors
    schema.pop("description", None)
    schema.setdefault("properties", {})
    schema["additionalProperties"] = False
    return schema


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The ``outputSchema`` of a tool whose structured results are ``model``."""
    schema = _clean(model.model_json_schema(by_alias=True, mode="serialization"), keep_null=True)
    schema.pop("description", None)
    return schema
