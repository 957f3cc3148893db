"""The reference's CSV edge cases, checked through the engine on real files."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest
from mcp_common import ToolError
from uniqueness_server.engine import CheckResult, Nulls, check_uniqueness, find_keys, open_file
from uniqueness_testkit import household_csv, write


def check(path: Path, columns: list[str], **options: Any) -> CheckResult:
    table = open_file(path, label=path.name, **options)
    try:
        return check_uniqueness(table, columns)
    finally:
        table.close()


def failure(path: Path, columns: list[str], **options: Any) -> str:
    with pytest.raises(ToolError) as caught:
        check(path, columns, **options)
    return str(caught.value)


def test_household_answers_as_the_anchor(tmp_path: Path) -> None:
    path = write(tmp_path / "household.csv", household_csv())
    assert not check(path, ["year1"]).unique
    assert check(path, ["income"]).unique
    assert check(path, ["YEAR1", "HLPI_NAME"]).unique
    message = failure(path, ["nonExistingColumn"])
    assert "nonExistingColumn" in message
    assert "hlpi_name, year1" in message


def test_better_options_are_the_minimal_subsets(tmp_path: Path) -> None:
    path = write(tmp_path / "household.csv", household_csv())
    result = check(path, ["year1", "hlpi_name", "income"])
    assert result.unique
    assert sorted(result.better_options) == [("income",), ("year1", "hlpi_name")]
    assert result.minimal is False
    single = check(path, ["income"])
    assert single.better_options == ()
    assert single.minimal is None


def test_reference_second_example(tmp_path: Path) -> None:
    path = write(tmp_path / "abc.csv", "a,b,c\n1,x,p\n1,y,p\n2,x,q\n")
    result = check(path, ["a", "b", "c"])
    assert sorted(result.better_options) == [("a", "b"), ("b", "c")]


def test_duplicate_groups_carry_counts_and_data_row_numbers(tmp_path: Path) -> None:
    path = write(tmp_path / "d.csv", "id,name\n1,a\n2,b\n1,c\n3,d\n2,e\n1,f\n")
    result = check(path, ["id"])
    assert not result.unique
    assert result.rows == 6
    assert result.distinct_keys == 3
    assert result.duplicate_groups == 2
    assert result.duplicate_rows == 5
    groups = [(g.values, g.count, g.rows) for g in result.examples]
    assert groups == [(("1",), 3, (1, 3, 6)), (("2",), 2, (2, 5))]


def test_ragged_row_is_a_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path / "ragged.csv", "id,name,city\n1,Ann,Warsaw\n2,Bob\n3,Cid,Krakow\n")
    message = failure(path, ["id"])
    assert "ragged row at line 3" in message
    assert "header has 3 fields but the row has 2" in message


def test_case_only_duplicate_header_names_are_ambiguous(tmp_path: Path) -> None:
    path = write(tmp_path / "case.csv", "id,ID,name\n1,1,a\n1,2,b\n")
    message = failure(path, ["id"])
    assert "ambiguous" in message
    assert "'ID' (position 2)" in message
    assert check(path, ["name"]).unique


def test_exactly_duplicate_header_names_are_ambiguous_but_positions_work(tmp_path: Path) -> None:
    path = write(tmp_path / "dup.csv", "id,id,v\n1,1,a\n1,2,b\n")
    assert "ambiguous" in failure(path, ["id"])
    assert check(path, ["column1"], header_row=0).unique is False
    assert check(path, ["column2"], header_row=0).unique


def test_requesting_a_column_twice_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "household.csv", household_csv())
    assert "requested twice" in failure(path, ["year1", "YEAR1"])


def test_empty_file_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "empty.csv", "")
    assert "is empty" in failure(path, ["id"])


def test_header_only_file_has_no_rows_and_is_unique(tmp_path: Path) -> None:
    path = write(tmp_path / "header.csv", "id,name\n")
    result = check(path, ["id", "name"])
    assert result.unique
    assert result.rows == 0


def test_header_row_past_the_end_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "short.csv", "id\n1\n")
    assert "past the end" in failure(path, ["id"], header_row=5)


def test_header_row_that_is_a_comment_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "c.csv", "# produced by a tool\nid\n1\n")
    assert "is a comment" in failure(path, ["id"], header_row=1)
    assert check(path, ["id"], header_row=2).rows == 1


def test_comment_lines_are_skipped_and_hashes_inside_values_kept(tmp_path: Path) -> None:
    path = write(tmp_path / "c.csv", "id,name\n1,a#1\n# a note\n2,a#1\n  # indented note\n")
    result = check(path, ["name"])
    assert result.rows == 2
    assert not result.unique
    assert result.examples[0].values == ("a#1",)
    assert result.examples[0].rows == (1, 2)


def test_blank_lines_are_not_rows_of_a_multi_column_file(tmp_path: Path) -> None:
    path = write(tmp_path / "b.csv", "id,v\n1,a\n\n2,b\n\n")
    result = check(path, ["id"])
    assert result.unique
    assert result.rows == 2


def test_blank_lines_of_a_one_column_file_are_missing_values(tmp_path: Path) -> None:
    # as in the anchor: a blank line is a row holding one empty value; two of them collide
    path = write(tmp_path / "b.csv", "id\n1\n\n2\n\n")
    result = check(path, ["id"])
    assert not result.unique
    assert result.examples[0].values == (None,)
    assert result.examples[0].rows == (2, 4)


def test_values_compare_as_exact_text(tmp_path: Path) -> None:
    path = write(tmp_path / "t.csv", "id,v\n01,a\n1,b\n1.0,c\n a,d\na,e\nA,f\n")
    assert check(path, ["id"]).unique
    assert check(path, ["id", "v"]).unique
    spaced = write(tmp_path / "sp.csv", "k\n a\na\nA\n")
    assert check(spaced, ["k"]).unique


def test_missing_values_follow_nulls(tmp_path: Path) -> None:
    path = write(tmp_path / "n.csv", "id,v\n,a\n,b\n1,c\n")
    table = open_file(path, label="n.csv")
    try:
        equal = check_uniqueness(table, ["id"], nulls=Nulls.EQUAL)
        distinct = check_uniqueness(table, ["id"], nulls=Nulls.DISTINCT)
    finally:
        table.close()
    assert not equal.unique
    assert equal.examples[0].values == (None,)
    assert distinct.unique
    assert distinct.rows_with_missing == 2
    assert distinct.distinct_keys == 3
    assert equal.rows_with_missing == 2  # counted whichever way missing values compare


def test_rows_with_missing_are_counted_when_the_key_is_unique(tmp_path: Path) -> None:
    path = write(tmp_path / "n.csv", "id,v\n,a\n1,b\n2,\n3,c\n")
    table = open_file(path, label="n.csv")
    try:
        results = [check_uniqueness(table, ["id", "v"], nulls=n) for n in Nulls]
    finally:
        table.close()
    assert [(r.unique, r.rows_with_missing) for r in results] == [(True, 2), (True, 2)]


def test_truncated_gzip_is_an_error_never_unique(tmp_path: Path) -> None:
    body = "id\n" + "".join(f"{i}\n" for i in range(200_000))
    whole = gzip.compress(body.encode())
    small = write(tmp_path / "small.csv.gz", whole[: len(whole) // 40])
    large = write(tmp_path / "large.csv.gz", whole[: len(whole) - 50])
    for path in (small, large):
        assert "truncated or corrupt" in failure(path, ["id"])


def test_gzip_is_detected_by_magic_bytes_not_name(tmp_path: Path) -> None:
    text = household_csv()
    plain = write(tmp_path / "plain.csv", text)
    disguised = write(tmp_path / "disguised.csv", text, compress=True)
    named = write(tmp_path / "named.csv.gz", text)
    for path in (plain, disguised, named):
        assert check(path, ["year1", "hlpi_name"]).rows == 70


def test_invalid_utf8_is_a_clear_error(tmp_path: Path) -> None:
    early = write(tmp_path / "early.csv", b"id,name\n1,\xff\n")
    rows = b"".join(b"%d\n" % i for i in range(100_000))
    late = write(tmp_path / "late.csv", b"id\n" + rows + b"\xfe\n")
    assert "not valid UTF-8" in failure(early, ["id"])
    assert "not valid UTF-8" in failure(late, ["id"])


def test_quoted_multiline_fields_and_embedded_delimiters(tmp_path: Path) -> None:
    path = write(tmp_path / "q.csv", 'id,text\n1,"a,b\nc"\n2,"x ""quoted"""\n3,"a,b\nc"\n')
    result = check(path, ["text"])
    assert result.rows == 3
    assert not result.unique
    assert result.examples[0].values == ("a,b\nc",)
    assert result.examples[0].rows == (1, 3)


def test_bom_is_dropped_from_the_first_header_name(tmp_path: Path) -> None:
    path = write(tmp_path / "bom.csv", "\ufeffid,name\n1,a\n2,b\n")
    assert check(path, ["id"]).unique


def test_tsv_and_other_delimiters_are_sniffed(tmp_path: Path) -> None:
    tsv = write(tmp_path / "x.tsv", "id\tname\n1\ta,b\n2\ta,b\n")
    semi = write(tmp_path / "x.csv", "id;name\n1;a\n1;b\n")
    assert not check(tsv, ["name"]).unique
    assert not check(semi, ["id"]).unique
    assert check(semi, ["id", "name"], delimiter=";").unique


def test_header_row_zero_names_columns_by_position(tmp_path: Path) -> None:
    path = write(tmp_path / "nohead.csv", "1,a\n2,a\n")
    table = open_file(path, label="nohead.csv", header_row=0)
    try:
        assert table.names == ("column1", "column2")
        assert check_uniqueness(table, ["column1"]).unique
        assert not check_uniqueness(table, ["COLUMN2"]).unique
    finally:
        table.close()


def test_header_row_two_skips_a_preamble(tmp_path: Path) -> None:
    path = write(tmp_path / "pre.csv", "exported 2026-01-01\nid,name\n1,a\n2,a\n")
    result = check(path, ["id"], header_row=2)
    assert result.unique
    assert result.rows == 2


def test_find_keys_on_household(tmp_path: Path) -> None:
    path = write(tmp_path / "household.csv", household_csv())
    table = open_file(path, label="household.csv")
    try:
        search = find_keys(table, max_columns=2)
    finally:
        table.close()
    keys = [set(k.columns) for k in search.keys]
    assert {"income"} in keys
    assert {"year1", "hlpi_name"} in keys
    assert all(len(k) <= 2 for k in keys)
    assert [len(k) for k in keys] == sorted(len(k) for k in keys)


def test_crlf_line_ends_leave_no_stray_carriage_returns(tmp_path: Path) -> None:
    path = write(tmp_path / "crlf.csv", "id,name\r\n1,a\r\n2,a\r\n")
    result = check(path, ["name"])
    assert result.examples[0].values == ("a",)


def test_pipe_delimiter_is_literal_and_trailing_empty_field_kept(tmp_path: Path) -> None:
    path = write(tmp_path / "pipe.csv", "id|name|note\n1|Adam|\n2|Eve|\n")
    table = open_file(path, label="pipe.csv")
    try:
        assert table.names == ("id", "name", "note")
        notes = check_uniqueness(table, ["note"])
    finally:
        table.close()
    assert not notes.unique
    assert notes.examples[0].values == (None,)


def test_leading_spaces_are_part_of_the_value(tmp_path: Path) -> None:
    path = write(tmp_path / "sp.csv", "state\n NJ\nNJ\n")
    assert check(path, ["state"]).unique


def test_a_comment_past_the_sniffed_prefix_is_a_clear_error(tmp_path: Path) -> None:
    rows = "".join(f"{i},x\n" for i in range(40_000))
    path = write(tmp_path / "late.csv", "id,v\n" + rows + "# trailing note\n")
    message = failure(path, ["id"])
    assert "line 40002" in message
    assert "# trailing note" in message


# what pandas' DataFrame({"id": [1, 2, 3], "note": ["a\rb", "c", "d\re"], "x": [...]}).to_csv()
# writes: lines end with LF, the carriage returns stay unquoted inside the values
PANDAS_CR = b"id,note,x\n1,a\rb,p\n2,c,q\n3,d\re,r\n"


def _rows(path: Path) -> list[tuple[Any, ...]]:
    table = open_file(path, label=path.name)
    try:
        return table.query("SELECT * FROM src")
    finally:
        table.close()


@pytest.mark.parametrize("compress", [False, True])
def test_a_carriage_return_inside_a_value_of_an_lf_file_is_part_of_it(
    tmp_path: Path, compress: bool
) -> None:
    # as pandas.read_csv(lineterminator="\n") reads the file pandas wrote: three rows
    path = write(tmp_path / "notes.csv", PANDAS_CR, compress=compress)
    assert _rows(path) == [("1", "a\rb", "p"), ("2", "c", "q"), ("3", "d\re", "r")]
    assert check(path, ["note"]).unique
    assert check(path, ["x"]).rows == 3


def test_a_carriage_return_far_down_an_lf_file_is_found(tmp_path: Path) -> None:
    body = b"".join(b"%d,v%d\n" % (i, i) for i in range(60_000))  # far past the sniffed prefix
    path = write(tmp_path / "late.csv", b"id,v\n" + body + b"60000,late\rvalue\n")
    rows = _rows(path)
    assert len(rows) == 60_001
    assert rows[-1] == ("60000", "late\rvalue")


def test_a_carriage_return_never_reshapes_rows_silently(tmp_path: Path) -> None:
    # split at the CR, this line would be two rows of two fields: read as data, it is one
    # ragged row, and says so
    path = write(tmp_path / "shaped.csv", b"a,b\n1,2\r3,4\n5,6\n")
    assert "ragged row at line 2" in failure(path, ["a"])


def test_crlf_files_and_comments_keep_their_line_ends(tmp_path: Path) -> None:
    crlf = write(tmp_path / "crlf.csv", b"id,v\r\n1,a\r\n2,b\r\n")
    assert _rows(crlf) == [("1", "a"), ("2", "b")]
    commented = write(tmp_path / "commented.csv", b"id,v\n# exported\n1,a\rb\n2,c\n")
    assert _rows(commented) == [("1", "a\rb"), ("2", "c")]
    header = write(tmp_path / "header.csv", b"id,note\rtext\n1,a\n")
    table = open_file(header, label="header.csv")
    try:
        assert table.names == ("id", "note\rtext")
    finally:
        table.close()
