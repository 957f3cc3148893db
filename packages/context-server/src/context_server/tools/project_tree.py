"""The ``project_tree`` tool: folders, files and each file's project dependencies."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp_common import (
    Clamp,
    Int,
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

from context_server.core.serializers import FORMATS, serialize
from context_server.core.service import ContextService
from context_server.core.tree import TreeNode as CoreNode
from context_server.core.tree import stored_tree
from context_server.core.walk import Problem as WalkProblem
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import Problem, ProjectArguments
from context_server.tools.settle import settled

DEFAULT_LIMIT = 500
MAX_LIMIT = 5000


class TreeArguments(ProjectArguments):
    """The project, the output format and which page of its tree nodes to render."""

    format: Annotated[Str, OneOf(FORMATS)] = Field(
        "markdown", description="Output format: markdown (default), text, json, dot or mermaid."
    )
    limit: Annotated[Int, Clamp(1, MAX_LIMIT)] = Pagination.limit_field(
        DEFAULT_LIMIT, MAX_LIMIT, "tree nodes"
    )
    offset: Offset = Pagination.offset_field("tree nodes")


class TreeNode(StructuredResult):
    """A folder or file of the tree, with the project files a source file depends on."""

    path: str
    type: Literal["directory", "file"]
    dependencies: list[str]


class TreeAnswer(StructuredResult):
    """The answer of ``project_tree``: the project's counts and one page of its nodes."""

    root: str
    languages: list[str]
    depth: int
    format: str
    files: int
    source_files: int
    edges: int
    nodes: list[TreeNode]
    problems: list[Problem]
    page: PageInfo


DEFINITION = ToolDefinition(
    name="project_tree",
    description=(
        "Map a project into a tree of folders, files and the project files each source file "
        "depends on."
    ),
    arguments=TreeArguments,
    annotations=ToolAnnotations.read_only_tool(title="Project tree"),
    result=TreeAnswer,
)


class ProjectTreeTool:
    """Lists a project as a tree of folders and files with each file's dependencies."""

    definition = DEFINITION

    def __init__(self, service: ContextService) -> None:
        self._service = service

    @settled
    def call(self, arguments: TreeArguments, context: ToolContext) -> ToolResult:
        """Index the project and render one page of its tree."""
        depth, format_name = arguments.depth, arguments.format
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        stored = stored_tree(index, depth)
        tree, nodes, edges = stored.top, stored.nodes, stored.edges
        files = len(index.listing.files)
        summary = (
            f"# Project tree of `{tree.name}`\n\n"
            f"{files} files, {len(index.sources)} source files, "
            f"{edges} dependency edges at depth {depth}"
        )
        empty = (
            "" if files else "The project holds no files (after .gitignore and build output).\n\n"
        )
        problems = _problems_section(index.problems, arguments.offset)

        def render(page: Page[tuple[int, CoreNode]]) -> str:
            body = serialize(format_name, tree, page.items)
            if format_name != "markdown":
                return body
            note = shortened_note(page, "tree nodes")
            head = f"{summary}{page.notice}.\n\n{empty}{note + chr(10) if note else ''}"
            return head + body + problems

        # One cut, by whole nodes: the page shrinks until its text fits the answer cap. How
        # many fit is kept with the index: a warm page is rendered once, not searched for.
        asked = Pagination(arguments.limit, arguments.offset).apply(nodes)
        fitted: list[tuple[Page[tuple[int, CoreNode]], str]] = []

        def fit() -> int:
            fitted.append(fit_page(asked, render))
            return len(fitted[0][0].items)

        fitting = index.derived(
            f"tree page {depth} {format_name} {asked.offset} {asked.limit}", fit
        )
        if fitted:
            page, text = fitted[0]
        else:
            page = Page(asked.items[:fitting], asked.total, asked.offset, asked.limit)
            text = render(page)
        answer = TreeAnswer(
            root=self._service.allowed.display(index.root),
            languages=[lang.name for lang in index.languages],
            depth=depth,
            format=format_name,
            files=files,
            source_files=len(index.sources),
            edges=edges,
            nodes=[
                TreeNode(
                    path=node.relative or ".",
                    type="directory" if node.kind == "directory" else "file",
                    dependencies=list(node.dependencies),
                )
                for _, node in page.items
            ],
            problems=[Problem(path=p.path, reason=p.reason) for p in index.problems],
            page=page.info(),
        )
        return ToolResult.success(text, answer)


MAX_PROBLEM_ROWS = 200


def _problems_section(problems: list[WalkProblem], offset: int) -> str:
    """The skipped files as a table on the first page (at most 200 rows), a line after."""
    if not problems:
        return ""
    if offset > 0:
        return f"\n{len(problems)} files skipped: listed on the first page and in `problems`.\n"
    shown = problems[:MAX_PROBLEM_ROWS]
    more = len(problems) - len(shown)
    tail = f"\n{more} more in the structured `problems`.\n" if more else ""
    return (
        "\n## Skipped\n\n"
        + markdown_table(("Path", "Reason"), [(p.path, p.reason) for p in shown])
        + tail
    )
