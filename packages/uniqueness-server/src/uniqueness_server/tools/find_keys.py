"""The ``find_keys`` tool: every minimal key of a data set, ranked."""

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

from uniqueness_server.engine import MAX_KEY_COLUMNS, Key, KeySearch, Nulls, find_keys
from uniqueness_server.tools.common import NULLS_PROPERTY, STRING_LIST, names
from uniqueness_server.tools.sources import SOURCE_ALIASES, SOURCE_PROPERTIES, SourceOpener

DEFAULT_KEYS = 10
MAX_KEYS = 1000

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "source": {"type": "string"},
        "rows": {"type": "integer"},
        "maxColumns": {"type": "integer"},
        "nulls": {"type": "string", "enum": ["equal", "distinct"]},
        "searchedColumns": STRING_LIST,
        "keys": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "columns": STRING_LIST,
                    "hasMissing": {"type": "boolean"},
                    "averageLength": {"type": "number"},
                },
                "required": ["columns", "hasMissing", "averageLength"],
            },
        },
        "page": PAGE_SCHEMA,
        "candidatesChecked": {"type": "integer"},
        "fullChecks": {"type": "integer"},
        "notes": STRING_LIST,
    },
    "required": ["source", "rows", "maxColumns", "nulls", "searchedColumns", "keys", "page"],
}

DEFINITION = ToolDefinition(
    name="find_keys",
    description=(
        "Find every minimal unique column combination (candidate key) of a data file or "
        "database table up to maxColumns columns, ranked best first."
    ),
    input_schema=object_schema(
        {
            **SOURCE_PROPERTIES,
            "columns": {
                **STRING_LIST,
                "description": "Columns to search among (default all), matched "
                'case-insensitively (e.g. ["id", "email", "country"]).',
            },
            "maxColumns": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_KEY_COLUMNS,
                "description": f"Largest key size searched, 1..{MAX_KEY_COLUMNS} (default 3).",
            },
            "nulls": NULLS_PROPERTY,
            **Pagination.schema(DEFAULT_KEYS, MAX_KEYS, "keys"),
        }
    ),
    annotations=ToolAnnotations.read_only_tool(title="Find the keys of a data set"),
    output_schema=OUTPUT_SCHEMA,
    deprecated_aliases=dict(SOURCE_ALIASES),
)


def structured(search: KeySearch, nulls: Nulls, page: Page[Key]) -> dict[str, Any]:
    """The answer as data for programs."""
    return {
        "source": search.source,
        "rows": search.rows,
        "maxColumns": search.max_columns,
        "nulls": nulls.value,
        "searchedColumns": list(search.searched_columns),
        "keys": [
            {
                "columns": list(k.columns),
                "hasMissing": k.has_missing,
                "averageLength": k.average_length,
            }
            for k in page.items
        ],
        "page": page.structured(),
        "candidatesChecked": search.candidates_checked,
        "fullChecks": search.full_checks,
        "notes": list(search.notes),
    }


def markdown(search: KeySearch, nulls: Nulls, page: Page[Key]) -> str:
    """The answer for a model to read."""
    parts = [
        front_matter(
            {
                "source": search.source,
                "rows": search.rows,
                "keysFound": page.total,
                "maxColumns": search.max_columns,
                "nulls": nulls.value,
            }
        ),
        f"\n# Keys of {search.source}{page.notice}\n\n",
    ]
    if page.total:
        parts.append(
            markdown_table(
                ["rank", "columns", "size", "missing values", "avg. value length"],
                [
                    (
                        page.offset + i,
                        names(k.columns),
                        len(k.columns),
                        "yes" if k.has_missing else "no",
                        k.average_length,
                    )
                    for i, k in enumerate(page.items, start=1)
                ],
            )
        )
    else:
        parts.append(
            f"No combination of up to {search.max_columns} of the {len(search.searched_columns)} "
            "searched columns is unique.\n"
        )
    for note in search.notes:
        parts.append(f"\nNote: {note}.\n")
    parts.append(
        f"\nSearched {len(search.searched_columns)} columns; {search.candidates_checked} "
        f"combinations decided, {search.full_checks} of them by a full scan.\n"
    )
    return guard_output("".join(parts), levers="a smaller limit or fewer columns")


class FindKeysTool:
    """``find_keys``: a thin adapter over :func:`find_keys`."""

    def __init__(self, sources: SourceOpener) -> None:
        self._sources = sources

    @property
    def definition(self) -> ToolDefinition:
        """The tool's definition."""
        return DEFINITION

    def call(self, arguments: ToolArguments, context: ToolContext) -> ToolResult:
        """Search the keys of the requested source."""
        columns = arguments.optional_string_list("columns")
        max_columns = arguments.optional_bounded_int("maxColumns", 3, 1, MAX_KEY_COLUMNS)
        nulls = Nulls(arguments.optional_enum("nulls", [n.value for n in Nulls], "equal"))
        pagination = Pagination.read(arguments, DEFAULT_KEYS, MAX_KEYS)
        table = self._sources.open(arguments, context)
        try:
            search = find_keys(
                table, columns=columns, max_columns=max_columns, nulls=nulls, context=context
            )
        finally:
            table.close()
        page = pagination.apply(search.keys)
        return ToolResult.success(markdown(search, nulls, page), structured(search, nulls, page))
