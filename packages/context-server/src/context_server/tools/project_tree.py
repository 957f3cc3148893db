"""The ``project_tree`` tool: folders, files and each file's project dependencies."""

from __future__ import annotations

from typing import Any

from mcp_common import (
    PAGE_SCHEMA,
    Page,
    Pagination,
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    markdown_table,
    object_schema,
)

from context_server.core.serializers import FORMATS, serialize
from context_server.core.service import ContextService
from context_server.core.tree import TreeNode, build_tree, flatten
from context_server.core.walk import Problem
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import (
    DEPTH,
    LANGUAGE,
    PATH,
    PROBLEMS_SCHEMA,
    read_depth,
    read_language,
    string_list,
)

DEFAULT_LIMIT = 500
MAX_LIMIT = 5000

_OUTPUT = {
    "type": "object",
    "properties": {
        "root": {"type": "string"},
        "languages": string_list(),
        "depth": {"type": "integer"},
        "format": {"type": "string"},
        "files": {"type": "integer"},
        "sourceFiles": {"type": "integer"},
        "edges": {"type": "integer"},
        "nodes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "type": {"type": "string", "enum": ["directory", "file"]},
                    "dependencies": string_list(),
                },
                "required": ["path", "type", "dependencies"],
            },
        },
        "problems": PROBLEMS_SCHEMA,
        "page": PAGE_SCHEMA,
    },
    "required": [
        "root",
        "languages",
        "depth",
        "format",
        "files",
        "sourceFiles",
        "edges",
        "nodes",
        "problems",
        "page",
    ],
}


class ProjectTreeTool:
    """Lists a project as a tree of folders and files with each file's dependencies."""

    def __init__(self, service: ContextService) -> None:
        self._service = service
        self._definition = ToolDefinition(
            name="project_tree",
            description=(
                "Map a project into a tree of folders, files and the project files each "
                "source file depends on."
            ),
            input_schema=object_schema(
                {
                    "path": PATH,
                    "language": LANGUAGE,
                    "depth": DEPTH,
                    "format": {
                        "type": "string",
                        "enum": list(FORMATS),
                        "default": "markdown",
                        "description": (
                            "Output format: markdown (default), text, json, dot or mermaid."
                        ),
                    },
                    **Pagination.schema(DEFAULT_LIMIT, MAX_LIMIT, what="tree nodes"),
                },
                required=("path",),
            ),
            annotations=ToolAnnotations.read_only_tool(title="Project tree"),
            output_schema=_OUTPUT,
        )

    @property
    def definition(self) -> ToolDefinition:
        """The tool's name, description, schemas and annotations."""
        return self._definition

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Index the project and render one page of its tree."""
        path = arguments.required_string("path")
        language = read_language(arguments)
        depth = read_depth(arguments)
        format_name = arguments.optional_enum("format", FORMATS, "markdown")
        pagination = Pagination.read(arguments, DEFAULT_LIMIT, MAX_LIMIT)
        index = self._service.index(
            path, language, context.check_cancelled, indexing_progress(context)
        )
        tree = build_tree(index, depth)
        nodes = flatten(tree)
        edges = sum(len(node.dependencies) for _, node in nodes)
        files = len(index.listing.files)
        summary = (
            f"# Project tree of `{tree.name}`\n\n"
            f"{files} files, {len(index.sources)} source files, "
            f"{edges} dependency edges at depth {depth}"
        )
        if not index.listing.files:
            summary += ".\n\nThe project holds no files (after .gitignore and build output)"
        problems = _problems_section(index.problems, pagination.offset)

        def render(page: Page[tuple[int, TreeNode]]) -> str:
            body = serialize(format_name, tree, page.items)
            if format_name != "markdown":
                return body
            note = shortened_note(page, "tree nodes")
            return f"{summary}{page.notice}.\n\n{note + chr(10) if note else ''}{body}{problems}"

        page, text = fit_page(pagination.apply(nodes), render)
        structured: dict[str, Any] = {
            "root": self._service.allowed.display(index.root),
            "languages": [lang.name for lang in index.languages],
            "depth": depth,
            "format": format_name,
            "files": files,
            "sourceFiles": len(index.sources),
            "edges": edges,
            "nodes": [
                {"path": node.relative or ".", "type": node.kind, "dependencies": node.dependencies}
                for _, node in page.items
            ],
            "problems": [{"path": p.path, "reason": p.reason} for p in index.problems],
            "page": page.structured(),
        }
        return ToolResult.success(text, structured)


MAX_PROBLEM_ROWS = 200


def _problems_section(problems: list[Problem], offset: int) -> str:
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
