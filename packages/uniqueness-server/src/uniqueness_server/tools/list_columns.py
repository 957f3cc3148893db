"""The ``list_columns`` tool: what an agent needs before choosing a key."""

from __future__ import annotations

from typing import Annotated

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
    front_matter,
    guard_output,
    markdown_table,
)
from pydantic import Field

from uniqueness_server import engine
from uniqueness_server.engine import ColumnProfile, read_metadata
from uniqueness_server.engine.metadata import metadata_scope_note
from uniqueness_server.tools.common import one_line, shown
from uniqueness_server.tools.metadata import MetadataFacts, metadata_markdown
from uniqueness_server.tools.sources import SourceArguments, SourceOpener

DEFAULT_COLUMNS = 100
MAX_COLUMNS = 1000


class ListColumnsArguments(SourceArguments):
    """The source, and which page of its columns to list."""

    limit: Annotated[Int, Clamp(1, MAX_COLUMNS)] = Pagination.limit_field(
        DEFAULT_COLUMNS, MAX_COLUMNS, "columns"
    )
    offset: Offset = Pagination.offset_field("columns")


class ColumnFacts(StructuredResult):
    """One column: its inferred type, missing and distinct counts, and sample values."""

    name: str
    type: str
    missing: int
    distinct: int
    distinct_exact: bool
    average_length: float
    samples: list[str]

    @classmethod
    def of(cls, column: ColumnProfile) -> ColumnFacts:
        """The facts of one profiled column."""
        return cls(
            name=column.name,
            type=column.type,
            missing=column.missing,
            distinct=column.distinct,
            distinct_exact=column.distinct_exact,
            average_length=column.average_length,
            samples=list(column.samples),
        )


class ColumnsAnswer(StructuredResult):
    """The answer of ``list_columns``: the source's row count and one page of its columns."""

    source: str
    rows: int
    columns: list[ColumnFacts]
    page: PageInfo
    metadata: MetadataFacts | None = Field(
        description="Declared keys and statistics of a database table source (null otherwise)."
    )
    notes: list[str]


DEFINITION = ToolDefinition(
    name="list_columns",
    description=(
        "List the columns of a data file or database table with inferred type, missing-value "
        "count, distinct count (exact or estimated, as distinctExact says), sample values and "
        "the row count."
    ),
    arguments=ListColumnsArguments,
    annotations=ToolAnnotations.read_only_tool(title="List columns"),
    result=ColumnsAnswer,
)


def markdown(answer: ColumnsAnswer, page: Page[ColumnFacts]) -> str:
    """The answer for a model to read."""
    exact = all(c.distinct_exact for c in answer.columns)
    text = (
        front_matter({"source": answer.source, "rows": answer.rows, "columns": page.total})
        + f"\n# Columns of {one_line(answer.source)}{page.notice}\n\n"
        + markdown_table(
            ["column", "type", "missing", "distinct" if exact else "distinct (approx.)", "samples"],
            [
                (c.name, c.type, c.missing, c.distinct, ", ".join(shown(s) for s in c.samples))
                for c in answer.columns
            ],
        )
    )
    if answer.metadata is not None:
        text += metadata_markdown(answer.metadata)
    for note in answer.notes:
        text += f"\nNote: {note}.\n"
    return guard_output(text, levers="a smaller limit or an offset")


class ListColumnsTool:
    """``list_columns``: a thin adapter over :func:`profile_columns`."""

    def __init__(self, sources: SourceOpener) -> None:
        self._sources = sources

    @property
    def definition(self) -> ToolDefinition:
        """The tool's definition."""
        return DEFINITION

    def call(self, arguments: ListColumnsArguments, context: ToolContext) -> ToolResult:
        """Profile the columns of the requested source."""
        table = self._sources.open(arguments, context)
        try:
            metadata = read_metadata(table)
            scope = metadata_scope_note(table)
            profile = engine.profile_columns(table)
        finally:
            table.close()
        columns = [ColumnFacts.of(column) for column in profile.columns]
        page = Pagination(arguments.limit, arguments.offset).apply(columns)
        answer = ColumnsAnswer(
            source=profile.source,
            rows=profile.rows,
            columns=list(page.items),
            page=page.info(),
            metadata=(
                MetadataFacts.of(
                    metadata,
                    [c.name for c in profile.columns],
                    profile.rows,
                    [c.missing for c in profile.columns],
                )
                if metadata is not None
                else None
            ),
            notes=[scope] if scope is not None else [],
        )
        return ToolResult.success(markdown(answer, page), answer)
