"""The ``estimate_tokens`` tool: what the context for a class costs, per file and in total."""

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

from context_server.core.service import ContextService
from context_server.tools.fit import fit_page, shortened_note
from context_server.tools.progress import indexing_progress
from context_server.tools.schema import (
    CLASS_NAME,
    CLASS_NAME_ALIASES,
    DEPTH,
    LANGUAGE,
    PATH,
    TOKENIZER,
    read_depth,
    read_language,
    read_tokenizer,
)

_OUTPUT = {
    "type": "object",
    "properties": {
        "target": {"type": "string"},
        "tokenizer": {"type": "string"},
        "depth": {"type": "integer"},
        "total": {"type": "integer"},
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "role": {"type": "string", "enum": ["target", "dependency"]},
                    "level": {"type": "integer"},
                    "tokens": {"type": "integer"},
                },
                "required": ["path", "role", "level", "tokens"],
            },
        },
        "page": PAGE_SCHEMA,
    },
    "required": ["target", "tokenizer", "depth", "total", "files", "page"],
}
DEFAULT_LIMIT = 500
MAX_LIMIT = 5000


class EstimateTokensTool:
    """Counts the tokens of a class's file and its dependencies' files."""

    def __init__(self, service: ContextService) -> None:
        self._service = service
        self._definition = ToolDefinition(
            name="estimate_tokens",
            description=(
                "Count the tokens of a class's file and of the project files it depends on, "
                "per file and in total."
            ),
            input_schema=object_schema(
                {
                    "path": PATH,
                    "className": CLASS_NAME,
                    "language": LANGUAGE,
                    "depth": DEPTH,
                    "tokenizer": TOKENIZER,
                    **Pagination.schema(DEFAULT_LIMIT, MAX_LIMIT, what="files"),
                },
                required=("path", "className"),
            ),
            annotations=ToolAnnotations.read_only_tool(title="Estimate tokens"),
            output_schema=_OUTPUT,
            deprecated_aliases=CLASS_NAME_ALIASES,
        )

    @property
    def definition(self) -> ToolDefinition:
        """The tool's name, description, schemas and annotations."""
        return self._definition

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Count the tokens of the target and its dependencies (target first)."""
        path = arguments.required_string("path")
        class_name = arguments.required_string("className")
        language = read_language(arguments)
        depth = read_depth(arguments)
        tokenizer = read_tokenizer(arguments)
        pagination = Pagination.read(arguments, DEFAULT_LIMIT, MAX_LIMIT)
        index = self._service.index(
            path, language, context.check_cancelled, indexing_progress(context)
        )
        selection = self._service.select(index, class_name, depth, tokenizer)
        files = [selection.target, *selection.dependencies]
        rows: list[dict[str, Any]] = [
            {
                "path": item.path,
                "role": "target" if item.level == 0 else "dependency",
                "level": item.level,
                "tokens": item.tokens,
            }
            for item in files
        ]
        total = sum(item.tokens for item in files)

        def render(page: Page[dict[str, Any]]) -> str:
            return (
                f"# Tokens for `{class_name}`\n\n{total} {tokenizer} tokens in {len(files)} "
                f"files (depth {depth}){page.notice}.\n\n"
                + shortened_note(page, "files")
                + markdown_table(
                    ("File", "Role", "Level", "Tokens"),
                    [(r["path"], r["role"], r["level"], r["tokens"]) for r in page.items],
                )
            )

        page, text = fit_page(pagination.apply(rows), render)
        structured = {
            "target": selection.target.path,
            "tokenizer": tokenizer,
            "depth": depth,
            "total": total,
            "files": list(page.items),
            "page": page.structured(),
        }
        return ToolResult.success(text, structured)
