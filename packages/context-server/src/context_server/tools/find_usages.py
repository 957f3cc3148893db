"""The ``find_usages`` tool: the files that depend on a class, most using first."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Arguments,
    Clamp,
    Int,
    NonEmpty,
    Offset,
    OneOf,
    Page,
    PageInfo,
    Pagination,
    Str,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    markdown_table,
)
from pydantic import Field

from context_server.core.languages import LANGUAGE_NAMES
from context_server.core.service import ContextService, UsageSelection
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.settle import settled

DEFAULT_LIMIT = 50
MAX_LIMIT = 500


class UsagesArguments(Arguments):
    """The project, the class whose users to find, and which page of them."""

    path: Str = Field(
        description="Project directory to scan, absolute or relative to the first allowed "
        "directory, e.g. ./my-project."
    )
    class_name: Annotated[Str, NonEmpty()] = Field(
        description="Class (or file) whose users to find: simple name, qualified name or "
        "file path, e.g. OrderService or src/com/shop/OrderService.java; a member as "
        "OrderService#place."
    )
    language: Annotated[Str, OneOf(LANGUAGE_NAMES)] = Field(
        "auto",
        description="Source language to index; auto (default) indexes every supported one.",
    )
    limit: Annotated[Int, Clamp(1, MAX_LIMIT)] = Pagination.limit_field(
        DEFAULT_LIMIT, MAX_LIMIT, "using files"
    )
    offset: Offset = Pagination.offset_field("using files")


class UsingFile(StructuredResult):
    """A file depending on the target: how that was resolved, how often it uses the target
    (0: named only by an import) and the lines where its code names it."""

    path: str
    language: str
    rule: str
    uses: int
    lines: list[int]


class UsagesAnswer(StructuredResult):
    """The answer of ``find_usages``: the target and one page of the files using it."""

    target: str
    symbol: str | None
    users: list[UsingFile]
    other_matches: list[str]
    page: PageInfo


DEFINITION = ToolDefinition(
    name="find_usages",
    description=(
        "Find the project files that depend on a class, most using first, with the lines "
        "where they name it: the reverse of find_context."
    ),
    arguments=UsagesArguments,
    annotations=ToolAnnotations.read_only_tool(title="Find usages"),
    result=UsagesAnswer,
)


class FindUsagesTool:
    """Finds the files using a class, ranked by how much they use it."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service

    @settled
    def call(self, arguments: UsagesArguments, context: ToolContext) -> ToolResult:
        """Index the project, reverse its graph at the target and render one page."""
        service = self._service
        index = service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        selection = service.usages(index, arguments.class_name)
        requested = Pagination(arguments.limit, arguments.offset).apply(selection.users)
        rows = [
            UsingFile(
                path=usage.path,
                language=usage.language,
                rule=usage.rule,
                uses=usage.uses,
                lines=list(service.usage_lines(index, selection, usage.path)),
            )
            for usage in requested.items
        ]
        page, text = fit_page(
            Page(rows, requested.total, requested.offset, requested.limit),
            lambda part: _markdown(arguments, selection, part),
        )
        answer = UsagesAnswer(
            target=selection.target,
            symbol=selection.symbol,
            users=list(page.items),
            other_matches=list(selection.other_matches),
            page=page.info(),
        )
        return ToolResult.success(text, answer)


def _markdown(arguments: UsagesArguments, selection: UsageSelection, page: Page[UsingFile]) -> str:
    chosen = f", declaration `{selection.symbol}`" if selection.symbol else ""
    out = [f"# Usages of `{arguments.class_name}`\n\nTarget: `{selection.target}`{chosen}.\n"]
    if selection.other_matches:
        shown = ", ".join(f"`{m}`" for m in selection.other_matches)
        out.append(f"Also matched (not chosen): {shown}.\n")
    if not selection.users:
        out.append("\nNo project file depends on it.\n")
        return "".join(out)
    out.append(f"\n{len(selection.users)} files depend on it, most using first{page.notice}:\n\n")
    out.append(shortened_note(page, "using files"))
    if page.items:
        out.append(
            markdown_table(
                ("#", "File", "Found by", "Uses", "Lines"),
                [
                    (
                        page.offset + n,
                        item.path,
                        item.rule,
                        item.uses if item.uses else "0 (import only)",
                        ", ".join(str(line) for line in item.lines),
                    )
                    for n, item in enumerate(page.items, start=1)
                ],
            )
        )
    return "".join(out)
