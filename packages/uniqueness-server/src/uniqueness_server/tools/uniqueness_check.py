"""The ``uniqueness_check`` tool: can these columns serve as a key?"""

from __future__ import annotations

from statistics import NormalDist
from typing import Annotated

from mcp_common import (
    Bool,
    Clamp,
    Deprecated,
    ErrorCode,
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
    ToolError,
    ToolResult,
    front_matter,
    guard_output,
    markdown_table,
)
from pydantic import Field

from uniqueness_server import engine
from uniqueness_server.engine import Approximation, CheckResult, DuplicateGroup, Nulls
from uniqueness_server.engine.model import MAX_BETTER_OPTION_COLUMNS
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
    approximate: Bool = Field(
        False,
        description="Answer from one pass through a distinct-count sketch (default false: "
        "exact). Duplicates found are confirmed exactly; otherwise the answer is 'probably "
        "unique' with the estimated distinct keys and their bounds.",
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


class EstimateFacts(StructuredResult):
    """A "probably unique" answer's estimate: distinct keys and the bounds around them."""

    distinct_keys: int
    lower_bound: int
    upper_bound: int
    confidence: str
    sketch_keys: int

    @classmethod
    def of(cls, approximation: Approximation) -> EstimateFacts | None:
        """The estimate of an approximate answer; ``None`` when the exact check answered."""
        if approximation.exact or approximation.estimate is None:
            return None
        # two-sided coverage of a normal distribution at that many standard deviations
        coverage = 100.0 * (2.0 * NormalDist().cdf(approximation.sigmas) - 1.0)
        return cls(
            distinct_keys=approximation.estimate,
            lower_bound=approximation.lower or 0,
            upper_bound=approximation.upper or 0,
            confidence=f"{coverage:.1f} % ({approximation.sigmas:g} sigma)",
            sketch_keys=approximation.sketch_keys,
        )


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
    verdict: str
    exact: bool
    method: str | None
    estimate: EstimateFacts | None
    basis: Basis = Field(
        description="declared: a key the database declares proved the verdict (rows were "
        "counted, not grouped); scanned: the rows were checked (or sketched, see method)."
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
            verdict=verdict(result),
            exact=result.approximation is None or result.approximation.exact,
            method=result.approximation.method if result.approximation else None,
            estimate=EstimateFacts.of(result.approximation) if result.approximation else None,
            basis="declared" if result.basis == "declared" else "scanned",
            declared_key=(
                DeclaredKeyFacts.of(result.declared, result.declared_proves)
                if result.declared is not None
                else None
            ),
            notes=list(result.notes),
        )


def verdict(result: CheckResult) -> str:
    """``unique``, ``not unique`` or, from a sketch, ``probably unique``."""
    if not result.unique:
        return "not unique"
    approximation = result.approximation
    return "unique" if approximation is None or approximation.exact else "probably unique"


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
    shown_verdict = "NOT unique" if answer.verdict == "not unique" else answer.verdict
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
                **({"verdict": answer.verdict} if answer.method else {}),
            }
        ),
        f"\n# {names(columns)}: {shown_verdict}\n\n",
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
            "columns; this verdict comes from the rows, not the declaration.\n\n"
        )
    if answer.estimate is not None:
        parts.append(estimate_markdown(answer, answer.estimate))
    elif answer.unique:
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
    if answer.method and answer.exact:
        parts.append(f"\nApproximate mode: {answer.method}.\n")
    return guard_output("".join(parts), levers="a smaller limit or fewer columns")


def estimate_markdown(answer: CheckAnswer, estimate: EstimateFacts) -> str:
    """The "probably unique" paragraph: the estimate, its bounds and how it was made."""
    spread = estimate.upper_bound - estimate.lower_bound
    return (
        f"No duplicates were found, but the check was approximate. Estimated distinct keys: "
        f"{estimate.distinct_keys:,} in {answer.rows:,} rows; at {estimate.confidence} "
        f"confidence between {estimate.lower_bound:,} and {estimate.upper_bound:,}, so up to "
        f"{spread:,} rows may still repeat a key.\n\nMethod: {answer.method}. Call again "
        "without `approximate` for the exact answer, its duplicate groups and smaller keys.\n"
    )


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
        explicit_better = (
            "better_options" in arguments.model_fields_set and arguments.better_options
        )
        if arguments.approximate and explicit_better:
            raise ToolError(
                "betterOptions needs the exact check: drop it or set approximate to false",
                ErrorCode.INVALID_ARGUMENT,
            )
        if arguments.approximate and arguments.verify:
            raise ToolError(
                "verify asks for the exact scan and approximate for an estimate: give one of them",
                ErrorCode.INVALID_ARGUMENT,
            )
        table = self._sources.open(arguments, context)
        try:
            if arguments.approximate:
                result = engine.approximate_check(
                    table,
                    arguments.columns,
                    nulls=nulls,
                    better_options=arguments.better_options,
                    limit=arguments.limit,
                    offset=arguments.offset,
                    context=context,
                )
            else:
                result = engine.check_uniqueness(
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
