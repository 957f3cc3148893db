"""The ``estimate_tokens`` tool: what the context for a class costs, per file and in total."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp_common import (
    Clamp,
    Int,
    Offset,
    Page,
    PageInfo,
    Pagination,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    markdown_table,
)

from context_server.core.service import ContextService
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import ClassArguments
from context_server.tools.settle import settled

DEFAULT_LIMIT = 500
MAX_LIMIT = 5000


class TokensArguments(ClassArguments):
    """A class, how far to follow its dependencies, and which page of files to list."""

    limit: Annotated[Int, Clamp(1, MAX_LIMIT)] = Pagination.limit_field(
        DEFAULT_LIMIT, MAX_LIMIT, "files"
    )
    offset: Offset = Pagination.offset_field("files")


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
    page: PageInfo


DEFINITION = ToolDefinition(
    name="estimate_tokens",
    description=(
        "Count the tokens of a class's file and of the project files it depends on, "
        "per file and in total."
    ),
    arguments=TokensArguments,
    annotations=ToolAnnotations.read_only_tool(title="Estimate tokens"),
    result=TokensAnswer,
)


def markdown(
    class_name: str, tokenizer: str, depth: int, total: int, page: Page[FileTokens]
) -> str:
    """The answer for a model to read: one page of the per-file counts."""
    return (
        f"# Tokens for `{class_name}`\n\n{total} {tokenizer} tokens in "
        f"{page.total} files (depth {depth}){page.notice}.\n\n"
        + shortened_note(page, "files")
        + markdown_table(
            ("File", "Role", "Level", "Tokens"),
            [(f.path, f.role, f.level, f.tokens) for f in page.items],
        )
    )


class EstimateTokensTool:
    """Counts the tokens of a class's file and its dependencies' files."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service

    @settled
    def call(self, arguments: TokensArguments, context: ToolContext) -> ToolResult:
        """Count the tokens of the target and its dependencies (target first)."""
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        selection = self._service.select(
            index, arguments.class_name, arguments.depth, arguments.tokenizer
        )
        files = [selection.target, *selection.dependencies]
        rows = [
            FileTokens(
                path=item.path,
                role="target" if item.level == 0 else "dependency",
                level=item.level,
                tokens=item.tokens,
            )
            for item in files
        ]
        total = sum(item.tokens for item in files)
        page, text = fit_page(
            Pagination(arguments.limit, arguments.offset).apply(rows),
            lambda part: markdown(
                arguments.class_name, arguments.tokenizer, arguments.depth, total, part
            ),
        )
        answer = TokensAnswer(
            target=selection.target.path,
            tokenizer=arguments.tokenizer,
            depth=arguments.depth,
            total=total,
            files=list(page.items),
            page=page.info(),
        )
        return ToolResult.success(text, answer)
