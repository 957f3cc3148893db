"""Tool definitions: name, description, schemas, annotations and deprecated aliases."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolAnnotations:
    """Behaviour hints a client may show or act on. Every tool declares all four."""

    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool
    title: str | None = None

    @classmethod
    def read_only_tool(
        cls, *, open_world: bool = False, title: str | None = None
    ) -> ToolAnnotations:
        """Hints for a tool that only reads: not destructive, idempotent."""
        return cls(
            read_only=True, destructive=False, idempotent=True, open_world=open_world, title=title
        )


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """Everything a client learns about a tool from ``tools/list``.

    ``deprecated_aliases`` maps an old parameter name (the anchor's snake_case name) to its
    canonical lowerCamelCase name; aliases are accepted but never declared as properties.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    annotations: ToolAnnotations
    output_schema: Mapping[str, Any] | None = None
    deprecated_aliases: Mapping[str, str] = field(default_factory=dict)

    @property
    def properties(self) -> Mapping[str, Mapping[str, Any]]:
        """The declared input properties, by name."""
        props = self.input_schema.get("properties", {})
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> tuple[str, ...]:
        """Names the input schema marks as required."""
        return tuple(self.input_schema.get("required", ()))


def object_schema(
    properties: Mapping[str, Mapping[str, Any]], required: tuple[str, ...] | list[str] = ()
) -> dict[str, Any]:
    """An input schema for an object with the given properties that refuses any other key."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {name: dict(spec) for name, spec in properties.items()},
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema
