"""Tool definitions: name, description, argument and result models, annotations.

A definition names the pydantic models of a tool's arguments and (optionally) of its
structured result; the input and output JSON schemas and the deprecated-alias table are
derived from them, never written by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from mcp_common.arguments import Arguments, deprecated_aliases
from mcp_common.schema import input_schema, output_schema


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
    """Everything a client learns about a tool from ``tools/list``, declared once.

    ``arguments`` is the tool's argument model; ``result`` the model of its structured content
    (``None`` for a tool that answers Markdown only). ``input_schema``, ``output_schema`` and
    ``deprecated_aliases`` (old name -> canonical name) are derived from them.
    """

    name: str
    description: str
    arguments: type[Arguments]
    annotations: ToolAnnotations
    result: type[BaseModel] | None = None
    input_schema: Mapping[str, Any] = field(init=False)
    output_schema: Mapping[str, Any] | None = field(init=False)
    deprecated_aliases: Mapping[str, str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "input_schema", input_schema(self.arguments))
        object.__setattr__(
            self, "output_schema", output_schema(self.result) if self.result else None
        )
        object.__setattr__(self, "deprecated_aliases", deprecated_aliases(self.arguments))

    @property
    def properties(self) -> Mapping[str, Mapping[str, Any]]:
        """The declared input properties, by wire name."""
        props = self.input_schema.get("properties", {})
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> tuple[str, ...]:
        """Wire names the input schema marks as required."""
        return tuple(self.input_schema.get("required", ()))
