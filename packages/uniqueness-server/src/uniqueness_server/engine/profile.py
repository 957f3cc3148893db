"""Column profiles: type, missing values, distinct count and samples, in one scan.

A wide embedded source whose cells fit in memory as integer codes takes the pass that
``find_keys`` makes (:mod:`.codes`): it gives exact missing and distinct counts and value
lengths, and each column's type is tested on its distinct values only (every present value
converts exactly when every distinct one does), so the tests run over far fewer values than
cells. The aggregate pass below stays for sources of up to ``EXACT_DISTINCT_COLUMNS``
columns (the split ``find_keys``' statistics make), for sources too large to code, and for
databases.

For that pass wide is the hard case: a query holding a handful of filtered aggregates or an
exact ``COUNT(DISTINCT …)`` per column makes DuckDB's memory and time grow with the square of
the column count. So every column gets the same few cheap, unfiltered aggregates in one pass
(``CASE`` instead of ``FILTER``; HyperLogLog instead of exact distinct counts), and a column's
type is verified with the one test its sample values suggest; only columns whose verification
fails run the full cascade of tests, in a second, narrower query.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from decimal import Decimal
from typing import Any

import pyarrow as pa

from uniqueness_server.engine.check import shorten
from uniqueness_server.engine.codes import TooManyCellsError, distinct_values
from uniqueness_server.engine.model import ColumnProfile, Profile
from uniqueness_server.engine.sql import sample_values, sampled_list
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS
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
_TESTS = dict(_TEXT_TYPES)
_TYPE_CHUNK = 50

Register = Callable[[str, pa.Table], AbstractContextManager[None]]
"""Names an Arrow table as a relation of the backend's queries while the context lasts."""


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


def _count_true(test: str, column: str) -> str:
    # CASE, not FILTER: hundreds of filtered aggregates in one query cost DuckDB far more
    return f"COUNT(CASE WHEN {test.format(c=column)} THEN 1 END)"


def _first_types(table: Table, positions: Sequence[int], source: str) -> list[str | None]:
    """For each column, the first type of the cascade every present value in ``source``
    converts to (None: text; "empty" when no value is present).

    Asked in chunks of columns: planning one query with thousands of these tests takes
    DuckDB longer than running it.
    """
    width = 1 + len(_TEXT_TYPES)
    kinds: list[str | None] = []
    for start in range(0, len(positions), _TYPE_CHUNK):
        chunk = positions[start : start + _TYPE_CHUNK]
        parts: list[str] = []
        for p in chunk:
            c = table.column(p)
            parts += [f"COUNT({c})", *(_count_true(test, c) for _, test in _TEXT_TYPES)]
        row = table.query(f"SELECT {', '.join(parts)} FROM {source}")[0]
        for i in range(len(chunk)):
            present, *counts = row[i * width : (i + 1) * width]
            kind: str | None = None if present else "empty"
            for (label, _), converted in zip(_TEXT_TYPES, counts, strict=True):
                if present and converted == present:
                    kind = label
                    break
            kinds.append(kind)
    return kinds


def _dictionary_types(table: Table, values: dict[int, Any], register: Register) -> list[str]:
    """Each column's type from its distinct present values (``values``, by position): the
    first type of the cascade every one of them converts to, with the same tests as a scan of
    every cell, so the answer is the same."""
    count = len(table.names)
    distinct = pa.table(
        {
            "p": pa.array(
                [p for p in range(count) for _ in range(len(values[p]))], type=pa.int32()
            ),
            "v": pa.concat_arrays([values[p].cast(pa.string()) for p in range(count)]),
        }
    )
    tests = ", ".join(_count_true(test, '"v"') for _, test in _TEXT_TYPES)
    with register("profile_values", distinct):
        rows = table.query(f'SELECT p, COUNT("v"), {tests} FROM profile_values GROUP BY p')
    kinds = ["empty"] * count
    for p, present, *converted in rows:
        kinds[p] = "text"
        for (label, _), passed in zip(_TEXT_TYPES, converted, strict=True):
            if passed == present:
                kinds[p] = label
                break
    return kinds


def _embedded_types(
    table: Table, guesses: Sequence[str | None], present: Sequence[int], verified: list[int]
) -> list[str]:
    """Each column's type: the sample's guess where every value passed its test, else the
    first type of the cascade every value passes (one more scan, of those columns only)."""
    kinds: list[str] = []
    retry: list[int] = []
    for p, guess in enumerate(guesses):
        if not present[p]:
            kinds.append("empty")
        elif guess not in (None, "empty") and verified[p] == present[p]:
            kinds.append(str(guess))
        else:
            kinds.append("text")
            if guess is not None:
                retry.append(p)
    if retry:
        for p, kind in zip(retry, _first_types(table, retry, table.relation), strict=True):
            kinds[p] = kind or "text"
    return kinds


def _samples(values: Iterable[Any]) -> tuple[str, ...]:
    """Up to :data:`SAMPLES` distinct values of a column (``values`` in row order), shortened."""
    samples: list[str] = []
    for value in values:
        text = shorten(value)
        if text is not None and text not in samples:
            samples.append(text)
        if len(samples) == SAMPLES:
            break
    return tuple(samples)


def _coded_profile(table: Table, register: Register) -> Profile | None:
    """The profile of a wide embedded source from one coded pass (None when its cells are
    too many to code): every count exact, types from the distinct values."""
    try:
        facts = distinct_values(table, table.relation, range(len(table.names)))
    except TooManyCellsError:
        return None
    kinds = _dictionary_types(table, facts.values, register)
    # a query per run of columns: one of every column of a wide file would pass the
    # engine's memory
    sample = sample_values(table, range(len(table.names)), _SAMPLE_ROWS)
    columns: list[ColumnProfile] = []
    for p, name in enumerate(table.names):
        present = facts.rows - facts.missing[p]
        columns.append(
            ColumnProfile(
                name=name,
                type=kinds[p],
                missing=facts.missing[p],
                distinct=len(facts.values[p]),
                distinct_exact=True,
                average_length=round(facts.lengths[p] / present, 2) if present else 0.0,
                samples=_samples(sample[p]),
            )
        )
    return Profile(source=table.label, rows=facts.rows, columns=tuple(columns))


def _sampled(table: Table) -> str:
    return sampled_list(table, range(len(table.names)))


def profile_columns(table: Table) -> Profile:
    """Every column's inferred type, missing count, distinct count and sample values.

    Sources read as text (files) infer types from the text, every value having to convert
    (:func:`text_profile`); databases report their driver's value types and count distinct
    values exactly (:func:`typed_profile`). The backend picks. Average lengths cover every
    present value.
    """
    return table.backend.profile(table)


def text_profile(table: Table, register: Register) -> Profile:
    """The profile of a source whose values are text, in an engine with DuckDB's SQL (types
    tested with its functions; ``register`` names an Arrow table as a relation for a query).

    Distinct values are counted exactly when the source is wide enough to take the coded pass,
    approximately (HyperLogLog) otherwise.
    """
    if len(table.names) > EXACT_DISTINCT_COLUMNS:
        coded = _coded_profile(table, register)
        if coded is not None:
            return coded
    sample = table.query(f"SELECT {_sampled(table)} FROM {table.relation} LIMIT {_SAMPLE_ROWS}")
    if len(sample) < _SAMPLE_ROWS:
        return _whole_sample_profile(table, sample, register)
    head = "profile_sample"
    # values cut as samples are (200 rows of 1.9 MB were 380 MB of the engine's memory): a
    # guess from a cut value is only a guess, verified on every whole value below
    table.backend.execute(
        f"CREATE OR REPLACE TEMP TABLE {head} AS SELECT {_sampled(table)} FROM {table.relation} "
        f"LIMIT {_SAMPLE_ROWS}"
    )
    guesses = _first_types(table, range(len(table.names)), head)
    parts = ["COUNT(*)"]
    for p in range(len(table.names)):
        c = table.column(p)
        guess = guesses[p]
        parts += [
            f"COUNT({c})",
            f"approx_count_distinct({c})",
            f"SUM(LENGTH({table.backend.as_text(c)}))",
            _count_true(_TESTS[guess], c) if guess in _TESTS else "0",
        ]
    row = table.query(f"SELECT {', '.join(parts)} FROM {table.relation}")[0]
    present = [int(row[1 + p * 4]) for p in range(len(table.names))]
    verified = [int(row[4 + p * 4]) for p in range(len(table.names))]
    kinds = _embedded_types(table, guesses, present, verified)
    return _profile(table, row, 4, present, kinds, sample, exact=False)


def _whole_sample_profile(
    table: Table, sample: Sequence[Sequence[Any]], register: Register
) -> Profile:
    """The profile of a text source whose sample holds every row: counted exactly from the
    sample itself, types tested on each column's distinct values in one query (whose size
    does not grow with the columns: planning a test per column cost more than the rest)."""
    columns: list[ColumnProfile] = []
    values: dict[int, Any] = {}
    for p in range(len(table.names)):
        present = [r[p] for r in sample if r[p] is not None]
        values[p] = pa.array(list(dict.fromkeys(present)), type=pa.string())
    kinds = _dictionary_types(table, values, register)
    for p, name in enumerate(table.names):
        present = [r[p] for r in sample if r[p] is not None]
        columns.append(
            ColumnProfile(
                name=name,
                type=kinds[p],
                missing=len(sample) - len(present),
                distinct=len(values[p]),
                distinct_exact=True,
                average_length=round(sum(map(len, present)) / len(present), 2) if present else 0.0,
                samples=_samples(r[p] for r in sample),
            )
        )
    return Profile(source=table.label, rows=len(sample), columns=tuple(columns))


def typed_profile(table: Table) -> Profile:
    """The profile of a database source: the driver's value types (of the first rows) and
    exact distinct counts, computed where the rows live."""
    sample = table.query(f"SELECT {_sampled(table)} FROM {table.relation} LIMIT {_SAMPLE_ROWS}")
    parts = ["COUNT(*)"]
    for p in range(len(table.names)):
        c = table.column(p)
        parts += [f"COUNT({c})", f"COUNT(DISTINCT {c})", f"SUM(LENGTH({table.backend.as_text(c)}))"]
    row = table.query(f"SELECT {', '.join(parts)} FROM {table.relation}")[0]
    present = [int(row[1 + p * 3]) for p in range(len(table.names))]
    # present values, none of them sampled: all too long to fetch, so text
    kinds = [
        "text" if kind == "empty" and present[p] else kind
        for p, kind in enumerate(
            _python_type([r[p] for r in sample]) for p in range(len(table.names))
        )
    ]
    return _profile(table, row, 3, present, kinds, sample, exact=True)


def _profile(
    table: Table,
    row: Sequence[Any],
    width: int,
    present: Sequence[int],
    kinds: Sequence[str],
    sample: Sequence[Sequence[Any]],
    *,
    exact: bool,
) -> Profile:
    """The profile from one aggregate row holding, per column, ``width`` values starting with
    its present count, distinct count and total length."""
    rows = int(row[0])
    columns: list[ColumnProfile] = []
    for p, name in enumerate(table.names):
        base = 1 + p * width
        total_length = int(row[base + 2] or 0)
        columns.append(
            ColumnProfile(
                name=name,
                type=kinds[p],
                missing=rows - present[p],
                distinct=min(int(row[base + 1]), present[p]),
                distinct_exact=exact,
                average_length=round(total_length / present[p], 2) if present[p] else 0.0,
                samples=_samples(r[p] for r in sample),
            )
        )
    return Profile(source=table.label, rows=rows, columns=tuple(columns))
