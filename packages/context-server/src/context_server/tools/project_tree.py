"""The ``project_tree`` tool: folders, files and each file's project dependencies."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp_common import (
    Clamp,
    Int,
    Offset,
    OneOf,
    PageInfo,
    Pagination,
    Str,
    StructuredResult,
    ToolAnnotations,
    ToolContext,
    ToolDefinition,
    ToolResult,
    guard_output,
    markdown_table,
)
from pydantic import Field

from context_server.core.serializers import FORMATS, serialize
from context_server.core.service import ContextService
from context_server.core.tree import build_tree, flatten
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import Problem, ProjectArguments

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

    def call(self, arguments: TreeArguments, context: ToolContext) -> ToolResult:
        """Index the project and render one page of its tree."""
        depth, format_name = arguments.depth, arguments.format
        index = self._service.index(
            arguments.path, arguments.language, context.check_cancelled, indexing_progress(context)
        )
        tree = build_tree(index, depth)
        nodes = flatten(tree)
        page = Pagination(arguments.limit, arguments.offset).apply(nodes)
        edges = sum(len(node.dependencies) for _, node in nodes)
        answer = TreeAnswer(
            root=self._service.allowed.display(index.root),
            languages=[lang.name for lang in index.languages],
            depth=depth,
            format=format_name,
            files=len(index.listing.files),
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
        body = serialize(format_name, tree, page.items)
        levers = "limit and offset, or a subdirectory"
        if format_name != "markdown":
            # The page bounds the text already; the guard only bites for a huge page.
            return ToolResult.success(guard_output(body, levers=levers), answer)
        summary = (
            f"# Project tree of `{tree.name}`\n\n"
            f"{answer.files} files, {answer.source_files} source files, "
            f"{edges} dependency edges at depth {depth}{page.notice}.\n\n"
        )
        if not index.listing.files:
            summary += "The project holds no files (after .gitignore and skipped folders).\n\n"
        problems = ""
        if answer.problems:
            problems = "\n## Skipped\n\n" + markdown_table(
                ("Path", "Reason"), [(p.path, p.reason) for p in answer.problems]
            )
        return ToolResult.success(guard_output(summary + body + problems, levers=levers), answer)
