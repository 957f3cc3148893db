"""The engine's vocabulary: options and results, plain data with no behaviour."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Nulls(StrEnum):
    """How missing values compare inside a key."""

    EQUAL = "equal"  # two missing values collide, as in the anchor
    DISTINCT = "distinct"  # SQL UNIQUE: a row with a missing key value never collides


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


@dataclass(frozen=True, slots=True)
class KeySearch:
    """All minimal keys up to ``max_columns`` columns, ranked best first."""

    source: str
    rows: int
    searched_columns: tuple[str, ...]
    max_columns: int
    keys: tuple[Key, ...]
    candidates_checked: int
    full_checks: int
    notes: tuple[str, ...] = field(default=())
    implausible_left_out: int = 0
