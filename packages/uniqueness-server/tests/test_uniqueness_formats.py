"""Every supported format, plain and gzip-compressed, gives the same rows and answers."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from pathlib import Path

import duckdb
import openpyxl
import pytest
from mcp_common import ToolError
from uniqueness_server.engine import check_uniqueness, find_keys, open_file
from uniqueness_testkit import write

PEOPLE = [
    {"id": "1", "name": "Ann", "address": {"city": "Warsaw", "zip": "00-001"}},
    {"id": "2", "name": "Bob", "address": {"city": "Krakow", "zip": "30-001"}},
    {"id": "3", "name": "Ann", "address": {"city": "Warsaw", "zip": "00-002"}},
]


def _json() -> bytes:
    return json.dumps(PEOPLE).encode()


def _jsonl() -> bytes:
    return "".join(json.dumps(p) + "\n" for p in PEOPLE).encode()


def _yaml() -> bytes:
    lines = ["people:"]
    for p in PEOPLE:
        address = p["address"]
        assert isinstance(address, dict)
        lines += [
            f"  - id: '{p['id']}'",
            f"    name: {p['name']}",
            "    address:",
            f"      city: {address['city']}",
            f"      zip: '{address['zip']}'",
        ]
    return ("\n".join(lines) + "\n").encode()


def _toon() -> bytes:
    lines = [f"people[{len(PEOPLE)}]:"]
    for p in PEOPLE:
        address = p["address"]
        assert isinstance(address, dict)
        lines += [
            f"  - id: {p['id']}",
            f"    name: {p['name']}",
            "    address:",
            f"      city: {address['city']}",
            f"      zip: {address['zip']}",
        ]
    return ("\n".join(lines) + "\n").encode()


def _xlsx() -> bytes:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["id", "name", "address.city", "address.zip"])
    for p in PEOPLE:
        address = p["address"]
        assert isinstance(address, dict)
        sheet.append([int(str(p["id"])), p["name"], address["city"], address["zip"]])
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _csv() -> bytes:
    rows = ["id,name,address.city,address.zip"]
    for p in PEOPLE:
        address = p["address"]
        assert isinstance(address, dict)
        rows.append(f"{p['id']},{p['name']},{address['city']},{address['zip']}")
    return ("\n".join(rows) + "\n").encode()


FORMATS: dict[str, Callable[[], bytes]] = {
    "people.csv": _csv,
    "people.json": _json,
    "people.jsonl": _jsonl,
    "people.yaml": _yaml,
    "people.toon": _toon,
    "people.xlsx": _xlsx,
}


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("name", sorted(FORMATS))
def test_every_format_reads_the_same_table(name: str, compressed: bool, tmp_path: Path) -> None:
    path = write(
        tmp_path / (name + (".gz" if compressed else "")), FORMATS[name](), compress=compressed
    )
    table = open_file(path, label=path.name)
    try:
        assert set(table.names) == {"id", "name", "address.city", "address.zip"}
        assert check_uniqueness(table, ["id"]).unique
        name_check = check_uniqueness(table, ["name"])
        assert not name_check.unique
        assert name_check.examples[0].rows == (1, 3)
        assert not check_uniqueness(table, ["address.city"]).unique
        assert check_uniqueness(table, ["name", "address.zip"]).unique
        keys = {k.columns for k in find_keys(table).keys}
        assert ("id",) in keys
        assert ("address.zip",) in keys
    finally:
        table.close()


def test_parquet_is_read_in_place(tmp_path: Path) -> None:
    path = tmp_path / "people.parquet"
    with duckdb.connect() as connection:
        connection.execute(
            f"COPY (SELECT * FROM (VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Ann')) t(id, name)) "
            f"TO '{path}' (FORMAT parquet)"
        )
    table = open_file(path, label="people.parquet")
    try:
        assert table.names == ("id", "name")
        assert check_uniqueness(table, ["id"]).unique
        assert not check_uniqueness(table, ["name"]).unique
    finally:
        table.close()


def test_gzip_compressed_parquet_is_read_in_memory(tmp_path: Path) -> None:
    plain = tmp_path / "p.parquet"
    with duckdb.connect() as connection:
        connection.execute(
            f"COPY (SELECT * FROM (VALUES (1, 'Ann'), (2, 'Bob'), (3, 'Ann')) t(id, name)) "
            f"TO '{plain}' (FORMAT parquet)"
        )
    packed = write(tmp_path / "people.bin", gzip.compress(plain.read_bytes()))
    plain.unlink()
    other = write(tmp_path / "other.bin", gzip.compress(b"PAR1"))
    table = open_file(packed, label="people.bin", fmt="parquet")
    try:
        assert table.names == ("id", "name")
        assert check_uniqueness(table, ["id"]).unique
        assert not check_uniqueness(table, ["name"]).unique
    finally:
        table.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.bin", "people.bin"]
    with pytest.raises(ToolError):
        open_file(other, label="other.bin", fmt="parquet")


def test_two_gzip_parquet_sources_open_at_once_stay_apart(tmp_path: Path) -> None:
    tables = []
    for name, rows in (("a", "(1), (2)"), ("b", "(7), (7), (8)")):
        plain = tmp_path / f"{name}.parquet"
        with duckdb.connect() as connection:
            connection.execute(
                f"COPY (SELECT * FROM (VALUES {rows}) t(v)) TO '{plain}' (FORMAT parquet)"
            )
        packed = write(tmp_path / f"{name}.parquet.gz", gzip.compress(plain.read_bytes()))
        tables.append(open_file(packed, label=packed.name))
    try:
        assert check_uniqueness(tables[0], ["v"]).unique
        assert not check_uniqueness(tables[1], ["v"]).unique
    finally:
        for table in tables:
            table.close()


def test_json_numbers_and_strings_compare_as_text(tmp_path: Path) -> None:
    path = write(tmp_path / "ids.jsonl", '{"id": "01"}\n{"id": "1"}\n')
    table = open_file(path, label="ids.jsonl")
    try:
        assert check_uniqueness(table, ["id"]).unique
    finally:
        table.close()


def test_toon_tabular_array_and_quoted_values(tmp_path: Path) -> None:
    text = 'users[3]{id,name,role}:\n  1,"Smith, Ann",admin\n  2,Bob,user\n  3,"Smith, Ann",user\n'
    path = write(tmp_path / "users.toon", text)
    table = open_file(path, label="users.toon")
    try:
        result = check_uniqueness(table, ["name"])
        assert result.examples[0].values == ("Smith, Ann",)
        assert check_uniqueness(table, ["name", "role"]).unique
    finally:
        table.close()


def test_toon_count_mismatch_is_an_error(tmp_path: Path) -> None:
    path = write(tmp_path / "bad.toon", "users[3]{id}:\n  1\n  2\n")
    with pytest.raises(ToolError, match="declares 3 items but holds 2"):
        open_file(path, label="bad.toon")


def test_yaml_with_two_lists_is_ambiguous(tmp_path: Path) -> None:
    path = write(tmp_path / "two.yaml", "a: [1, 2]\nb: [3]\n")
    with pytest.raises(ToolError, match="several top-level lists"):
        open_file(path, label="two.yaml")


def test_yaml_values_mean_what_was_written(tmp_path: Path) -> None:
    # YAML 1.1 would read yes/on as true, 007 as 7, 0x1F as 31 and 1_000 as 1000
    path = write(
        tmp_path / "v.yaml",
        "- {id: 007, flag: yes, v: 1.50, h: 0x1F, u: 1_000, n: ~, t: True}\n"
        "- {id: 7, flag: on, v: 1.5, h: 31, u: 1000, n: null, t: false}\n"
        "- {id: '7', flag: no, v: 1.5, h: 31, u: 1000, n: x, t: FALSE}\n",
    )
    table = open_file(path, label="v.yaml")
    try:
        rows = table.query("SELECT * FROM src")
        id_check = check_uniqueness(table, ["id"])
        flag_check = check_uniqueness(table, ["flag"])
    finally:
        table.close()
    assert rows[0] == ("007", "yes", "1.50", "0x1F", "1_000", None, "true")
    assert rows[1] == ("7", "on", "1.5", "31", "1000", None, "false")
    assert rows[2][6] == "false"
    assert not id_check.unique  # 7 and '7' are the same text; 007 is not
    assert id_check.duplicate_rows == 2
    assert flag_check.unique


def test_xlsx_header_row_and_positional_names(tmp_path: Path) -> None:
    path = write(tmp_path / "people.xlsx", _xlsx())
    table = open_file(path, label="people.xlsx", header_row=0)
    try:
        assert table.names == ("column1", "column2", "column3", "column4")
        assert check_uniqueness(table, ["column1"]).rows == 4
    finally:
        table.close()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("data.bin", b"\x00\x01\x02binary", "binary file"),
        ("data.weird", b"a,b\n1,2\n", "unknown format"),
        ("archive.zip", b"PK\x03\x04rest-of-zip", "ZIP archive"),
        ("broken.json", b'[{"a": 1}, {', "failed"),
        ("broken.xlsx", b"PK\x03\x04not really a workbook", "not a readable .xlsx"),
    ],
)
def test_unreadable_inputs_are_clear_errors(
    name: str, content: bytes, message: str, tmp_path: Path
) -> None:
    path = write(tmp_path / name, content)
    with pytest.raises(ToolError, match=message):
        _open_and_check(path)


def _open_and_check(path: Path) -> None:
    table = open_file(path, label=path.name)
    try:
        check_uniqueness(table, ["a"])
    finally:
        table.close()
