"""How plausible a found key is as an identifier, and why.

A minimal unique column set is a fact about the data; whether it is a *key* a model should rely
on is a judgement. Uniqueness is accidental for measures (prices, amounts, floats and
timestamps are nearly all different by nature) and for free text, while identifiers tend to be
integers or short codes with names such as ``id``, ``code``, ``number`` or ``sku``. Each column
gets a score in (0, 1] from its name, its values' kind (guessed from a sample of rows) and its
value length; a key's score is the product over its columns, lowered a little per column, so a
wider key needs better columns to outrank a narrower one.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass

PLAUSIBLE = 0.35  # keys scoring below this are left out by ``plausible_only``
NEAR_UNIQUE = 0.9
_HIGH = 0.7
_ID_NAME = re.compile(
    r"(^|[^a-z])(id|ids|key|code|no|nr|num|number|sku|uuid|guid|isbn|ean|iban|ref|"
    r"reference|serial|line|seq|sequence)([^a-z]|$)|id$|code$|number$|_no$",
    re.IGNORECASE,
)
_MEASURE_NAME = re.compile(
    r"price|amount|total|cost|sum|avg|mean|rate|ratio|percent|pct|weight|height|width|"
    r"length|volume|score|balance|value|qty|quantity|lat|lon|lng",
    re.IGNORECASE,
)
_INTEGER = re.compile(r"[+-]?[0-9]+")
_SPACE = re.compile(r"\s")


@dataclass(frozen=True, slots=True)
class ColumnKind:
    """What a column's sampled values look like."""

    kind: str  # integer, number, date, timestamp, boolean, text, empty
    free_text: bool  # long values or words separated by spaces


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _is_temporal(text: str, parse: type[dt.date] | type[dt.datetime]) -> bool:
    try:
        parse.fromisoformat(text)
    except ValueError:
        return False
    return True


def column_kind(values: Sequence[object]) -> ColumnKind:
    """The kind of a column from sample values (text as read, or driver values)."""
    texts = [v if isinstance(v, str) else str(v) for v in values if v is not None]
    if not texts:
        return ColumnKind("empty", False)
    if all(isinstance(v, bool) for v in values if v is not None):
        return ColumnKind("boolean", False)
    if all(isinstance(v, int) for v in values if v is not None) or all(
        _INTEGER.fullmatch(t) for t in texts
    ):
        return ColumnKind("integer", False)
    if all(_is_number(t) for t in texts):
        return ColumnKind("number", False)
    if all(len(t) == 10 and _is_temporal(t, dt.date) for t in texts):
        return ColumnKind("date", False)
    if all(_is_temporal(t, dt.datetime) for t in texts):
        return ColumnKind("timestamp", False)
    spaced = sum(1 for t in texts if _SPACE.search(t.strip()))
    average = sum(len(t) for t in texts) / len(texts)
    return ColumnKind("text", average > 40 or spaced * 2 > len(texts))


@dataclass(frozen=True, slots=True)
class Judgement:
    """A key's plausibility score, its confidence label and the reasons."""

    score: float
    confidence: str  # high, medium, low
    reasons: tuple[str, ...]

    @property
    def plausible(self) -> bool:
        """Whether the key is kept by ``plausible_only``."""
        return self.score >= PLAUSIBLE


@dataclass(frozen=True, slots=True)
class ColumnJudgement:
    """What one column brings to the score of every key holding it (judged once per column:
    thousands of keys share a few hundred columns)."""

    score: float
    reason: str
    near_unique: str | None  # the reason, when the column is nearly unique on its own


def judge_column(
    name: str, kind: ColumnKind, average_length: float, distinct_share: float
) -> ColumnJudgement:
    """Judge one column from its name, kind, value length and distinct share (distinct values
    per row, estimated)."""
    score, why = _column_score(name, kind, average_length)
    near = (
        f"{name} is nearly unique on its own ({distinct_share:.0%} distinct)"
        if distinct_share >= NEAR_UNIQUE
        else None
    )
    return ColumnJudgement(score, why, near)


def _column_score(name: str, kind: ColumnKind, average_length: float) -> tuple[float, str]:
    id_like = bool(_ID_NAME.search(name))
    measure = bool(_MEASURE_NAME.search(name)) and not id_like
    if kind.kind in ("number", "timestamp"):
        score, why = 0.15, f"{name} holds {kind.kind}s, unique by accident more often than not"
    elif kind.free_text:
        score, why = 0.15, f"{name} is free text"
    elif measure:
        score, why = 0.25, f"{name} is named like a measure"
    elif kind.kind == "date":
        score, why = 0.4, f"{name} holds dates"
    elif kind.kind == "boolean":
        score, why = 0.3, f"{name} is a flag"
    elif kind.kind == "integer":
        score, why = (
            (1.0, f"{name} is an integer named like an identifier")
            if id_like
            else (
                0.7,
                f"{name} is an integer",
            )
        )
    elif average_length <= 40:
        score, why = (
            (0.95, f"{name} is a short code named like an identifier")
            if id_like
            else (
                0.6,
                f"{name} is short text",
            )
        )
    else:
        score, why = 0.3, f"{name} holds long text"
    return score, why


def judge_key(columns: Sequence[ColumnJudgement], has_missing: bool) -> Judgement:
    """Score one key from its columns' judgements (:func:`judge_column`)."""
    score = 1.0
    reasons: list[str] = []
    wide = len(columns) > 1
    for column in columns:
        score *= column.score
        reasons.append(column.reason)
        if wide and column.near_unique is not None:
            # nearly unique alone: the few repeats it has are told apart by chance
            score *= 0.5
            reasons.append(column.near_unique)
    score *= 0.9 ** (len(columns) - 1)
    if has_missing:
        score *= 0.6
        reasons.append("it has missing values")
    confidence = "high" if score >= _HIGH else "medium" if score >= PLAUSIBLE else "low"
    return Judgement(round(score, 3), confidence, tuple(reasons))
