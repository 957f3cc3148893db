"""Tools that burn CPU or memory on hostile input, isolated or (``stuck``) not."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Arguments,
    Between,
    Int,
    IsolationLimits,
    NoArguments,
    ServerSettings,
    Str,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    run_isolated,
)
from mcp_common.adapter import ServerApp
from mcp_common.isolation import MIB
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from . import work


class ScanArguments(Arguments):
    length: Annotated[Int, Between(1, 1000)] = Field(description="Run of 'a' to match.")
    pid_file: Str = Field("", description="Where the child writes its process id.")
    seconds: Annotated[Int, Between(1, 600)] = Field(60, description="Time limit.")


class Scan:
    definition = ToolDefinition(
        name="scan",
        description="Match a catastrophic pattern in an isolated child.",
        arguments=ScanArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ScanArguments, context: ToolContext) -> ToolResult:
        matched = run_isolated(
            work.scan,
            "a" * arguments.length,
            arguments.pid_file,
            context=context,
            limits=IsolationLimits(seconds=arguments.seconds),
            what="the pattern scan",
        )
        return ToolResult.success(f"matched: {matched}")


class ExpandArguments(Arguments):
    megabytes: Annotated[Int, Between(1, 100_000)] = Field(description="MiB to hold.")


class Expand:
    definition = ToolDefinition(
        name="expand",
        description="Hold memory in an isolated child limited to 256 MiB.",
        arguments=ExpandArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: ExpandArguments, context: ToolContext) -> ToolResult:
        held = run_isolated(
            work.expand,
            arguments.megabytes,
            context=context,
            limits=IsolationLimits(memory_bytes=256 * MIB),
            what="the expansion",
        )
        return ToolResult.success(f"held {held} MiB")


class StuckArguments(Arguments):
    pid_file: Str = Field("", description="Where the server writes its process id first.")


class Stuck:
    definition = ToolDefinition(
        name="stuck",
        description="Match a catastrophic pattern in the server's own process (holds the GIL).",
        arguments=StuckArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: StuckArguments, context: ToolContext) -> ToolResult:
        return ToolResult.success(f"matched: {work.scan('a' * 60, arguments.pid_file)}")


class Hello:
    definition = ToolDefinition(
        name="hello",
        description="Answer at once.",
        arguments=NoArguments,
        annotations=ToolAnnotations.read_only_tool(),
    )

    def call(self, arguments: NoArguments, context: ToolContext) -> ToolResult:
        return ToolResult.success("hello")


class IsolationSettings(ServerSettings):
    model_config = SettingsConfigDict(env_prefix="ISOLATION_SERVER_")

    port: int = Field(8098, description="HTTP port")


APP = ServerApp(
    name="isolation-server",
    distribution="mcp-tools-common",
    description="Tools that burn CPU and memory on hostile input.",
    epilog="",
    settings=IsolationSettings,
    build_tools=lambda settings: [Scan(), Expand(), Stuck(), Hello()],
)
