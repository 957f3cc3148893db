"""The example tools: thin, synchronous, no MCP imports (as every real tool)."""

from __future__ import annotations

import logging
import time
from typing import Annotated

from mcp_common import (
    Arguments,
    Between,
    Deprecated,
    Int,
    OneOf,
    Str,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
)
from pydantic import Field

SECRET_URL = "https://user:secret@db.example.com/x"
PRIVATE_PATH = "/srv/private/data/file.csv"

_log = logging.getLogger("example_server")


class EchoArguments(Arguments):
    text: Annotated[Str, Deprecated("echo_text")] = Field(description="Text to echo, e.g. 'hello'.")
    times: Annotated[Int, Between(1, 10)] = Field(
        1, description="How many times to repeat the text (1..10, default 1)."
    )


class Echoed(StructuredResult):
    text: str


class EchoTool:
    """Answers with the text it was given (structured too)."""

    definition = ToolDefinition(
        name="echo",
        description="Echo the given text back.",
        arguments=EchoArguments,
        annotations=ToolAnnotations.read_only_tool(title="Echo"),
        result=Echoed,
    )

    def call(self, arguments: EchoArguments, context: ToolContext) -> ToolResult:
        echoed = " ".join([arguments.text] * arguments.times)
        return ToolResult.success(echoed, Echoed(text=echoed))


class SlowArguments(Arguments):
    seconds: Annotated[float, Between(0, 600)] = Field(
        1.0, description="How long to wait in seconds (default 1), e.g. 2."
    )
    steps: Annotated[Int, Between(1, 100)] = Field(
        4, description="Number of progress steps (1..100, default 4)."
    )


class SlowTool:
    """Sleeps in steps, reporting progress and stopping when the call is cancelled."""

    definition = ToolDefinition(
        name="slow",
        description="Wait for the given number of seconds, reporting progress.",
        arguments=SlowArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: SlowArguments, context: ToolContext) -> ToolResult:
        seconds, steps = arguments.seconds, arguments.steps
        for step in range(steps):
            # announced as the step starts: the TypeScript SDK drops a progress notification
            # that reaches it in the same read as the result (its handler is gone by then)
            context.report_progress(step + 1, steps, f"step {step + 1} of {steps}")
            deadline = time.monotonic() + seconds / steps
            while time.monotonic() < deadline:
                if context.cancelled:
                    _log.info("slow: stopped at step %d of %d after cancellation", step + 1, steps)
                    context.check_cancelled()
                time.sleep(0.01)
        return ToolResult.success(f"waited {seconds:g} seconds")


class BoomArguments(Arguments):
    kind: Annotated[Str, OneOf(("error", "tool"))] = Field(
        "error", description="Failure kind: error (default) or tool."
    )


class BoomTool:
    """Always raises an exception whose message holds a credential and a server path."""

    definition = ToolDefinition(
        name="boom",
        description="Fail on purpose with an exception naming a database URL and a file.",
        arguments=BoomArguments,
        annotations=ToolAnnotations(
            read_only=False, destructive=True, idempotent=False, open_world=True
        ),
    )

    def call(self, arguments: BoomArguments, context: ToolContext) -> ToolResult:
        if arguments.kind == "tool":
            return ToolResult.error(f"cannot read {PRIVATE_PATH}", "not_found")
        raise RuntimeError(f"cannot connect to {SECRET_URL} while reading {PRIVATE_PATH}")


def example_tools() -> list[EchoTool | SlowTool | BoomTool]:
    """A fresh set of the example tools."""
    return [EchoTool(), SlowTool(), BoomTool()]
