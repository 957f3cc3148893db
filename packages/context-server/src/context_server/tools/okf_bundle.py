"""The ``okf_bundle`` tool: the project as an Open Knowledge Format bundle, never written."""

from __future__ import annotations

from mcp_common import (
    PAGE_SCHEMA,
    Page,
    Pagination,
    ToolAnnotations,
    ToolArguments,
    ToolContext,
    ToolDefinition,
    ToolResult,
    object_schema,
    package_version,
)

from context_server.core.okf import OKF_VERSION, OkfDocument, build_bundle
from context_server.core.service import ContextService
from context_server.core.tree import build_tree
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import (
    DEPTH,
    LANGUAGE,
    PATH,
    read_depth,
    read_language,
)

DEFAULT_LIMIT = 200
MAX_LIMIT = 2000

_OUTPUT = {
    "type": "object",
    "properties": {
        "okfVersion": {"type": "string"},
        "documents": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
            },
        },
        "page": PAGE_SCHEMA,
    },
    "required": ["okfVersion", "documents", "page"],
}


class OkfBundleTool:
    """Returns the project as OKF v0.2 documents: one concept per file, an index per folder."""

    def __init__(self, service: ContextService) -> None:
        self._service = service
        self._producer = f"context-server/{package_version('context-server')}"
        self._definition = ToolDefinition(
            name="okf_bundle",
            description=(
                "Describe a project as an Open Knowledge Format (OKF v0.2) bundle of Markdown "
                "documents, returned and never written to disk."
            ),
            input_schema=object_schema(
                {
                    "path": PATH,
                    "language": LANGUAGE,
                    "depth": DEPTH,
                    **Pagination.schema(DEFAULT_LIMIT, MAX_LIMIT, what="documents"),
                },
                required=("path",),
            ),
            annotations=ToolAnnotations.read_only_tool(title="OKF bundle"),
            output_schema=_OUTPUT,
        )

    @property
    def definition(self) -> ToolDefinition:
        """The tool's name, description, schemas and annotations."""
        return self._definition

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Build the bundle in memory and return one page of its documents."""
        path = arguments.required_string("path")
        language = read_language(arguments)
        depth = read_depth(arguments)
        pagination = Pagination.read(arguments, DEFAULT_LIMIT, MAX_LIMIT)
        index = self._service.index(
            path, language, context.check_cancelled, indexing_progress(context)
        )
        documents = build_bundle(build_tree(index, depth), index.languages, self._producer)

        def render(page: Page[OkfDocument]) -> str:
            parts = [f"# OKF {OKF_VERSION} bundle: {page.total} documents{page.notice}\n"]
            note = shortened_note(page, "documents")
            if note:
                parts.append(f"\n{note}")
            for document in page.items:
                parts.append(f"\n## {document.path}\n\n````markdown\n{document.content}````\n")
            return "".join(parts)

        page, text = fit_page(pagination.apply(documents), render)
        structured = {
            "okfVersion": OKF_VERSION,
            "documents": [{"path": d.path, "content": d.content} for d in page.items],
            "page": page.structured(),
        }
        return ToolResult.success(text, structured)
