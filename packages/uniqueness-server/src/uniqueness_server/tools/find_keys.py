"""The ``find_keys`` tool: every minimal key of a data set, ranked."""

from __future__ import annotations

from typing import Annotated

from mcp_common import (
    Between,
    Bool,
    Clamp,
    Int,
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

from uniqueness_server import engine
from uniqueness_server.engine import MAX_KEY_COLUMNS, Key, KeySearch, Nulls
from uniqueness_server.tools.common import NullsChoice, names, nulls_field, one_line
from uniqueness_server.tools.metadata import Basis, MetadataFacts, metadata_markdown
from uniqueness_server.tools.sources import SourceArguments, SourceOpener

DEFAULT_KEYS = 10
MAX_KEYS = 1000


class FindKeysArguments(SourceArguments):
    """The source, the columns to search among and the largest key size."""

    columns: StrList | None = Field(
        None,
        description="Columns to search among (default all), matched case-insensitively "
        '(e.g. ["id", "email", "country"]).',
    )
    max_columns: Annotated[Int, Between(1, MAX_KEY_COLUMNS)] = Field(
        3, description=f"Largest key size searched, 1..{MAX_KEY_COLUMNS} (default 3)."
    )
    nulls: NullsChoice = nulls_field()
    plausible_only: Bool = Field(
        False,
        description="Keep only keys plausible as identifiers (default false): leave out keys "
        "whose uniqueness looks accidental (floats, timestamps, free text, measures such as "
        "prices, columns nearly unique on their own).",
    )
    limit: Annotated[Int, Clamp(1, MAX_KEYS)] = Pagination.limit_field(
        DEFAULT_KEYS, MAX_KEYS, "keys"
    )
    offset: Offset = Pagination.offset_field("keys")


class KeyFacts(StructuredResult):
    """One minimal key and the facts it is ranked by."""

    columns: list[str]
    has_missing: bool
    average_length: float
    score: float = Field(description="Plausibility as an identifier, 0..1; the rank order.")
    confidence: str = Field(description="high, medium or low (below medium: likely accidental).")
    reasons: list[str] = Field(description="Why the key ranks where it does.")
    basis: Basis = Field(
        description="declared: a key the database declares proved it without a scan; "
        "scanned: the rows were checked."
    )

    @classmethod
    def of(cls, key: Key) -> KeyFacts:
        """The facts of one found key."""
        return cls(
            columns=list(key.columns),
            has_missing=key.has_missing,
            average_length=key.average_length,
            score=key.score,
            confidence=key.confidence,
            reasons=list(key.reasons),
            basis="declared" if key.basis == "declared" else "scanned",
        )


class KeysAnswer(StructuredResult):
    """The answer of ``find_keys``: one page of the ranked keys and how the search went."""

    source: str
    rows: int
    max_columns: int
    nulls: Nulls
    searched_columns: list[str]
    keys: list[KeyFacts]
    page: PageInfo
    candidates_checked: int
    full_checks: int
    notes: list[str]
    implausible_left_out: int = Field(
        0, description="Keys left out by plausibleOnly (0 when it is off)."
    )
    declared_keys_used: int = Field(
        description="Declared keys known unique before the search: neither they nor any set "
        "holding them needed a uniqueness check."
    )
    metadata: MetadataFacts | None = Field(
        description="Declared keys and statistics of a database table source (null otherwise)."
    )

    @classmethod
    def of(
        cls, search: KeySearch, nulls: Nulls, page: Page[KeyFacts], table_names: list[str]
    ) -> KeysAnswer:
        """The answer for one search of a source with columns ``table_names`` and one page of
        its keys."""
        return cls(
            source=search.source,
            rows=search.rows,
            max_columns=search.max_columns,
            nulls=nulls,
            searched_columns=list(search.searched_columns),
            keys=list(page.items),
            page=page.info(),
            candidates_checked=search.candidates_checked,
            full_checks=search.full_checks,
            notes=list(search.notes),
            implausible_left_out=search.implausible_left_out,
            declared_keys_used=search.declared_used,
            metadata=(
                MetadataFacts.of(search.metadata, table_names, search.rows, search.missing)
                if search.metadata is not None
                else None
            ),
        )


DEFINITION = ToolDefinition(
    name="find_keys",
    description=(
        "Find every minimal unique column combination (candidate key) of a data file or "
        "database table up to maxColumns columns, ranked best first."
    ),
    arguments=FindKeysArguments,
    annotations=ToolAnnotations.read_only_tool(title="Find the keys of a data set"),
    result=KeysAnswer,
)


def markdown(answer: KeysAnswer, page: Page[KeyFacts]) -> str:
    """The answer for a model to read."""
    parts = [
        front_matter(
            {
                "source": answer.source,
                "rows": answer.rows,
                "keysFound": page.total,
                "maxColumns": answer.max_columns,
                "nulls": answer.nulls.value,
            }
        ),
        f"\n# Keys of {one_line(answer.source)}{page.notice}\n\n",
    ]
    if page.total:
        parts.append(
            markdown_table(
                [
                    "rank",
                    "columns",
                    "basis",
                    "confidence",
                    "why",
                    "missing values",
                    "avg. value length",
                ],
                [
                    (
                        page.offset + i,
                        names(k.columns),
                        k.basis,
                        f"{k.confidence} ({k.score})",
                        "; ".join(k.reasons),
                        "yes" if k.has_missing else "no",
                        k.average_length,
                    )
                    for i, k in enumerate(answer.keys, start=1)
                ],
            )
        )
    else:
        parts.append(
            f"No combination of up to {answer.max_columns} of the {len(answer.searched_columns)} "
            "searched columns is unique.\n"
        )
    for note in answer.notes:
        parts.append(f"\nNote: {note}.\n")
    if answer.implausible_left_out:
        parts.append(
            f"\n{answer.implausible_left_out} keys that look accidental were left out "
            "(plausibleOnly).\n"
        )
    searched = (
        f"\nSearched {len(answer.searched_columns)} columns; {answer.candidates_checked} "
        f"combinations decided, {answer.full_checks} of them by a full scan"
    )
    used = answer.declared_keys_used
    if used == 1:
        searched += (
            "; 1 declared key was known unique before the search, so neither it nor any set "
            "holding it needed a check"
        )
    elif used:
        searched += (
            f"; {used} declared keys were known unique before the search, so neither they nor "
            "any set holding them needed a check"
        )
    parts.append(searched + ".\n")
    if answer.metadata is not None:
        parts.append(metadata_markdown(answer.metadata, answer.nulls))
    return guard_output("".join(parts), levers="a smaller limit or fewer columns")


class FindKeysTool:
    """``find_keys``: a thin adapter over :func:`find_keys`."""

    def __init__(self, sources: SourceOpener) -> None:
        self._sources = sources

    @property
    def definition(self) -> ToolDefinition:
        """The tool's definition."""
        return DEFINITION

    def call(self, arguments: FindKeysArguments, context: ToolContext) -> ToolResult:
        """Search the keys of the requested source."""
        nulls = Nulls(arguments.nulls)
        table = self._sources.open(arguments, context)
        table_names = list(table.names)
        try:
            search = engine.find_keys(
                table,
                columns=arguments.columns,
                max_columns=arguments.max_columns,
                nulls=nulls,
                plausible_only=arguments.plausible_only,
                offset=arguments.offset,
                limit=arguments.limit,
                context=context,
            )
        finally:
            table.close()
        # the engine ranks every key but holds only this page (answers run to millions)
        page = Page(
            items=[KeyFacts.of(key) for key in search.keys],
            total=search.keys_found,
            offset=arguments.offset,
            limit=arguments.limit,
        )
        answer = KeysAnswer.of(search, nulls, page, table_names)
        return ToolResult.success(markdown(answer, page), answer)
