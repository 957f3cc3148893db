"""The check path attacked with hostile names and values, compared with brute force.

The embedded check copies the key columns into DuckDB temp tables (``keyed``, ``dup_keys``,
``dup_page``) and reads row numbers from ``rowid``; a header named like one of those, like one
of their aliases (``n``, ``first``) or like the internal column names (``c1``), and key values
that look like SQL, hold control characters or run very long, must change nothing: every
answer equals a plain Python reference over the same rows.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import os
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

import duckdb
import pytest
import sqlalchemy as sa
import yaml  # type: ignore[import-untyped]
from mcp_common import ToolError
from test_uniqueness_exact_paths import _reference_groups
from uniqueness_server.engine import (
    CheckResult,
    DatabaseRegistry,
    Nulls,
    approximate_check,
    check_uniqueness,
    open_file,
)
from uniqueness_server.engine.check import MAX_VALUE_CHARS, ROWS_PER_GROUP, shorten
from uniqueness_testkit import call, tools_for

Row = tuple[str | None, ...]

HEADER = (
    "rowid",
    "keyed",
    "dup_keys",
    "n",
    "first_row",
    "first",
    'say "hi"',
    "two words",
    "ünïcødé ключ",
    "c1",
    "c2",
    "dup_page",
)
LONG = "x" * 5_000
HOSTILE_VALUES: tuple[str | None, ...] = (
    "'); DROP TABLE keyed; --",
    '" OR 1=1 --',
    "SELECT * FROM dup_keys",
    "bell\x07tab\tesc\x1b[31mred",
    "\x01\x02\x1f",
    "line\nbreak",
    " padded ",
    "padded",
    "e\u0301",  # e + combining accent: a different text from the composed é
    "\u00e9",
    "\u202eRTL",
    "snow\u2603man 🦄",
    LONG,
    LONG + "y",  # differs only past the shown length
    "NULL",
    "null",
    "",  # an empty text: a value in JSON, YAML, Parquet and databases, missing in CSV
    None,
)


def _rows(count: int) -> list[Row]:
    """Rows whose every column draws from the hostile values at its own stride, so column
    sets repeat in varied, overlapping groups (and some never repeat)."""
    rows: list[Row] = []
    width = len(HEADER)
    values = len(HOSTILE_VALUES)
    for i in range(count):
        row: list[str | None] = []
        for k in range(width):
            if k == 0:
                row.append(str(i % 37))  # "rowid" repeats: it is data, not the row number
            elif k == 5:
                row.append(str(i))  # "first" is unique
            else:
                row.append(HOSTILE_VALUES[(i * (k + 1) + i // (k + 2)) % values])
        rows.append(tuple(row))
    return rows


def _csv(rows: Sequence[Row]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(HEADER)
    for row in rows:
        writer.writerow(["" if v is None else v for v in row])
    return out.getvalue()


def _as_read_from_csv(rows: Sequence[Row]) -> list[Row]:
    """``rows`` as a CSV file holds them: an empty field is a missing value."""
    return [tuple(None if v == "" else v for v in row) for row in rows]


def _write(path: Path, rows: Sequence[Row]) -> None:
    if path.suffix == ".csv":
        path.write_text(_csv(rows), encoding="utf-8")
    elif path.suffix == ".jsonl":
        text = "".join(json.dumps(dict(zip(HEADER, row, strict=True))) + "\n" for row in rows)
        path.write_text(text, encoding="utf-8")
    elif path.suffix == ".yaml":
        records = [dict(zip(HEADER, row, strict=True)) for row in rows]
        path.write_text(
            yaml.safe_dump(records, allow_unicode=True, sort_keys=False), encoding="utf-8"
        )
    else:
        with duckdb.connect() as con:
            quoted = ['"' + name.replace('"', '""') + '"' for name in HEADER]
            columns = ", ".join(f"{name} VARCHAR" for name in quoted)
            con.execute(f"CREATE TABLE t ({columns})")
            con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(HEADER))})", rows)
            con.execute(f"COPY t TO '{path}' (FORMAT parquet)")


COLUMN_SETS = [
    ("rowid",),
    ("keyed", "dup_keys"),
    ("n", "first_row"),
    ("dup_page", "n"),
    ('say "hi"', "two words"),
    ("ünïcødé ключ",),
    ("c2", "c1"),
    ("c1", "rowid"),
    ("first",),
    ("first", "keyed"),
    ("two words", "c1", "n"),
]


def _expected(
    rows: Sequence[Row], columns: Sequence[str], nulls: Nulls
) -> tuple[int, int, int, int, list[tuple[Row, int, tuple[int, ...]]]]:
    positions = [HEADER.index(name) for name in columns]
    duplicates, distinct, missing = _reference_groups(rows, positions, nulls)
    groups = [
        (tuple(shorten(v) for v in key), len(found), tuple(found[:ROWS_PER_GROUP]))
        for key, found in duplicates
    ]
    return distinct, missing, len(duplicates), sum(len(f) for _, f in duplicates), groups


def _totals(result: CheckResult) -> tuple[bool, int, int, int, int, int]:
    """What a check says in numbers: unique, rows, distinct keys, rows with a missing key
    value, duplicate groups and duplicate rows."""
    return (
        result.unique,
        result.rows,
        result.distinct_keys,
        result.rows_with_missing,
        result.duplicate_groups,
        result.duplicate_rows,
    )


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".jsonl", ".yaml"])
def test_hostile_names_and_values_match_brute_force(tmp_path: Path, suffix: str) -> None:
    written = _rows(400)
    path = tmp_path / f"hostile{suffix}"
    _write(path, written)
    rows = _as_read_from_csv(written) if suffix == ".csv" else written
    table = open_file(path, label=path.name)
    try:
        assert table.names == HEADER
        for columns, nulls in itertools.product(COLUMN_SETS, Nulls):
            distinct, missing, dup_groups, dup_rows, groups = _expected(rows, columns, nulls)
            pages: list[tuple[Row, int, tuple[int, ...]]] = []
            for offset in range(0, max(dup_groups, 1), 40):
                result = check_uniqueness(
                    table, columns, nulls=nulls, better_options=False, limit=40, offset=offset
                )
                expected = (dup_groups == 0, len(rows), distinct, missing, dup_groups, dup_rows)
                assert _totals(result) == expected, (columns, nulls)
                pages += [(g.values, g.count, g.rows) for g in result.examples]
            assert pages == groups, (columns, nulls)
    finally:
        table.close()


def test_long_values_are_grouped_whole_and_shown_cut(tmp_path: Path) -> None:
    # two 5,000-character values differing only in their last character are two keys
    rows: list[Row] = [(LONG,), (LONG + "y",), (LONG,), (LONG + "y",), (LONG + "z",)]
    path = tmp_path / "long.csv"
    path.write_text("v\n" + "".join(f"{row[0]}\n" for row in rows), encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        result = check_uniqueness(table, ["v"], better_options=False)
    finally:
        table.close()
    assert (result.duplicate_groups, result.duplicate_rows, result.distinct_keys) == (2, 4, 3)
    assert [g.rows for g in result.examples] == [(1, 3), (2, 4)]
    for group in result.examples:
        (shown,) = group.values
        assert shown is not None
        assert len(shown) == MAX_VALUE_CHARS
        assert shown.endswith("…")


JSON_AS_WRITTEN = [
    # integers past 2**53 next to a float: read as DOUBLE they were one value
    ("big", [9007199254740993, 9007199254740992, 1.5, 9007199254740993]),
    # integers past 2**64: DOUBLE as well
    ("huge", [2**70, 2**70 + 1, 2**70]),
    # a date with a trailing space: read as DATE it was the date itself
    ("date", ["2020-01-01", "2020-01-01 ", "2020-01-01"]),
    # UUIDs differing in case: read as UUID they were one value, shown lower-case
    ("uuid", ["A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"] * 2),
    # the text "1" and the number 1 stay apart, as do 1 and 1.0 (a column mixing texts and
    # numbers shows each value as JSON, texts in quotes)
    ("mixed", ["1", 1, 1.0, "1"]),
]


@pytest.mark.parametrize(("name", "values"), JSON_AS_WRITTEN, ids=[c[0] for c in JSON_AS_WRITTEN])
@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_json_values_compare_as_written(
    tmp_path: Path, name: str, values: list[object], fmt: str
) -> None:
    records = [{"id": value, "n": i} for i, value in enumerate(values)]
    path = tmp_path / f"{name}.{fmt}"
    if fmt == "json":
        path.write_text(json.dumps(records), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        result = check_uniqueness(table, ["id"], better_options=False)
    finally:
        table.close()
    written = [json.dumps(v) for v in values]  # one spelling per distinct JSON value
    first = {text: written.index(text) + 1 for text in written}
    repeated = [t for t in dict.fromkeys(written) if written.count(t) > 1]
    assert (result.rows, result.distinct_keys) == (len(values), len(first))
    assert [g.rows for g in result.examples] == [
        tuple(i + 1 for i, t in enumerate(written) if t == text) for text in repeated
    ]
    for group, text in zip(result.examples, repeated, strict=True):
        value = values[first[text] - 1]
        shown = value if isinstance(value, str) and name != "mixed" else text
        assert group.values == (shown,)


def test_json_keys_and_kinds_first_seen_late_are_read(tmp_path: Path) -> None:
    # past DuckDB's 20,480-record detection sample: a new key, and a text value in a column
    # of integers, were a read failure; neither may be dropped either
    records: list[dict[str, object]] = [{"a": i} for i in range(25_000)]
    records += [{"a": "late", "b": "x"}, {"a": 2**70, "b": "x"}, {"a": 2**70 + 1}]
    path = tmp_path / "late.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        assert table.names == ("a", "b")
        on_a = check_uniqueness(table, ["a"], better_options=False)
        on_b = check_uniqueness(table, ["b"], nulls=Nulls.DISTINCT, better_options=False)
    finally:
        table.close()
    assert (on_a.unique, on_a.rows, on_a.distinct_keys) == (True, 25_003, 25_003)
    assert (on_b.unique, on_b.rows_with_missing, on_b.duplicate_groups) == (False, 25_001, 1)
    assert [(g.values, g.rows) for g in on_b.examples] == [(("x",), (25_001, 25_002))]


POSTGRES_URL = os.environ.get("MCP_TOOLS_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def hostile_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, str]]:
    """A database holding the hostile rows in a table whose columns carry the hostile names:
    its ``NAME=URL`` option and the table's (hostile) name."""
    table = 'keyed"; dup_keys'
    if request.param == "sqlite":
        url = sa.make_url(f"sqlite:///{tmp_path / 'hostile.db'}")
    elif POSTGRES_URL:
        url = sa.make_url(POSTGRES_URL).set(drivername="postgresql+psycopg")
        table = f"{table} {uuid.uuid4().hex[:8]}"
    else:
        pytest.skip("MCP_TOOLS_TEST_POSTGRES_URL is not set: no PostgreSQL server")
    engine = sa.create_engine(url)
    quote = engine.dialect.identifier_preparer.quote_identifier
    columns = ", ".join(f"{quote(name)} VARCHAR" for name in HEADER)
    with engine.begin() as connection:
        connection.execute(sa.text(f"CREATE TABLE {quote(table)} ({columns})"))
        marks = ", ".join(f":v{i}" for i in range(len(HEADER)))
        connection.execute(
            sa.text(f"INSERT INTO {quote(table)} VALUES ({marks})"),
            [{f"v{i}": v for i, v in enumerate(row)} for row in _rows(300)],
        )
    try:
        yield f"db={url.render_as_string(hide_password=False)}", table
    finally:
        with engine.begin() as connection:
            connection.execute(sa.text(f"DROP TABLE {quote(table)}"))
        engine.dispose()


def test_hostile_names_and_values_in_databases_match_brute_force(
    hostile_database: tuple[str, str],
) -> None:
    option, name = hostile_database
    rows = _rows(300)
    registry = DatabaseRegistry.from_options([option])
    for columns, nulls in itertools.product(COLUMN_SETS, Nulls):
        distinct, missing, dup_groups, dup_rows, groups = _expected(rows, columns, nulls)
        for approximate in (False, True):
            table = registry.open("db", table=name)
            try:
                assert table.names == HEADER
                check = approximate_check if approximate else check_uniqueness
                result = check(table, columns, nulls=nulls, better_options=False, limit=100)
            finally:
                table.close()
            assert _totals(result) == (
                dup_groups == 0,
                len(rows),
                distinct,
                missing,
                dup_groups,
                dup_rows,
            ), (
                columns,
                nulls,
                approximate,
            )
            # databases order groups by size, not by first row, and carry no row numbers
            assert [g.count for g in result.examples] == sorted(
                (count for _, count, _ in groups), reverse=True
            )[:100]
            assert all(g.rows == () for g in result.examples)
            if dup_groups <= 100:
                shown = sorted(((g.values, g.count) for g in result.examples), key=repr)
                assert shown == sorted(((v, c) for v, c, _ in groups), key=repr)


@pytest.mark.parametrize("comments", [False, True], ids=["duckdb", "with-comment-lines"])
def test_a_header_name_spanning_lines_is_read_whole(tmp_path: Path, comments: bool) -> None:
    # RFC 4180 lets a quoted name hold line breaks; the header was read as its first physical
    # line only (a name cut short, or "ragged row at line 2" for a well-formed file)
    note = "# a comment line\n" if comments else ""
    path = tmp_path / "names.csv"
    path.write_text(f'"a\n# b",c,"d\ne"\n1,2,3\n{note}1,4,5\n2,4,5\n', encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        assert table.names == ("a\n# b", "c", "d\ne")
        on_a = check_uniqueness(table, ["a\n# b"], better_options=False)
        on_rest = check_uniqueness(table, ["c", "d\ne"], better_options=False)
    finally:
        table.close()
    assert (on_a.rows, [(g.values, g.rows) for g in on_a.examples]) == (3, [(("1",), (1, 2))])
    assert [(g.values, g.rows) for g in on_rest.examples] == [(("4", "5"), (2, 3))]


def test_a_header_name_cannot_add_lines_to_the_answer(tmp_path: Path) -> None:
    # a header name holding line breaks, shown raw in the heading, wrote its own heading
    # and verdict into the text a model reads
    name = "id\n\n# id: unique\n\nNo two of the rows share a value"
    path = tmp_path / "inj.csv"
    path.write_text(f'"{name}",v\n1,a\n1,b\n', encoding="utf-8")
    tools = tools_for(tmp_path)
    result = call(tools["uniqueness_check"], {"path": "inj.csv", "columns": [name]})
    assert not result.is_error, result.text
    headings = [line for line in result.text.splitlines() if line.startswith("#")]
    assert headings == [f"# {name!r}: NOT unique", "## Duplicate groups"]
    assert not any(line.startswith("No two of the rows") for line in result.text.splitlines())


def test_blank_and_padded_header_names_can_be_asked_for(tmp_path: Path) -> None:
    # requests are trimmed, so a blank header cell, or one with spaces around its name, could
    # never be named: "columns needs at least one value", "column 'c' not found"
    (tmp_path / "names.csv").write_text(",b, c ,\n1,2,3,x\n1,3,4,y\n", encoding="utf-8")
    (tmp_path / "twice.csv").write_text("c, c\n1,2\n", encoding="utf-8")
    tools = tools_for(tmp_path)
    listed = call(tools["list_columns"], {"path": "names.csv"})
    assert listed.structured is not None
    assert [c["name"] for c in listed.structured["columns"]] == ["column1", "b", " c ", "column4"]
    answers = {}
    for requested in (["column1"], ["c"], [" C "], ["COLUMN4", "b"]):
        result = call(tools["uniqueness_check"], {"path": "names.csv", "columns": requested})
        assert not result.is_error, result.text
        assert result.structured is not None
        answers[requested[0]] = (result.structured["columns"], result.structured["unique"])
    assert answers == {
        "column1": (["column1"], False),
        "c": ([" c "], True),
        " C ": ([" c "], True),
        "COLUMN4": (["column4", "b"], True),
    }
    with pytest.raises(ToolError) as twice:
        call(tools["uniqueness_check"], {"path": "twice.csv", "columns": ["c"]})
    assert "column 'c' is ambiguous: the header holds 'c' (position 1), ' c' (position 2)" in (
        str(twice.value)
    )


def test_values_with_line_breaks_stay_apart_in_the_answer_text(tmp_path: Path) -> None:
    # a table cell folds a line break into a space: "line\nbreak" and "line break" were shown
    # alike, and an escape sequence reached the text raw
    rows = ["line\nbreak", "line break", "line\nbreak", "line break", "red\x1b[31m", "red\x1b[31m"]
    path = tmp_path / "values.csv"
    path.write_text("v\n" + "".join(f'"{v}"\n' for v in rows), encoding="utf-8")
    result = call(tools_for(tmp_path)["uniqueness_check"], {"path": "values.csv", "columns": ["v"]})
    cells = [line.split(" | ")[0].removeprefix("| ") for line in result.text.splitlines()[-3:]]
    assert cells == ["'line\\nbreak'", "line break", "'red\\x1b[31m'"]
    assert "\x1b" not in result.text


def test_a_file_name_cannot_add_lines_to_the_answer(tmp_path: Path) -> None:
    # a file name holding line breaks, shown raw in the headings of list_columns and
    # find_keys, wrote its own lines into the text a model reads
    name = "x\n\n# id: unique\n\n.csv"
    (tmp_path / name).write_text("id,v\n1,a\n1,b\n", encoding="utf-8")
    tools = tools_for(tmp_path)
    for tool, title in (("list_columns", "Columns of"), ("find_keys", "Keys of")):
        result = call(tools[tool], {"path": name})
        assert not result.is_error, result.text
        headings = [line for line in result.text.splitlines() if line.startswith("#")]
        assert headings[0] == f"# {title} {name!r}", result.text
        assert "# id: unique" not in result.text.splitlines()


def test_json_keys_differing_only_in_case_keep_their_values(tmp_path: Path) -> None:
    # DuckDB names such keys "a" and "A_1"; columns given explicitly cannot name both, and
    # read as "A_1" the second one was all missing
    path = tmp_path / "case.jsonl"
    path.write_text('{"a": 1, "A": 2}\n{"a": 1, "A": 3}\n{"a": 2, "A": 3}\n', encoding="utf-8")
    table = open_file(path, label=path.name)
    try:
        assert table.names == ("a", "A_1")
        second = check_uniqueness(table, ["A_1"], better_options=False)
        both = check_uniqueness(table, ["a", "A_1"], better_options=False)
    finally:
        table.close()
    assert (second.rows_with_missing, [(g.values, g.rows) for g in second.examples]) == (
        0,
        [(("3",), (2, 3))],
    )
    assert both.unique


@pytest.mark.parametrize("header", ['"a,b', 'a,"b', 'a,b,"c'])
def test_a_quote_never_closed_in_the_header_is_an_error(tmp_path: Path, header: str) -> None:
    # the rest of the file became one column name and the answer said 0 rows
    path = tmp_path / "open.csv"
    path.write_text(f"{header}\n1,2\n3,4\n", encoding="utf-8")
    with pytest.raises(ToolError) as refused:
        open_file(path, label=path.name)
    assert "line 1 of open.csv: a quote opened in the header is never closed" in str(refused.value)


def test_the_delimiter_is_one_character(tmp_path: Path) -> None:
    # ";;" passed the old 1-to-4-bytes check and crashed Python's csv module (TypeError); a
    # quote as delimiter was a DuckDB binder error; one multi-byte character is fine
    (tmp_path / "semi.csv").write_text("a;;b\n1;;2\n1;;3\n", encoding="utf-8")
    (tmp_path / "arrow.csv").write_text("a→b\n1→2\n1→3\n", encoding="utf-8")
    tools = tools_for(tmp_path)
    for delimiter in (";;", '"', "ab"):
        with pytest.raises(ToolError) as refused:
            call(
                tools["uniqueness_check"],
                {"path": "semi.csv", "columns": ["a"], "delimiter": delimiter},
            )
        assert str(refused.value).startswith(
            "delimiter must be one character other than a quote or a line break"
        )
    result = call(
        tools["uniqueness_check"], {"path": "arrow.csv", "columns": ["b"], "delimiter": "→"}
    )
    assert result.structured is not None
    assert (result.structured["rows"], result.structured["unique"]) == (2, True)
