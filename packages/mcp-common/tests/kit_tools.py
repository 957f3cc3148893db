"""Small tools for testing the testing kit: one good tool and one bad tool per contract rule.

A kit tool's definition is generated from :class:`RepeatArguments` and :class:`CountAnswer`
like any tool's; a test that needs a definition no model would generate (an open schema, an
untyped property, ...) overrides the generated parts, since the checks must also catch
definitions built by other means.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any

from mcp_common import (
    Arguments,
    Between,
    Deprecated,
    Int,
    Str,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
)
from pydantic import Field


class RepeatArguments(Arguments):
    text: Str = Field(description="The text to repeat.")
    repeat: Annotated[Int, Between(1, 5), Deprecated("repeat_count")] = Field(
        1, description="How often (1..5, default 1)."
    )


class CountAnswer(StructuredResult):
    count: int
    characters: int | None = None


def _default_call(arguments: RepeatArguments) -> ToolResult:
    # answers with sizes only: echoing the text back would echo a credential given in it
    characters = len(arguments.text) * arguments.repeat
    return ToolResult.success(
        f"{characters} characters", CountAnswer(count=arguments.repeat, characters=characters)
    )


_GENERATED: Any = object()


@dataclass
class KitTool:
    """A tool assembled from parts; the defaults make a tool that satisfies the contract."""

    name: str = "repeat_text"
    description: str = "Repeats a text a few times."
    properties: Mapping[str, Mapping[str, Any]] | None = None
    required: tuple[str, ...] | None = None
    output_schema: Mapping[str, Any] | None = _GENERATED
    aliases: Mapping[str, str] | None = None
    annotations: Any = field(default_factory=ToolAnnotations.read_only_tool)
    schema_patch: Mapping[str, Any] = field(default_factory=dict)
    run: Callable[[RepeatArguments], ToolResult] = _default_call

    @property
    def definition(self) -> ToolDefinition:
        definition = ToolDefinition(
            name=self.name,
            description=self.description,
            arguments=RepeatArguments,
            annotations=self.annotations,
            result=CountAnswer,
        )
        schema = dict(definition.input_schema)
        if self.properties is not None:
            schema["properties"] = {name: dict(spec) for name, spec in self.properties.items()}
        if self.required is not None:
            schema["required"] = list(self.required)
        overrides: dict[str, Any] = {"input_schema": {**schema, **self.schema_patch}}
        if self.output_schema is not _GENERATED:
            overrides["output_schema"] = self.output_schema
        if self.aliases is not None:
            overrides["deprecated_aliases"] = dict(self.aliases)
        for name, value in overrides.items():
            object.__setattr__(definition, name, value)
        return definition

    def call(self, arguments: RepeatArguments, context: ToolContext) -> ToolResult:
        return self.run(arguments)


SAMPLES = {"repeat_text": [{"text": "ab", "repeat": 2}]}
