"""The ``uniqueness_check`` tool: can these columns serve as a key?"""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Bool,
    Clamp,
    Deprecated,
    Int,
    NonEmpty,
    Offset,
    Page,
    PageInfo,
    Pagination,
    StrList,
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

from uniqueness_server.engine import CheckResult, DuplicateGroup, Nulls, check_uniqueness
from uniqueness_server.engine.check import MAX_BETTER_OPTION_COLUMNS
from uniqueness_server.tools.common import NullsChoice, names, nulls_field, shown
from uniqueness_server.tools.metadata import Basis, DeclaredKeyFacts
from uniqueness_server.tools.sources import SourceArguments, SourceOpener

DEFAULT_GROUPS = 5
MAX_GROUPS = 100


class CheckArguments(SourceArguments):
    """The source, the candidate key and how to compare missing values."""

    columns: Annotated[StrList, NonEmpty(), Deprecated("columns_name")] = Field(
        description="Columns forming the candidate key, matched case-insensitively "
        '(e.g. ["year1", "hlpi_name"]).'
    )
    nulls: NullsChoice = nulls_field()
    better_options: Bool = Field(
        True,
        description="When the columns are unique, also find their minimal unique subsets "
        "(default true).",
    )
    limit: Annotated[Int, Clamp(1, MAX_GROUPS)] = Pagination.limit_field(
        DEFAULT_GROUPS, MAX_GROUPS, "duplicate groups"
    )
    offset: Offset = Pagination.offset_field("duplicate groups")
    verify: Bool = Field(
        False,
        description="Scan the rows even when a key the database declares proves the columns "
        "unique (default false: such an answer comes from the declaration, labelled so).",
    )


class DuplicateFacts(StructuredResult):
    """One key value shared by several rows: the value, how many rows, which rows."""

    values: list[str | None]
    count: int
    rows: list[int]

    @classmethod
    def of(cls, group: DuplicateGroup) -> DuplicateFacts:
        """The facts of one duplicate group."""
        return cls(values=list(group.values), count=group.count, rows=list(group.rows))


class CheckAnswer(StructuredResult):
    """The answer of ``uniqueness_check``: the verdict, its counts and its evidence."""

    source: str
    columns: list[str]
    unique: bool
    nulls: Nulls
    rows: int
    distinct_keys: int
    duplicate_groups: int
    duplicate_rows: int
    rows_with_missing: int
    duplicates: list[DuplicateFacts]
    page: PageInfo
    better_options: list[list[str]]
    minimal: bool | None
    basis: Basis = Field(
        description="declared: a key the database declares proved the verdict (rows were "
        "counted, not grouped); scanned: the rows were checked."
    )
    declared_key: DeclaredKeyFacts | None = Field(
        description="A key the database declares within the columns (null if none)."
    )
    notes: list[str]

    @classmethod
    def of(cls, result: CheckResult, nulls: Nulls, page: Page[DuplicateGroup]) -> CheckAnswer:
        """The answer for one check and one page of its duplicate groups."""
        return cls(
            source=result.source,
            columns=list(result.columns),
            unique=result.unique,
            nulls=nulls,
            rows=result.rows,
            distinct_keys=result.distinct_keys,
            duplicate_groups=result.duplicate_groups,
            duplicate_rows=result.duplicate_rows,
            rows_with_missing=result.rows_with_missing,
            duplicates=[DuplicateFacts.of(group) for group in page.items],
            page=page.info(),
            better_options=[list(option) for option in result.better_options],
            minimal=result.minimal,
            basis="declared" if result.basis == "declared" else "scanned",
            declared_key=(
                DeclaredKeyFacts.of(result.declared, result.declared_proves)
                if result.declared is not None
                else None
            ),
            notes=list(result.notes),
        )


DEFINITION = ToolDefinition(
    name="uniqueness_check",
    description=(
        "Check whether a set of columns identifies every row of a data file or database table, "
        "showing duplicate groups with their row numbers and the minimal unique subsets."
    ),
    arguments=CheckArguments,
    annotations=ToolAnnotations.read_only_tool(title="Check a candidate key"),
    result=CheckAnswer,
)


def markdown(answer: CheckAnswer, page: Page[DuplicateGroup]) -> str:
    """The answer for a model to read."""
    verdict = "unique" if answer.unique else "NOT unique"
    columns = tuple(answer.columns)
    parts = [
        front_matter(
            {
                "source": answer.source,
                "columns": names(columns),
                "unique": answer.unique,
                "rows": answer.rows,
                "distinctKeys": answer.distinct_keys,
                "duplicateGroups": answer.duplicate_groups,
                "nulls": answer.nulls.value,
            }
        ),
        f"\n# {names(columns)}: {verdict}\n\n",
    ]
    declared = answer.declared_key
    if declared is not None:
        named = f"{declared.kind}{' ' + declared.name if declared.name else ''}"
        parts.append(
            f"Declared by the database: {named} ({names(declared.columns)}) proves it under "
            f"nulls={answer.nulls.value} (database metadata, not a scan; the rows were only "
            "counted; pass verify to scan).\n\n"
            if answer.basis == "declared"
            else f"The database declares {named} ({names(declared.columns)}) within these "
            "columns; this verdict comes from scanning the rows.\n\n"
        )
    if answer.unique:
        parts.append(f"No two of the {answer.rows} rows share a value of ({names(columns)}).")
        if answer.rows_with_missing and answer.nulls is Nulls.DISTINCT:
            parts.append(
                f" {answer.rows_with_missing} rows have a missing key value and never collide "
                "(nulls=distinct)."
            )
        parts.append("\n")
    else:
        parts.append(
            f"{answer.duplicate_groups} key values are shared by {answer.duplicate_rows} of "
            f"{answer.rows} rows ({answer.distinct_keys} distinct keys).\n\n"
            f"## Duplicate groups{page.notice}\n\n"
        )
        # database sources carry no row numbers: their groups list none
        row_numbers = any(group.rows for group in answer.duplicates)
        headers = [*columns, "rows sharing it"]
        if row_numbers:
            headers.append("row numbers (1-based data rows)")
        table_rows: list[list[object]] = []
        for group in answer.duplicates:
            row: list[object] = [shown(v) for v in group.values]
            row.append(group.count)
            if row_numbers:
                numbers = ", ".join(map(str, group.rows))
                row.append(numbers + (", …" if group.count > len(group.rows) else ""))
            table_rows.append(row)
        parts.append(markdown_table(headers, table_rows))
    for note in answer.notes:
        parts.append(f"\nNote: {note}.\n")
    if answer.unique and answer.minimal is None and len(columns) > MAX_BETTER_OPTION_COLUMNS:
        parts.append(
            f"\nSmaller keys were not searched: more than {MAX_BETTER_OPTION_COLUMNS} columns.\n"
        )
    if answer.minimal is not None:
        parts.append("\n## Smaller keys inside these columns\n\n")
        if answer.minimal:
            parts.append("None: every column is needed; the key is already minimal.\n")
        else:
            parts.append(
                markdown_table(
                    ["minimal unique subset", "columns"],
                    [(names(option), len(option)) for option in answer.better_options],
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

    def call(self, arguments: CheckArguments, context: ToolContext) -> ToolResult:
        """Check the requested columns of the requested source."""
        nulls = Nulls(arguments.nulls)
        table = self._sources.open(arguments, context)
        try:
            result = check_uniqueness(
                table,
                arguments.columns,
                nulls=nulls,
                better_options=arguments.better_options,
                limit=arguments.limit,
                offset=arguments.offset,
                verify=arguments.verify,
                context=context,
            )
        finally:
            table.close()
        page: Page[DuplicateGroup] = Page(
            result.examples, result.duplicate_groups, arguments.offset, arguments.limit
        )
        answer = CheckAnswer.of(result, nulls, page)
        return ToolResult.success(markdown(answer, page), answer)
