"""Column profiles: type, missing values, distinct count and samples, in one or two scans."""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from decimal import Decimal

from uniqueness_server.engine.check import shorten
from uniqueness_server.engine.model import ColumnProfile, Profile
from uniqueness_server.engine.runner import DuckDbRunner
from uniqueness_server.engine.table import Table

SAMPLES = 3
_SAMPLE_ROWS = 200
# tried in order; the first type every present value converts to wins
_TEXT_TYPES = (
    ("integer", "regexp_full_match({c}, '[+-]?[0-9]+')"),
    ("number", "TRY_CAST({c} AS DOUBLE) IS NOT NULL"),
    ("boolean", "lower({c}) IN ('true', 'false')"),
    ("date", "TRY_CAST({c} AS DATE) IS NOT NULL AND length({c}) = 10"),
    ("timestamp", "TRY_CAST({c} AS TIMESTAMP) IS NOT NULL"),
)


def _python_type(values: Sequence[object]) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "empty"
    kinds: set[str] = set()
    for value in present:
        if isinstance(value, bool):
            kinds.add("boolean")
        elif isinstance(value, int):
            kinds.add("integer")
        elif isinstance(value, float | Decimal):
            kinds.add("number")
        elif isinstance(value, dt.datetime):
            kinds.add("timestamp")
        elif isinstance(value, dt.date):
            kinds.add("date")
        else:
            kinds.add("text")
    if kinds == {"integer", "number"}:
        return "number"
    return kinds.pop() if len(kinds) == 1 else "text"


def profile_columns(table: Table) -> Profile:
    """Every column's inferred type, missing count, distinct count and sample values.

    Embedded sources infer types from the text (every value must convert) and count
    distinct values approximately (HyperLogLog); databases count exactly and report the
    driver's value types.
    """
    embedded = isinstance(table.runner, DuckDbRunner)
    parts = ["COUNT(*)"]
    for p in range(len(table.names)):
        c = table.column(p)
        distinct = f"approx_count_distinct({c})" if embedded else f"COUNT(DISTINCT {c})"
        parts += [f"COUNT(*) - COUNT({c})", distinct]
        if embedded:
            parts += [f"COUNT(*) FILTER (WHERE {test.format(c=c)})" for _, test in _TEXT_TYPES]
            parts.append(f"COUNT({c})")
    row = table.query(f"SELECT {', '.join(parts)} FROM {table.relation}")[0]
    sample = table.query(f"SELECT * FROM {table.relation} LIMIT {_SAMPLE_ROWS}")
    width = 3 + len(_TEXT_TYPES) if embedded else 2
    columns: list[ColumnProfile] = []
    for p, name in enumerate(table.names):
        base = 1 + p * width
        values = [r[p] for r in sample]
        if embedded:
            present = int(row[base + width - 1])
            casts = row[base + 2 : base + 2 + len(_TEXT_TYPES)]
            kind = "empty" if not present else "text"
            for (label, _), converted in zip(_TEXT_TYPES, casts, strict=True):
                if present and converted == present:
                    kind = label
                    break
        else:
            kind = _python_type(values)
        samples: list[str] = []
        for value in values:
            text = shorten(value)
            if text is not None and text not in samples:
                samples.append(text)
            if len(samples) == SAMPLES:
                break
        lengths = [len(str(v)) for v in values if v is not None]
        columns.append(
            ColumnProfile(
                name=name,
                type=kind,
                missing=int(row[base]),
                distinct=min(int(row[base + 1]), int(row[0]) - int(row[base])),
                distinct_exact=not embedded,
                average_length=round(sum(lengths) / len(lengths), 2) if lengths else 0.0,
                samples=tuple(samples),
            )
        )
    return Profile(source=table.label, rows=int(row[0]), columns=tuple(columns))
