"""Small tools for the adapter's in-process protocol tests."""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

import mcp_types as types
from mcp_common import (
    Arguments,
    Between,
    Bool,
    Deprecated,
    Int,
    NoArguments,
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


class GreetArguments(Arguments):
    name: Annotated[Str, Deprecated("person_name")] = Field(
        description="Who to greet, e.g. 'Ada'.", max_length=50
    )
    times: Annotated[Int, Between(1, 3)] = Field(1, description="Repetitions (1..3, default 1).")


class Greeting(StructuredResult):
    greeting: str


class GreetTool:
    definition = ToolDefinition(
        name="greet",
        description="Greet someone by name.",
        arguments=GreetArguments,
        annotations=ToolAnnotations.read_only_tool(title="Greet"),
        result=Greeting,
    )

    def call(self, arguments: GreetArguments, context: ToolContext) -> ToolResult:
        greeting = " ".join([f"Hello, {arguments.name}!"] * arguments.times)
        return ToolResult.success(greeting, Greeting(greeting=greeting))


class ExplodeArguments(Arguments):
    password: Str | None = Field(None, description="A secret the log must mask.")


class ExplodeTool:
    definition = ToolDefinition(
        name="explode",
        description="Raise an exception naming a credential and a server path.",
        arguments=ExplodeArguments,
        annotations=ToolAnnotations(
            read_only=False, destructive=True, idempotent=False, open_world=True
        ),
    )

    def call(self, arguments: ExplodeArguments, context: ToolContext) -> ToolResult:
        raise RuntimeError(f"cannot connect to {SECRET_URL} while reading {PRIVATE_PATH}")


class RefuseTool:
    definition = ToolDefinition(
        name="refuse",
        description="Answer a not-found error.",
        arguments=NoArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: NoArguments, context: ToolContext) -> ToolResult:
        return ToolResult.error(f"no such file: {PRIVATE_PATH}", "not_found")


class CountArguments(Arguments):
    n: Annotated[Int, Between(1, 100)] = Field(3, description="Steps, e.g. 3.")
    from_thread: Bool = Field(
        False, description="Report from a thread the tool starts, as a query watcher does."
    )


class CountTool:
    definition = ToolDefinition(
        name="count",
        description="Count to n, reporting progress at every step.",
        arguments=CountArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: CountArguments, context: ToolContext) -> ToolResult:
        n = arguments.n

        def count() -> None:
            for i in range(n):
                context.report_progress(i + 1, n, f"counted {i + 1}")

        if arguments.from_thread:
            reporter = threading.Thread(target=count)
            reporter.start()
            reporter.join()
        else:
            count()
        return ToolResult.success(f"counted to {n}")


class ChattyTool:
    definition = ToolDefinition(
        name="chatty",
        description="Answer far more text than a client should read.",
        arguments=NoArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: NoArguments, context: ToolContext) -> ToolResult:
        return ToolResult.success("x" * 250_000)


class BlockTool:
    """Blocks until the call is cancelled (or 10 s pass); records what it saw."""

    definition = ToolDefinition(
        name="block",
        description="Wait until the call is cancelled.",
        arguments=NoArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def __init__(self) -> None:
        self.started = threading.Event()
        self.saw_cancel = threading.Event()

    def call(self, arguments: NoArguments, context: ToolContext) -> ToolResult:
        self.started.set()
        for _ in range(1000):
            if context.cancelled:
                self.saw_cancel.set()
                context.check_cancelled()
            threading.Event().wait(0.01)
        return ToolResult.success("never cancelled")


class WrongArguments(Arguments):
    exit: Bool = Field(False, description="Raise SystemExit instead.")


class WrongTool:
    definition = ToolDefinition(
        name="wrong",
        description="Return something that is not a ToolResult, or exit the process.",
        arguments=WrongArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: WrongArguments, context: ToolContext) -> Any:
        if arguments.exit:
            raise SystemExit(2)
        return "plain string"


class RawCallRequest(types.Request[dict[str, Any], Literal["tools/call"]]):
    """A tools/call whose params skip the client's validation (to send malformed ones)."""

    method: Literal["tools/call"] = "tools/call"
