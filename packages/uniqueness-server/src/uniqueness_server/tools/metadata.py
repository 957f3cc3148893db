"""Database metadata in the tools' answers: declared keys and statistics, each labelled with
its basis ("declared" is enforced by the database, "statistics" is an estimate, never proof)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from mcp_common import StructuredResult, markdown_table
from pydantic import Field

from uniqueness_server.engine import DeclaredKey, Nulls, TableMetadata
from uniqueness_server.engine.metadata import (
    likely_unique,
    missing_bound,
    proof_modes,
    stale,
    statistics_notes,
)
from uniqueness_server.tools.common import names

Basis = Literal["declared", "scanned"]
"""How a verdict was reached: from a declared key, or by scanning the rows."""


class DeclaredKeyFacts(StructuredResult):
    """A PRIMARY KEY, UNIQUE constraint or unique index the database declares."""

    basis: Literal["declared"] = "declared"
    kind: str = Field(description="primary key, unique constraint or unique index.")
    name: str | None
    columns: list[str] = Field(description="Its columns; an indexed expression as its text.")
    nulls_distinct: bool = Field(
        description="True when rows with a missing key value may repeat (SQL UNIQUE); false "
        "for PostgreSQL NULLS NOT DISTINCT."
    )
    not_null: bool = Field(description="Every column of it is declared NOT NULL.")
    proves_unique: list[Nulls] = Field(
        description="The nulls modes under which it proves its columns unique without a scan "
        "(empty: reported only; see caveat)."
    )
    caveat: str | None = Field(description="Why it is not a key of every row read, if so.")

    @classmethod
    def of(cls, key: DeclaredKey, proves: Sequence[Nulls]) -> DeclaredKeyFacts:
        """The facts of one declared key, which proves uniqueness under ``proves``."""
        return cls(
            kind=key.kind,
            name=key.name,
            columns=list(key.columns),
            nulls_distinct=key.nulls_distinct,
            not_null=key.not_null,
            proves_unique=list(proves),
            caveat=key.caveat,
        )


class ColumnEstimateFacts(StructuredResult):
    """What the planner statistics estimate about one column."""

    column: str
    estimated_distinct: float = Field(description="Estimated distinct non-missing values.")
    null_fraction: float | None = Field(description="Estimated share of missing values.")
    likely_unique: bool = Field(
        description="Estimated (nearly) all distinct: a likely key, unproven."
    )


class StatisticsFacts(StructuredResult):
    """The planner statistics of the table (its last ANALYZE): estimates, never proof."""

    basis: Literal["statistics"] = "statistics"
    origin: str = Field(description="pg_stats or sqlite_stat1.")
    estimated_rows: float | None
    analyzed_at: str | None
    stale: bool = Field(description="The estimated row count is far off the counted one.")
    columns: list[ColumnEstimateFacts]


class MetadataFacts(StructuredResult):
    """What the database declares and estimates about the table the source names."""

    relation: str = Field(description="The relation described, e.g. public.orders.")
    kind: str = Field(description="table, view, materialized view, partitioned table, …")
    declared_keys: list[DeclaredKeyFacts]
    statistics: StatisticsFacts | None
    notes: list[str]

    @classmethod
    def of(
        cls,
        metadata: TableMetadata,
        columns: Sequence[str],
        rows: int | None,
        missing: Sequence[int | None],
    ) -> MetadataFacts:
        """The facts for one table whose source columns are ``columns``, given the counted
        rows and missing values per column (``None`` where not counted)."""
        statistics = metadata.statistics
        facts = None
        if statistics is not None:
            # a query may filter rows: its count says nothing about the statistics' age
            is_stale = rows is not None and not metadata.through_query and stale(statistics, rows)
            facts = StatisticsFacts(
                origin=statistics.origin,
                estimated_rows=statistics.rows,
                analyzed_at=statistics.analyzed_at,
                stale=is_stale,
                columns=[
                    ColumnEstimateFacts(
                        column=name,
                        estimated_distinct=round(estimate.distinct, 1),
                        null_fraction=estimate.null_fraction,
                        likely_unique=not is_stale and likely_unique(estimate, statistics.rows),
                    )
                    for name, estimate in zip(columns, statistics.columns, strict=True)
                    if estimate is not None
                ],
            )
        return cls(
            relation=metadata.relation,
            kind=metadata.kind,
            declared_keys=[
                DeclaredKeyFacts.of(key, proof_modes(key, missing_bound(key, missing)))
                for key in metadata.keys
            ],
            statistics=facts,
            notes=[*metadata.notes, *statistics_notes(metadata, rows)],
        )


def metadata_markdown(facts: MetadataFacts, nulls: Nulls | None = None) -> str:
    """The metadata as Markdown sections, each saying what its claims rest on; ``nulls`` is
    the call's mode (``None``: list both)."""
    parts = [f"\n## Declared keys of {facts.relation} ({facts.kind}; database metadata)\n\n"]
    if facts.declared_keys:
        rows = []
        for key in facts.declared_keys:
            modes = [m.value for m in key.proves_unique]
            if nulls is not None:
                proof = "yes" if nulls in key.proves_unique else "no"
            else:
                proof = f"nulls={' and '.join(modes)}" if modes else "no"
            rows.append((key.kind, key.name or "", names(key.columns), proof, key.caveat or ""))
        parts.append(markdown_table(["kind", "name", "columns", "proves unique", "caveat"], rows))
    else:
        parts.append("None declared.\n")
    statistics = facts.statistics
    if statistics is not None and statistics.columns:
        likely = [c.column for c in statistics.columns if c.likely_unique]
        when = f", analyzed {statistics.analyzed_at}" if statistics.analyzed_at else ""
        rows_text = (
            f"{statistics.estimated_rows:g} rows" if statistics.estimated_rows is not None else ""
        )
        parts.append(
            f"\nStatistics ({statistics.origin}{when}; estimates, not proof): {rows_text}"
            + (f"; likely keys: {names(likely)}" if likely else "; no column estimated unique")
            + ".\n"
        )
    for note in facts.notes:
        parts.append(f"\nNote: {note}.\n")
    return "".join(parts)
