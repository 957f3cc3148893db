"""The ``estimate_tokens`` tool: what the context for a class costs, per file and in total."""

from __future__ import annotations

from typing import Literal

from mcp_common import (
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    guard_output,
    markdown_table,
)

from context_server.core.service import ContextService
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import ClassArguments


class FileTokens(StructuredResult):
    """The token count of one file of the context."""

    path: str
    role: Literal["target", "dependency"]
    level: int
    tokens: int


class TokensAnswer(StructuredResult):
    """The answer of ``estimate_tokens``: per-file counts, target first, and their total."""

    target: str
    tokenizer: str
    depth: int
    total: int
    files: list[FileTokens]


DEFINITION = ToolDefinition(
    name="estimate_tokens",
    description=(
        "Count the tokens of a class's file and of the project files it depends on, "
        "per file and in total."
    ),
    arguments=ClassArguments,
    annotations=ToolAnnotations.read_only_tool(title="Estimate tokens"),
    result=TokensAnswer,
)


def markdown(answer: TokensAnswer, class_name: str) -> str:
    """The answer for a model to read."""
    return (
        f"# Tokens for `{class_name}`\n\n{answer.total} {answer.tokenizer} tokens in "
        f"{len(answer.files)} files (depth {answer.depth}).\n\n"
        + markdown_table(
            ("File", "Role", "Level", "Tokens"),
            [(f.path, f.role, f.level, f.tokens) for f in answer.files],
        )
    )


class EstimateTokensTool:
    """Counts the tokens of a class's file and its dependencies' files."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service

    def call(self, arguments: ClassArguments, context: ToolContext) -> ToolResult:
        """Count the tokens of the target and its dependencies (target first)."""
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        selection = self._service.select(
            index, arguments.class_name, arguments.depth, arguments.tokenizer
        )
        files = [selection.target, *selection.dependencies]
        answer = TokensAnswer(
            target=selection.target.path,
            tokenizer=arguments.tokenizer,
            depth=arguments.depth,
            total=sum(item.tokens for item in files),
            files=[
                FileTokens(
                    path=item.path,
                    role="target" if item.level == 0 else "dependency",
                    level=item.level,
                    tokens=item.tokens,
                )
                for item in files
            ],
        )
        text = markdown(answer, arguments.class_name)
        return ToolResult.success(guard_output(text, levers="a smaller depth"), answer)
