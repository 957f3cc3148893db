"""``list_columns`` on a wide file answers what the per-cell scan of a narrow one answers.

A wide embedded source is profiled from one streamed pass that keeps each column's distinct
values, and its types are tested on those values instead of every cell; the same columns in a
narrow file take the aggregate scan. Both must agree on types, missing counts, lengths and
samples, and the wide answer's distinct counts must be exact.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from uniqueness_server.engine import codes, find_keys, open_file, profile_columns, sql
from uniqueness_server.engine.profile import _SAMPLE_ROWS
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS

ROWS = _SAMPLE_ROWS + 100  # past the rows the scan guesses types from


def _tricky_columns() -> dict[str, list[str]]:
    """Columns whose type turns on one value, often one the first rows never show."""
    n = ROWS
    return {
        "padded": ["007", "7", "-3", "+4"] * (n // 4),  # integers, leading zeros kept as text
        "exponent": [str(i) for i in range(n - 1)] + ["1e5"],  # a number only at the end
        "spaced": [str(i) for i in range(n - 1)] + [" 7"],  # not an integer, still a number
        "late_text": [str(i) for i in range(n - 1)] + ["x"],  # text at the last row
        "booleans": ["TRUE", "false", "True"] * (n // 3) + ["FALSE"] * (n % 3),
        "bad_date": ["2020-02-28"] * (n - 1) + ["2020-02-30"],  # no such day: text
        "dates": ["2020-02-29", "2021-12-31"] * (n // 2),
        "stamps": ["2020-01-01 10:00:00", "2020-01-02T11:30:00"] * (n // 2),
        "gappy": ["", "12", "", "3.5"] * (n // 4),  # empty cells are missing values
        "empty": [""] * n,
        "floats": ["1.5", "-0.25", "inf", "2"] * (n // 4),
    }


def _write(path: Path, columns: dict[str, list[str]]) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows(zip(*columns.values(), strict=True))
    path.write_text(buffer.getvalue(), encoding="utf-8")


def _profile(path: Path) -> dict[str, tuple[object, ...]]:
    table = open_file(path, label=path.name)
    try:
        profile = profile_columns(table)
    finally:
        table.close()
    assert profile.rows == ROWS
    return {
        c.name: (c.type, c.missing, c.distinct, c.distinct_exact, c.average_length, c.samples)
        for c in profile.columns
    }


def test_wide_profile_types_from_distinct_values_match_the_cell_scan(tmp_path: Path) -> None:
    tricky = _tricky_columns()
    assert len(tricky) <= EXACT_DISTINCT_COLUMNS
    filler = {f"f{k}": [str((i * (k + 3)) % (k + 2)) for i in range(ROWS)] for k in range(30)}
    assert len(tricky) + len(filler) > EXACT_DISTINCT_COLUMNS
    _write(tmp_path / "narrow.csv", tricky)
    _write(tmp_path / "wide.csv", {**tricky, **filler})
    narrow = _profile(tmp_path / "narrow.csv")
    wide = _profile(tmp_path / "wide.csv")
    for name, values in tricky.items():
        kind, missing, distinct, exact, length, samples = wide[name]
        assert (kind, missing, length, samples) == (
            narrow[name][0],
            narrow[name][1],
            narrow[name][4],
            narrow[name][5],
        ), name
        assert exact is True
        assert distinct == len({v for v in values if v != ""}), name
    types = {name: wide[name][0] for name in tricky}
    assert types == {
        "padded": "integer",
        "exponent": "number",
        "spaced": "number",
        "late_text": "text",
        "booleans": "boolean",
        "bad_date": "text",
        "dates": "date",
        "stamps": "timestamp",
        "gappy": "number",
        "empty": "empty",
        "floats": "number",
    }
    assert wide["gappy"][1] == ROWS // 2
    assert wide["empty"][1:3] == (ROWS, 0)
    assert wide["f3"][:3] == ("integer", 0, 5)


def test_wide_header_only_file_profiles_empty_columns(tmp_path: Path) -> None:
    names = [f"c{k}" for k in range(EXACT_DISTINCT_COLUMNS + 2)]
    path = tmp_path / "header.csv"
    path.write_text(",".join(names) + "\n", encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        profile = profile_columns(table)
    finally:
        table.close()
    assert profile.rows == 0
    assert {(c.type, c.missing, c.distinct, c.distinct_exact) for c in profile.columns} == {
        ("empty", 0, 0, True)
    }


def test_wide_file_too_large_to_code_is_profiled_by_the_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tricky = _tricky_columns()
    filler = {f"f{k}": [str(i % (k + 2)) for i in range(ROWS)] for k in range(30)}
    _write(tmp_path / "wide.csv", {**tricky, **filler})
    coded = _profile(tmp_path / "wide.csv")
    monkeypatch.setattr(codes, "MAX_CELLS", 1_000)
    # another file of the same rows: a profile is kept with a small file's rows
    _write(tmp_path / "again.csv", {**tricky, **filler})
    scanned = _profile(tmp_path / "again.csv")
    assert {c[3] for c in scanned.values()} == {False}  # HyperLogLog estimates
    for name in coded:
        assert coded[name][:2] + coded[name][4:] == scanned[name][:2] + scanned[name][4:], name


def test_coded_and_profiled_passes_count_the_same_exact_facts(tmp_path: Path) -> None:
    # more rows than one group of the stream, multi-byte text, missing values
    rows = 3 * codes.BATCH_ROWS
    columns = {
        f"c{k}": [
            "" if (i * (k + 1)) % 11 == 0 else f"{'é日' * (k % 3)}{i % (k * 97 + 5)}"
            for i in range(rows)
        ]
        for k in range(EXACT_DISTINCT_COLUMNS + 3)
    }
    _write(tmp_path / "wide.csv", columns)
    table = open_file(tmp_path / "wide.csv", label="wide.csv")
    try:
        positions = range(len(columns))
        matrix = codes.CodeMatrix.encode(table, table.relation, positions, measure=True)
        facts = codes.distinct_values(table, table.relation, positions)
    finally:
        table.close()
    for p, values in enumerate(columns.values()):
        present = [v for v in values if v != ""]
        assert matrix.missing[p] == facts.missing[p] == rows - len(present)
        assert matrix.distinct[p] == len(facts.values[p]) == len(set(present))
        assert matrix.lengths[p] == facts.lengths[p] == sum(len(v) for v in present)
    assert matrix.rows == facts.rows == rows


def test_eight_thousand_columns_are_read_at_the_default_engine_memory(tmp_path: Path) -> None:
    # one query of 8,000 columns took DuckDB's CSV reader past the default 512 MiB of engine
    # memory (--max-engine-memory); the columns are read in runs of PASS_COLUMNS instead, and
    # the facts on either side of each run's edge are exact
    width, count = 8_000, 40
    unique = set(range(0, width, 7))

    def value(p: int, r: int) -> str:
        if p in unique:
            return f"{p}-{r}"
        if p % 10 == 9 and r % 4 == 0:
            return ""  # missing
        return str(r % (p % 11 + 2))

    header = [f"k{p}" for p in range(width)]
    lines = [header] + [[value(p, r) for p in range(width)] for r in range(count)]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(lines)
    path = tmp_path / "eight-thousand.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    assert width > sql.PASS_COLUMNS
    table = open_file(path, label=path.name)
    try:
        profile = profile_columns(table)
        search = find_keys(table, max_columns=1)
    finally:
        table.close()
    assert profile.rows == count
    assert [c.name for c in profile.columns] == header
    for p in (0, 1, sql.PASS_COLUMNS - 1, sql.PASS_COLUMNS, 3 * sql.PASS_COLUMNS, width - 1):
        present = [value(p, r) for r in range(count) if value(p, r)]
        column = profile.columns[p]
        assert (column.distinct, column.missing) == (len(set(present)), count - len(present))
        assert column.samples[0] == present[0]
    assert {key.columns for key in search.keys} == {(f"k{p}",) for p in unique}
