"""Small tools for testing the testing kit: one good tool and one bad tool per contract rule."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcp_common import (
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    object_schema,
)

COUNT_OUTPUT = {
    "type": "object",
    "properties": {"count": {"type": "integer"}, "characters": {"type": "integer"}},
    "required": ["count"],
}


def _default_call(arguments: ToolArguments) -> ToolResult:
    # answers with sizes only: echoing the text back would echo a credential given in it
    text = arguments.required_string("text")
    repeat = arguments.optional_bounded_int("repeat", 1, 1, 5)
    characters = len(text) * repeat
    return ToolResult.success(
        f"{characters} characters", {"count": repeat, "characters": characters}
    )


@dataclass
class KitTool:
    """A tool assembled from parts; the defaults make a tool that satisfies the contract."""

    name: str = "repeat_text"
    description: str = "Repeats a text a few times."
    properties: Mapping[str, Mapping[str, Any]] = field(
        default_factory=lambda: {
            "text": {"type": "string", "description": "The text to repeat."},
            "repeat": {"type": "integer", "description": "How often (1..5, default 1)."},
        }
    )
    required: tuple[str, ...] = ("text",)
    output_schema: Mapping[str, Any] | None = field(default_factory=lambda: dict(COUNT_OUTPUT))
    aliases: Mapping[str, str] = field(default_factory=lambda: {"repeat_count": "repeat"})
    annotations: Any = field(default_factory=ToolAnnotations.read_only_tool)
    schema_patch: Mapping[str, Any] = field(default_factory=dict)
    run: Callable[[ToolArguments], ToolResult] = _default_call

    @property
    def definition(self) -> ToolDefinition:
        schema = {**object_schema(self.properties, self.required), **self.schema_patch}
        return ToolDefinition(
            name=self.name,
            description=self.description,
            input_schema=schema,
            annotations=self.annotations,
            output_schema=self.output_schema,
            deprecated_aliases=self.aliases,
        )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        return self.run(arguments)


SAMPLES = {"repeat_text": [{"text": "ab", "repeat": 2}]}
