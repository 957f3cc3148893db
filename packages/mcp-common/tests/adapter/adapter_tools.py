"""Small tools for the adapter's in-process protocol tests."""

from __future__ import annotations

import threading
from typing import Any, Literal

import mcp_types as types
from mcp_common import (
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    object_schema,
)

SECRET_URL = "https://user:secret@db.example.com/x"
PRIVATE_PATH = "/srv/private/data/file.csv"


class GreetTool:
    definition = ToolDefinition(
        name="greet",
        description="Greet someone by name.",
        input_schema=object_schema(
            {
                "name": {
                    "type": "string",
                    "description": "Who to greet, e.g. 'Ada'.",
                    "maxLength": 50,
                },
                "times": {"type": "integer", "description": "Repetitions (1..3, default 1)."},
            },
            required=("name",),
        ),
        annotations=ToolAnnotations.read_only_tool(title="Greet"),
        output_schema={
            "type": "object",
            "properties": {"greeting": {"type": "string"}},
            "required": ["greeting"],
        },
        deprecated_aliases={"person_name": "name"},
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        name = arguments.required_string("name")
        times = arguments.optional_bounded_int("times", 1, 1, 3)
        greeting = " ".join([f"Hello, {name}!"] * times)
        return ToolResult.success(greeting, {"greeting": greeting})


class ExplodeTool:
    definition = ToolDefinition(
        name="explode",
        description="Raise an exception naming a credential and a server path.",
        input_schema=object_schema(
            {"password": {"type": "string", "description": "A secret the log must mask."}}
        ),
        annotations=ToolAnnotations(
            read_only=False, destructive=True, idempotent=False, open_world=True
        ),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        arguments.optional_string("password")
        raise RuntimeError(f"cannot connect to {SECRET_URL} while reading {PRIVATE_PATH}")


class RefuseTool:
    definition = ToolDefinition(
        name="refuse",
        description="Answer a not-found error.",
        input_schema=object_schema({}),
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        return ToolResult.error(f"no such file: {PRIVATE_PATH}", "not_found")


class CountTool:
    definition = ToolDefinition(
        name="count",
        description="Count to n, reporting progress at every step.",
        input_schema=object_schema({"n": {"type": "integer", "description": "Steps, e.g. 3."}}),
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        n = arguments.optional_bounded_int("n", 3, 1, 100)
        for i in range(n):
            context.report_progress(i + 1, n, f"counted {i + 1}")
        return ToolResult.success(f"counted to {n}")


class ChattyTool:
    definition = ToolDefinition(
        name="chatty",
        description="Answer far more text than a client should read.",
        input_schema=object_schema({}),
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        return ToolResult.success("x" * 250_000)


class BlockTool:
    """Blocks until the call is cancelled (or 10 s pass); records what it saw."""

    definition = ToolDefinition(
        name="block",
        description="Wait until the call is cancelled.",
        input_schema=object_schema({}),
        annotations=ToolAnnotations.read_only_tool(),
    )

    def __init__(self) -> None:
        self.started = threading.Event()
        self.saw_cancel = threading.Event()

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        self.started.set()
        for _ in range(1000):
            if context.cancelled:
                self.saw_cancel.set()
                context.check_cancelled()
            threading.Event().wait(0.01)
        return ToolResult.success("never cancelled")


class WrongTool:
    definition = ToolDefinition(
        name="wrong",
        description="Return something that is not a ToolResult, or exit the process.",
        input_schema=object_schema(
            {"exit": {"type": "boolean", "description": "Raise SystemExit instead."}}
        ),
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> Any:
        if arguments.optional_boolean("exit", False):
            raise SystemExit(2)
        return "plain string"


class RawCallRequest(types.Request[dict[str, Any], Literal["tools/call"]]):
    """A tools/call whose params skip the client's validation (to send malformed ones)."""

    method: Literal["tools/call"] = "tools/call"
