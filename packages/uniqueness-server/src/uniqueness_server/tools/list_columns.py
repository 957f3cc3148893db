"""The ``list_columns`` tool: what an agent needs before choosing a key."""

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
    front_matter,
    guard_output,
    markdown_table,
    object_schema,
)

from uniqueness_server.engine import ColumnProfile, Profile, profile_columns
from uniqueness_server.tools.common import STRING_LIST, shown
from uniqueness_server.tools.sources import SOURCE_ALIASES, SOURCE_PROPERTIES, SourceOpener

DEFAULT_COLUMNS = 100
MAX_COLUMNS = 1000

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "rows": {"type": "integer"},
        "columns": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "type": {"type": "string"},
                    "missing": {"type": "integer"},
                    "distinct": {"type": "integer"},
                    "distinctExact": {"type": "boolean"},
                    "averageLength": {"type": "number"},
                    "samples": STRING_LIST,
                },
                "required": ["name", "type", "missing", "distinct", "distinctExact", "samples"],
            },
        },
        "page": PAGE_SCHEMA,
    },
    "required": ["source", "rows", "columns", "page"],
}

DEFINITION = ToolDefinition(
    name="list_columns",
    description=(
        "List the columns of a data file or database table with inferred type, missing-value "
        "count, approximate distinct count, sample values and the row count."
    ),
    input_schema=object_schema(
        {**SOURCE_PROPERTIES, **Pagination.schema(DEFAULT_COLUMNS, MAX_COLUMNS, "columns")}
    ),
    annotations=ToolAnnotations.read_only_tool(title="List columns"),
    output_schema=OUTPUT_SCHEMA,
    deprecated_aliases=dict(SOURCE_ALIASES),
)


def structured(profile: Profile, page: Page[ColumnProfile]) -> dict[str, Any]:
    """The answer as data for programs."""
    return {
        "source": profile.source,
        "rows": profile.rows,
        "columns": [
            {
                "name": c.name,
                "type": c.type,
                "missing": c.missing,
                "distinct": c.distinct,
                "distinctExact": c.distinct_exact,
                "averageLength": c.average_length,
                "samples": list(c.samples),
            }
            for c in page.items
        ],
        "page": page.structured(),
    }


def markdown(profile: Profile, page: Page[ColumnProfile]) -> str:
    """The answer for a model to read."""
    exact = all(c.distinct_exact for c in page.items)
    text = (
        front_matter({"source": profile.source, "rows": profile.rows, "columns": page.total})
        + f"\n# Columns of {profile.source}{page.notice}\n\n"
        + markdown_table(
            ["column", "type", "missing", "distinct" if exact else "distinct (approx.)", "samples"],
            [
                (c.name, c.type, c.missing, c.distinct, ", ".join(shown(s) for s in c.samples))
                for c in page.items
            ],
        )
    )
    return guard_output(text, levers="a smaller limit or an offset")


class ListColumnsTool:
    """``list_columns``: a thin adapter over :func:`profile_columns`."""

    def __init__(self, sources: SourceOpener) -> None:
        self._sources = sources

    @property
    def definition(self) -> ToolDefinition:
        """The tool's definition."""
        return DEFINITION

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Profile the columns of the requested source."""
        pagination = Pagination.read(arguments, DEFAULT_COLUMNS, MAX_COLUMNS)
        table = self._sources.open(arguments, context)
        try:
            profile = profile_columns(table)
        finally:
            table.close()
        page = pagination.apply(profile.columns)
        return ToolResult.success(markdown(profile, page), structured(profile, page))
