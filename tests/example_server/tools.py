"""The example tools: thin, synchronous, no MCP imports (as every real tool)."""

from __future__ import annotations

import logging
import time

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

_log = logging.getLogger("example_server")


class EchoTool:
    """Answers with the text it was given (structured too)."""

    definition = ToolDefinition(
        name="echo",
        description="Echo the given text back.",
        input_schema=object_schema(
            {
                "text": {"type": "string", "description": "Text to echo, e.g. 'hello'."},
                "times": {
                    "type": "integer",
                    "description": "How many times to repeat the text (1..10, default 1).",
                },
            },
            required=("text",),
        ),
        annotations=ToolAnnotations.read_only_tool(title="Echo"),
        output_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        deprecated_aliases={"echo_text": "text"},
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        text = arguments.required_string("text")
        times = arguments.optional_bounded_int("times", 1, 1, 10)
        echoed = " ".join([text] * times)
        return ToolResult.success(echoed, {"text": echoed})


class SlowTool:
    """Sleeps in steps, reporting progress and stopping when the call is cancelled."""

    definition = ToolDefinition(
        name="slow",
        description="Wait for the given number of seconds, reporting progress.",
        input_schema=object_schema(
            {
                "seconds": {
                    "type": "number",
                    "description": "How long to wait in seconds (default 1), e.g. 2.",
                },
                "steps": {
                    "type": "integer",
                    "description": "Number of progress steps (1..100, default 4).",
                },
            }
        ),
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        raw = arguments.optional_string("seconds") or "1"
        try:
            seconds = float(raw)
        except ValueError:
            return ToolResult.error(f"seconds must be a number but was {raw!r}", "invalid_argument")
        if not 0 <= seconds <= 600:
            return ToolResult.error("seconds must be between 0 and 600", "invalid_argument")
        steps = arguments.optional_bounded_int("steps", 4, 1, 100)
        for step in range(steps):
            deadline = time.monotonic() + seconds / steps
            while time.monotonic() < deadline:
                if context.cancelled:
                    _log.info("slow: stopped at step %d of %d after cancellation", step + 1, steps)
                    context.check_cancelled()
                time.sleep(0.01)
            context.report_progress(step + 1, steps, f"step {step + 1} of {steps}")
        return ToolResult.success(f"waited {seconds:g} seconds")


class BoomTool:
    """Always raises an exception whose message holds a credential and a server path."""

    definition = ToolDefinition(
        name="boom",
        description="Fail on purpose with an exception naming a database URL and a file.",
        input_schema=object_schema(
            {"kind": {"type": "string", "description": "Failure kind: error (default) or tool."}}
        ),
        annotations=ToolAnnotations(
            read_only=False, destructive=True, idempotent=False, open_world=True
        ),
    )

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        kind = arguments.optional_enum("kind", ["error", "tool"], "error")
        if kind == "tool":
            return ToolResult.error(f"cannot read {PRIVATE_PATH}", "not_found")
        raise RuntimeError(f"cannot connect to {SECRET_URL} while reading {PRIVATE_PATH}")


def example_tools() -> list[EchoTool | SlowTool | BoomTool]:
    """A fresh set of the example tools."""
    return [EchoTool(), SlowTool(), BoomTool()]
