"""The ``uniqueness_check`` tool: can these columns serve as a key?"""

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

from uniqueness_server.engine import CheckResult, Nulls, check_uniqueness
from uniqueness_server.engine.check import MAX_BETTER_OPTION_COLUMNS
from uniqueness_server.tools.common import NULLS_PROPERTY, STRING_LIST, names, shown
from uniqueness_server.tools.sources import SOURCE_ALIASES, SOURCE_PROPERTIES, SourceOpener

DEFAULT_GROUPS = 5
MAX_GROUPS = 100

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "columns": STRING_LIST,
        "unique": {"type": "boolean"},
        "nulls": {"type": "string", "enum": ["equal", "distinct"]},
        "rows": {"type": "integer"},
        "distinctKeys": {"type": "integer"},
        "duplicateGroups": {"type": "integer"},
        "duplicateRows": {"type": "integer"},
        "rowsWithMissing": {"type": "integer"},
        "duplicates": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "values": {"type": "array", "items": {"type": ["string", "null"]}},
                    "count": {"type": "integer"},
                    "rows": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["values", "count", "rows"],
            },
        },
        "page": PAGE_SCHEMA,
        "betterOptions": {"type": "array", "items": STRING_LIST},
        "minimal": {"type": ["boolean", "null"]},
    },
    "required": [
        "source",
        "columns",
        "unique",
        "nulls",
        "rows",
        "distinctKeys",
        "duplicateGroups",
        "duplicateRows",
        "duplicates",
        "betterOptions",
    ],
}

DEFINITION = ToolDefinition(
    name="uniqueness_check",
    description=(
        "Check whether a set of columns identifies every row of a data file or database table, "
        "showing duplicate groups with their row numbers and the minimal unique subsets."
    ),
    input_schema=object_schema(
        {
            **SOURCE_PROPERTIES,
            "columns": {
                **STRING_LIST,
                "description": "Columns forming the candidate key, matched case-insensitively "
                '(e.g. ["year1", "hlpi_name"]).',
            },
            "nulls": NULLS_PROPERTY,
            "betterOptions": {
                "type": "boolean",
                "description": "When the columns are unique, also find their minimal unique "
                "subsets (default true).",
            },
            **Pagination.schema(DEFAULT_GROUPS, MAX_GROUPS, "duplicate groups"),
        },
        required=("columns",),
    ),
    annotations=ToolAnnotations.read_only_tool(title="Check a candidate key"),
    output_schema=OUTPUT_SCHEMA,
    deprecated_aliases={**SOURCE_ALIASES, "columns_name": "columns"},
)


def structured(result: CheckResult, nulls: Nulls, page: Page[Any]) -> dict[str, Any]:
    """The answer as data for programs (the output schema's shape)."""
    return {
        "source": result.source,
        "columns": list(result.columns),
        "unique": result.unique,
        "nulls": nulls.value,
        "rows": result.rows,
        "distinctKeys": result.distinct_keys,
        "duplicateGroups": result.duplicate_groups,
        "duplicateRows": result.duplicate_rows,
        "rowsWithMissing": result.rows_with_missing,
        "duplicates": [
            {"values": list(g.values), "count": g.count, "rows": list(g.rows)}
            for g in result.examples
        ],
        "page": page.structured(),
        "betterOptions": [list(option) for option in result.better_options],
        "minimal": result.minimal,
    }


def markdown(result: CheckResult, nulls: Nulls, page: Page[Any]) -> str:
    """The answer for a model to read."""
    verdict = "unique" if result.unique else "NOT unique"
    parts = [
        front_matter(
            {
                "source": result.source,
                "columns": names(result.columns),
                "unique": result.unique,
                "rows": result.rows,
                "distinctKeys": result.distinct_keys,
                "duplicateGroups": result.duplicate_groups,
                "nulls": nulls.value,
            }
        ),
        f"\n# {names(result.columns)}: {verdict}\n\n",
    ]
    if result.unique:
        parts.append(
            f"No two of the {result.rows} rows share a value of ({names(result.columns)})."
        )
        if result.rows_with_missing and nulls is Nulls.DISTINCT:
            parts.append(
                f" {result.rows_with_missing} rows have a missing key value and never collide "
                "(nulls=distinct)."
            )
        parts.append("\n")
    else:
        parts.append(
            f"{result.duplicate_groups} key values are shared by {result.duplicate_rows} of "
            f"{result.rows} rows ({result.distinct_keys} distinct keys).\n\n"
            f"## Duplicate groups{page.notice}\n\n"
        )
        headers = [*result.columns, "rows sharing it"]
        if result.row_numbers:
            headers.append("row numbers (1-based data rows)")
        table_rows: list[list[object]] = []
        for group in result.examples:
            row: list[object] = [shown(v) for v in group.values]
            row.append(group.count)
            if result.row_numbers:
                numbers = ", ".join(map(str, group.rows))
                row.append(numbers + (", …" if group.count > len(group.rows) else ""))
            table_rows.append(row)
        parts.append(markdown_table(headers, table_rows))
    if result.unique and result.minimal is None and len(result.columns) > MAX_BETTER_OPTION_COLUMNS:
        parts.append(
            f"\nSmaller keys were not searched: more than {MAX_BETTER_OPTION_COLUMNS} columns.\n"
        )
    if result.minimal is not None:
        parts.append("\n## Smaller keys inside these columns\n\n")
        if result.minimal:
            parts.append("None: every column is needed; the key is already minimal.\n")
        else:
            parts.append(
                markdown_table(
                    ["minimal unique subset", "columns"],
                    [(names(option), len(option)) for option in result.better_options],
                )
            )
    return guard_output("".join(parts), levers="a smaller limit or fewer columns")


class UniquenessCheckTool:
    """``uniqueness_check``: a thin adapter over :func:`check_uniqueness`."""

    def __init__(self, sources: SourceOpener) -> None:
        self._sources = sources

    @property
    def definition(self) -> ToolDefinition:
        """The tool's definition."""
        return DEFINITION

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Check the requested columns of the requested source."""
        columns = arguments.required_string_list("columns")
        nulls = Nulls(arguments.optional_enum("nulls", [n.value for n in Nulls], "equal"))
        better = arguments.optional_boolean("betterOptions", True)
        pagination = Pagination.read(arguments, DEFAULT_GROUPS, MAX_GROUPS)
        table = self._sources.open(arguments, context)
        try:
            result = check_uniqueness(
                table,
                columns,
                nulls=nulls,
                better_options=better,
                limit=pagination.limit,
                offset=pagination.offset,
                context=context,
            )
        finally:
            table.close()
        page: Page[Any] = Page(
            result.examples, result.duplicate_groups, pagination.offset, pagination.limit
        )
        return ToolResult.success(markdown(result, nulls, page), structured(result, nulls, page))
