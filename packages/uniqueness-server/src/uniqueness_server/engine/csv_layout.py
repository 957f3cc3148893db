"""The layout of a delimited text file, read from its first bytes: header, delimiter, comments.

Only the prefix is read here; DuckDB then reads the whole file in place with exactly these
options, so the sniffing never costs a pass over a large file.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from mcp_common import ErrorCode, ToolError

from uniqueness_server.engine.formats import Format, read_prefix
from uniqueness_server.engine.limits import (
    DEFAULT_MAX_LINE_BYTES,
    allow_csv_fields,
    overlong_line,
)

_CANDIDATES = (",", "\t", ";", "|")
_SNIFF_LINES = 50
PREFIX_BYTES = 262_144


@dataclass(frozen=True, slots=True)
class CsvLayout:
    """How to read a delimited file."""

    delimiter: str
    header: tuple[str, ...]  # column names as the user sees them
    skip_lines: int  # physical lines before the first data row
    has_comments: bool
    skip_records: int  # records before the first data row (a header name may span lines)
    lf_only: bool = False  # lines end with LF alone: a carriage return is part of a value


CR_IN_VALUE = "\x00"
"""What a carriage return inside a value of an LF-terminated file stands as while Python's csv
module splits the line (it would end a record at any CR); a file holding NUL is refused."""


def _invalid(message: str) -> ToolError:
    return ToolError(message, ErrorCode.INVALID_ARGUMENT)


def decode_prefix(data: bytes, name: str, complete: bool) -> str:
    """UTF-8 text of a file prefix (BOM dropped); a character cut at the end is tolerated."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if not complete and exc.start >= len(data) - 4:
            return data[: exc.start].decode("utf-8-sig")
        line = data[: exc.start].count(b"\n") + 1
        raise _invalid(
            f"line {line} of {name} is not valid UTF-8; re-encode the file as UTF-8"
        ) from exc


def is_comment(line: str) -> bool:
    """A comment line starts with ``#`` after optional whitespace."""
    return line.lstrip().startswith("#")


def _fields(line: str, delimiter: str) -> list[str]:
    return next(csv.reader([line], delimiter=delimiter, quotechar='"'), [])


def _header_record(lines: list[str], delimiter: str, where: str) -> tuple[tuple[str, ...], int]:
    """The fields of the record starting at ``lines[0]`` and the physical lines it spans: a
    quoted name may hold line breaks (RFC 4180). A quote opened and never closed would take
    every later line into one name, leaving no rows: an error naming the line."""
    rows = [line + "\n" for line in lines]
    try:
        reader = csv.reader(rows, delimiter=delimiter, quotechar='"', strict=True)
        fields = next(reader, [])
    except csv.Error as exc:
        if "end of data" in str(exc):
            raise _invalid(
                f"{where}: a quote opened in the header is never closed (every later line "
                "would be read as part of one column name)"
            ) from exc
        # any other oddity is read as before, leniently (DuckDB judges the rows)
        reader = csv.reader(rows, delimiter=delimiter, quotechar='"')
        fields = next(reader, [])
    return tuple(fields), max(reader.line_num, 1)


def sniff_delimiter(lines: list[str], fmt: Format) -> str:
    """The candidate delimiter giving the most columns consistently over the sample lines."""
    sample = [line for line in lines if line.strip() and not is_comment(line)][:_SNIFF_LINES]
    if not sample:
        return "\t" if fmt is Format.TSV else ","
    best, best_width = "\t" if fmt is Format.TSV else ",", 1
    for delimiter in _CANDIDATES:
        widths = {len(_fields(line, delimiter)) for line in sample}
        width = widths.pop() if len(widths) == 1 else 0
        if width > best_width:
            best, best_width = delimiter, width
    return best


def read_layout(
    path: Path,
    compressed: bool,
    fmt: Format,
    header_row: int,
    delimiter: str | None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    label: str | None = None,
) -> CsvLayout:
    """Header names, delimiter and comment presence, from the first bytes of ``path``.

    The prefix read grows to the end of the header line (a very wide header), up to
    ``max_line_bytes``; a longer header line is an error naming the limit. Messages name the
    file ``label`` (default: its name).
    """
    name = path.name if label is None else label
    data = read_prefix(path, compressed, PREFIX_BYTES, name)
    nul = data.find(b"\x00")
    if nul >= 0:
        raise _invalid(
            f"{name} holds NUL bytes (the first at byte {nul:,}"
            f"{' of its decompressed content' if compressed else ''}): it is binary data, "
            "not delimited text"
        )
    size = PREFIX_BYTES
    cap = max_line_bytes * max(header_row, 1) + PREFIX_BYTES
    while len(data) == size and data.count(b"\n") < max(header_row, 1):
        if size >= cap:
            raise overlong_line(name, data.count(b"\n") + 1, None, max_line_bytes)
        size = min(4 * size, cap)
        data = read_prefix(path, compressed, size, name)
    complete = len(data) < size
    allow_csv_fields(max_line_bytes)
    text = decode_prefix(data, name, complete)
    # a file whose lines end with LF alone (pandas' to_csv writes them) keeps a carriage
    # return inside a value unquoted: it is part of the value, never a line break
    lf_only = b"\n" in data and b"\r\n" not in data
    if lf_only:
        lines = text.replace("\r", CR_IN_VALUE).split("\n")
    else:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if complete and lines and lines[-1] == "":
        lines.pop()
    elif not complete:
        lines.pop()  # the last line may be cut short
    if not any(line.strip() for line in lines):
        raise _invalid(f"{name} is empty: it has no header and no rows")
    if header_row > len(lines):
        where = "has only" if complete else "has more than"
        raise _invalid(
            f"headerRow {header_row} is past the end of the header area: {name} {where} "
            f"{len(lines)} lines{'' if complete else f' in its first {size:,} bytes'}"
        )
    chosen = (
        delimiter
        if delimiter is not None
        else sniff_delimiter(lines[max(0, header_row - 1) :], fmt)
    )
    if header_row == 0:
        data_lines = lines
        first = next((line for line in data_lines if line.strip() and not is_comment(line)), "")
        width = len(_fields(first, chosen))
        header = tuple(f"column{i}" for i in range(1, width + 1))
        skip = 0
    else:
        line = lines[header_row - 1]
        if is_comment(line):
            raise _invalid(f"row {header_row} holds no header: line {header_row} is a comment")
        if not line.strip():
            raise _invalid(f"row {header_row} holds no header: line {header_row} is blank")
        where = f"line {header_row} of {name}"
        header, spanned = _header_record(lines[header_row - 1 :], chosen, where)
        skip = header_row - 1 + spanned
        data_lines = lines[skip:]
    has_comments = any(is_comment(line) for line in data_lines)
    header = tuple(name.replace(CR_IN_VALUE, "\r") for name in header)
    return CsvLayout(chosen, header, skip, has_comments, header_row, lf_only)
