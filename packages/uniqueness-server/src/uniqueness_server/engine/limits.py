"""Line-length limits of delimited files, enforced so that no row is ever dropped silently.

DuckDB's CSV reader refuses a line longer than its ``max_line_size`` with an error, except the
file's last line, which it drops without a word (a 3-row file then reads as 2 rows). The last
line is therefore measured here before any answer is given; every overlong line becomes an
error naming the line, its length, the limit and the ``maxLineBytes`` option that raises it.
"""

from __future__ import annotations

import csv
import gzip
import mmap
import zlib
from pathlib import Path
from typing import BinaryIO

from mcp_common import ErrorCode, ToolError

DEFAULT_MAX_LINE_BYTES = 2_000_000
MAX_LINE_BYTES_LIMIT = 1_000_000_000
_CHUNK = 1 << 20


def overlong_line(label: str, line: int, length: int | None, limit: int) -> ToolError:
    """The error for line ``line`` longer than ``limit`` bytes (``length`` if measured)."""
    size = f"{length:,} bytes long" if length is not None else f"longer than {limit:,} bytes"
    need = f"of at least {length:,}" if length is not None else "larger than that"
    return ToolError(
        f"line {line} of {label} is {size}, over the limit of {limit:,} bytes per line; "
        f"no row is skipped, so nothing was counted: pass maxLineBytes (up to "
        f"{MAX_LINE_BYTES_LIMIT:,}) {need} to read it",
        ErrorCode.INVALID_ARGUMENT,
    )


def check_last_line(
    path: Path, compressed: bool, limit: int, label: str, *, find_cr: bool = False
) -> bool:
    """Raise :func:`overlong_line` when the file's last line is longer than ``limit``; with
    ``find_cr``, return whether the file holds a carriage return anywhere.

    A plain file is read from its end only (and searched for a CR at memory speed); a gzip
    stream is decompressed through once for both (holding one chunk and the current line's
    length, never the whole line).
    """
    measured = True
    found = False
    try:
        if compressed:
            length, found = _scanned_stream(path, find_cr)
        else:
            size = path.stat().st_size
            with path.open("rb") as handle:
                start = max(0, size - limit - 2)
                handle.seek(start)
                tail = handle.read()
                found = find_cr and _holds_cr(handle, size)
            body = tail[:-1] if tail.endswith(b"\n") else tail
            cut = body.rfind(b"\n")
            # no line break in a tail longer than the limit: the line is longer still
            measured = cut >= 0 or start == 0
            length = len(body) - cut - 1 if measured else len(body)
    except (OSError, EOFError, zlib.error):
        return False  # an unreadable stream is reported by the reader itself
    if length > limit:
        shown = length if compressed or measured else None
        raise overlong_line(label, _line_number(path, compressed), shown, limit)
    return found


def _holds_cr(handle: BinaryIO, size: int) -> bool:
    if size == 0:
        return False
    with mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        return mapped.find(b"\r") >= 0


def allow_csv_fields(limit: int) -> None:
    """Let Python's csv module read fields as long as a line may be (its module-wide limit
    of 128 KiB would otherwise cut below ``limit``)."""
    csv.field_size_limit(max(csv.field_size_limit(), limit))


def _scanned_stream(path: Path, find_cr: bool) -> tuple[int, bool]:
    """The last line's length of a gzip stream, and (with ``find_cr``) whether it holds a CR."""
    current = 0  # bytes of the line still open at the end of the data read so far
    finished = 0  # length of the last line ended by a line break
    found = False
    with gzip.open(path, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            found = found or (find_cr and b"\r" in chunk)
            last = chunk.rfind(b"\n")
            if last < 0:
                current += len(chunk)
                continue
            previous = chunk.rfind(b"\n", 0, last)
            finished = current + last if previous < 0 else last - previous - 1
            current = len(chunk) - last - 1
    return current or finished, found


def _line_number(path: Path, compressed: bool) -> int:
    """The physical number of the file's last line (only on the error path: a full pass)."""
    newlines = 0
    last = b""
    with gzip.open(path, "rb") if compressed else path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            newlines += chunk.count(b"\n")
            last = chunk[-1:]
    return newlines if last == b"\n" else newlines + 1
