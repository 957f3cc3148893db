"""The engine's vocabulary: options and results, plain data with no behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

MAX_KEY_COLUMNS = 6
"""The largest key size a key search accepts."""
MAX_BETTER_OPTION_COLUMNS = 16
"""The largest unique column set whose smaller keys a check looks for (``better_options``)."""
MAX_VALUE_CHARS = 200
"""Longest value an answer shows (a longer one is cut, the cut marked)."""


class Nulls(StrEnum):
    """How missing values compare inside a key."""

    EQUAL = "equal"  # two missing values collide, as in the anchor
    DISTINCT = "distinct"  # SQL UNIQUE: a row with a missing key value never collides


@dataclass(frozen=True, slots=True)
class DeclaredKey:
    """A PRIMARY KEY, UNIQUE constraint or unique index the database declares on a table."""

    kind: str  # "primary key", "unique constraint" or "unique index"
    name: str | None
    columns: tuple[str, ...]  # column names; an indexed expression appears as its text
    positions: tuple[int, ...] | None  # source positions; None when not all plain columns
    nulls_distinct: bool = True  # False: PostgreSQL NULLS NOT DISTINCT
    not_null: bool = False  # every column is declared NOT NULL
    caveat: str | None = None  # why it is not a key of every row read; None: it is


@dataclass(frozen=True, slots=True)
class ColumnEstimate:
    """What the database's statistics (ANALYZE) estimate about one column; never proof."""

    distinct: float  # estimated distinct non-missing values
    null_fraction: float | None  # None where the statistics do not say


@dataclass(frozen=True, slots=True)
class Statistics:
    """The planner statistics of a table: estimates from its last ANALYZE."""

    origin: str  # "pg_stats" or "sqlite_stat1"
    rows: float | None  # estimated rows; None when unknown
    columns: tuple[ColumnEstimate | None, ...]  # by source position
    analyzed_at: str | None = None


@dataclass(frozen=True, slots=True)
class TableMetadata:
    """What a database declares and estimates about the table a source reads."""

    relation: str  # the relation the metadata describes, e.g. public.orders
    kind: str  # table, view, materialized view, partitioned table, …
    keys: tuple[DeclaredKey, ...]
    statistics: Statistics | None
    notes: tuple[str, ...] = ()
    through_query: bool = False  # read for a query that filters the relation's rows


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    """One key value shared by several rows."""

    values: tuple[str | None, ...]
    count: int
    rows: tuple[int, ...]  # 1-based data-row numbers; empty for database sources


@dataclass(frozen=True, slots=True)
class CheckResult:
    """The answer to "can these columns serve as a key?"."""

    source: str
    columns: tuple[str, ...]
    unique: bool
    rows: int
    distinct_keys: int
    duplicate_groups: int
    duplicate_rows: int
    rows_with_missing: int
    examples: tuple[DuplicateGroup, ...]
    better_options: tuple[tuple[str, ...], ...] = ()
    minimal: bool | None = None  # None when no subset search ran
    row_numbers: bool = True
    approximation: Approximation | None = None  # set when approximate mode was asked for
    basis: str = "scanned"  # "declared": the verdict comes from a declared key, not a scan
    declared: DeclaredKey | None = None  # the declared key inside the columns, if any
    declared_proves: tuple[Nulls, ...] = ()  # nulls modes under which it proves uniqueness
    notes: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Approximation:
    """How an approximate-mode check reached its answer (see :mod:`.approximate`).

    ``exact`` answers were confirmed by the exact check; the others are "probably unique"
    with an estimated distinct-key count inside ``[lower, upper]`` at ``sigmas`` standard
    deviations. Under ``nulls=distinct`` each row with a missing key value counts as its own
    key, as in the exact answer.
    """

    method: str
    exact: bool
    estimate: int | None = None
    lower: int | None = None
    upper: int | None = None
    sigmas: float = 3.0
    sketch_keys: int = 0  # key hashes the sketch kept


@dataclass(frozen=True, slots=True)
class ColumnProfile:
    """What an agent needs to know about one column before choosing a key."""

    name: str
    type: str
    missing: int
    distinct: int
    distinct_exact: bool
    average_length: float
    samples: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Profile:
    """The columns and row count of a source."""

    source: str
    rows: int
    columns: tuple[ColumnProfile, ...]


@dataclass(frozen=True, slots=True)
class Key:
    """One minimal unique column combination, with the facts it is ranked by."""

    columns: tuple[str, ...]
    has_missing: bool
    average_length: float
    score: float = 1.0  # plausibility as an identifier, 0..1 (see :mod:`.plausibility`)
    confidence: str = "high"  # high, medium or low
    reasons: tuple[str, ...] = ()
    basis: str = "scanned"  # "declared": a declared key proved it, no scan


@dataclass(frozen=True, slots=True)
class KeySearch:
    """The minimal keys up to ``max_columns`` columns, ranked best first: the page asked
    for (all of them unless a page was asked for) and how many were found."""

    source: str
    rows: int
    searched_columns: tuple[str, ...]
    max_columns: int
    keys: tuple[Key, ...]
    keys_found: int
    candidates_checked: int
    full_checks: int
    notes: tuple[str, ...] = field(default=())
    implausible_left_out: int = 0
    metadata: TableMetadata | None = None
    missing: tuple[int | None, ...] = ()  # missing values by source position (None: not counted)
    declared_used: int = 0  # declared keys known unique before the search (never checked)
