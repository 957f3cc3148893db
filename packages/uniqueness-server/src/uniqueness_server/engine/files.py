"""Opening a file as a :class:`Table`: every format read into DuckDB, in place when possible.

CSV/TSV, JSON, JSON Lines and Parquet are read by DuckDB straight from the file (gzip too);
YAML, TOON, ``.xlsx`` and CSV files holding comment lines are parsed in Python and handed to
DuckDB as column lists, never written anywhere.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import atexit
import csv
import gzip
import io
import os
import re
import shutil
import tempfile
import threading
import time
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import duckdb
from mcp_common import ErrorCode, ToolContext, ToolError

from uniqueness_server import extra_hint
from uniqueness_server.engine.backends.embedded import (
    SMALL_FILE_BYTES,
    CachedSource,
    DuckDbBackend,
    SourceCache,
    duckdb_error,
    engine_directory,
    literal,
    new_connection,
    source_cache,
)
from uniqueness_server.engine.budget import CellBudget, inflate_bounded, read_bounded
from uniqueness_server.engine.columns import addressable
from uniqueness_server.engine.csv_layout import (
    CR_IN_VALUE,
    CsvLayout,
    decode_prefix,
    is_comment,
    read_layout,
)
from uniqueness_server.engine.formats import (
    FORMAT_CHOICES,
    Format,
    detect_format,
    is_gzip,
    unreadable_gzip,
)
from uniqueness_server.engine.limits import (
    DEFAULT_MAX_LINE_BYTES,
    MAX_LINE_BYTES_LIMIT,
    allow_csv_fields,
    check_last_line,
    overlong_line,
)
from uniqueness_server.engine.records import (
    cell_text,
    count_leaves,
    find_records,
    load_rows,
    record_columns,
    record_rows,
)
from uniqueness_server.engine.table import Table
from uniqueness_server.engine.toon import parse_toon
from uniqueness_server.engine.workbook_parts import check_workbook_parts
from uniqueness_server.read_limits import ReadLimits

_WITH_HEADER_ROW = frozenset({Format.CSV, Format.TSV, Format.XLSX})
DELIMITER_WORDS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}
"""Words a delimiter may be given as (any case), besides the one character itself."""


_GLOB_CHARACTER = re.compile(r"([*?\[])")


def duckdb_path(path: Path) -> str:
    """``path`` as a quoted DuckDB file argument naming only that file, literally.

    DuckDB expands ``*``, ``?`` and ``[…]`` in file arguments (a name such as ``[ab].csv``
    would read ``a.csv`` and ``b.csv``, a directory ``d*`` its sibling symlinks); each such
    character becomes a one-character class (``[*]``) that matches only itself. The path is
    made absolute, so no ``s3://``, ``http://``, ``hf://`` or ``~`` prefix can be read into it.
    In a pattern DuckDB reads ``\\`` as a separator, so a POSIX name holding both a backslash
    and a pattern character has no literal spelling and is refused.
    """
    text = str(path.absolute())
    if _GLOB_CHARACTER.search(text) and "\\" in text and os.sep == "/":
        raise ToolError(
            f"{path.name}: a path holding both a backslash and one of * ? [ cannot be read "
            "literally; rename the file or its directory",
            ErrorCode.UNSUPPORTED,
        )
    return literal(_GLOB_CHARACTER.sub(r"[\1]", text))


def open_file(
    path: Path,
    *,
    label: str,
    fmt: str = "auto",
    header_row: int = 1,
    delimiter: str | None = None,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    context: ToolContext | None = None,
    descriptor: int | None = None,
    confined_to: Sequence[Path] | None = None,
    limits: ReadLimits | None = None,
) -> Table:
    """``path`` (already confined by the caller) as a table of text columns.

    ``limits`` bound what reading it may spend
    (:class:`~uniqueness_server.read_limits.ReadLimits`; default: the defaults); an oversized
    file is a tool error naming the limit.

    ``confined_to``, the caller's allowed directories, confines the DuckDB engine reading the
    file as well: it opens nothing outside them (see
    :func:`~uniqueness_server.engine.backends.embedded.new_connection`).

    ``descriptor``, when given, is an open descriptor of ``path`` made by the caller's
    confinement: every read then goes through it (``/proc/self/fd/N``), never through the name,
    so nothing swapped in at ``path`` after the check is read. The table closes it.

    ``header_row`` is the 1-based physical line (or ``.xlsx`` row) holding the column names;
    0 means no header (columns ``column1…``). ``label`` is how messages name the file.
    ``delimiter`` is one character or one of :data:`DELIMITER_WORDS` (``tab``); None: sniffed.
    Every option is checked here, so every caller (a tool, the command line, Python) accepts
    the same values.
    A delimited line longer than ``max_line_bytes`` is an error, never a skipped row.

    A small file read before and unchanged since (same identity, same options) is answered
    from the rows kept then (see :class:`~uniqueness_server.engine.backends.embedded.SourceCache`).
    """
    limits = limits or ReadLimits()
    try:
        _check_request(path, label, fmt, header_row, max_line_bytes)
        # the file as opened: through the descriptor, so what is checked is what is read
        identity = path.stat() if descriptor is None else os.fstat(descriptor)
        cache = source_cache(confined_to, limits.max_engine_memory)
        key = (
            str(path), identity.st_dev, identity.st_ino, identity.st_size,
            identity.st_mtime_ns, identity.st_ctime_ns,
            fmt, header_row, delimiter, max_line_bytes, limits,
        )  # fmt: skip
        cached = cache.take(key) if identity.st_size <= SMALL_FILE_BYTES else None
        if cached is not None:
            if descriptor is not None:
                os.close(descriptor)  # the rows are in memory: nothing more to read
            return _cached_table(cache, cached, confined_to, context, label, limits)
        now = time.time_ns()
        through = None if descriptor is None else _Through(descriptor, _link_name(path.name))
    except BaseException:
        if descriptor is not None:
            os.close(descriptor)
        raise
    source = path if through is None else through.link
    try:
        table = _open_table(
            source,
            label,
            fmt,
            header_row,
            delimiter,
            max_line_bytes,
            context,
            confined_to,
            limits,
        )
    except BaseException:
        if through is not None:
            through.release()
        raise
    backend = table.backend
    assert isinstance(backend, DuckDbBackend)
    if through is not None:
        backend.on_close(through.release)
    if backend.small and SourceCache.keepable(identity, now):
        try:
            kept = cache.keep(backend, key, table.names)
        except BaseException:
            table.close()
            raise
        if kept is not None:
            backend.cached = kept
            backend.on_close(partial(cache.give_back, kept))
            table.relation = kept.relation
    return table


def _cached_table(
    cache: SourceCache,
    cached: CachedSource,
    confined_to: Sequence[Path] | None,
    context: ToolContext | None,
    label: str,
    limits: ReadLimits,
) -> Table:
    """A source read before, unchanged since: its kept table, on a connection of its own."""
    try:
        connection = new_connection(confined_to, progress=False, memory=limits.max_engine_memory)
    except BaseException:
        cache.give_back(cached)
        raise
    backend = DuckDbBackend(connection, context or ToolContext(), label, small=True, cached=cached)
    backend.on_close(partial(cache.give_back, cached))
    return Table(backend=backend, label=label, names=cached.names, relation=cached.relation)


def _check_request(path: Path, label: str, fmt: str, header_row: int, max_line_bytes: int) -> None:
    """Refuse a file that is not there or not a file, and options out of range."""
    if not path.exists():
        raise ToolError(f"{label} does not exist", ErrorCode.NOT_FOUND)
    if not path.is_file():
        raise ToolError(f"{label} is not a regular file", ErrorCode.INVALID_ARGUMENT)
    if not 1 <= max_line_bytes <= MAX_LINE_BYTES_LIMIT:
        raise ToolError(
            f"maxLineBytes must be between 1 and {MAX_LINE_BYTES_LIMIT:,} but was {max_line_bytes}",
            ErrorCode.INVALID_ARGUMENT,
        )
    if header_row < 0:
        raise ToolError(
            f"headerRow must be 0 or more but was {header_row}", ErrorCode.INVALID_ARGUMENT
        )
    if fmt not in FORMAT_CHOICES:
        raise ToolError(
            f"format must be one of {', '.join(FORMAT_CHOICES)} but was {fmt!r}",
            ErrorCode.INVALID_ARGUMENT,
        )


def _link_name(name: str) -> str:
    """The name of the link a file is read through: its own, pattern characters replaced (a
    pattern a reader would expand; the link's directory holds nothing else, and messages name
    the file by its label)."""
    return _GLOB_CHARACTER.sub("_", name)


class _Through:
    """A private path named ``name`` that reads the file open at ``descriptor``: a symlink to
    ``/proc/self/fd/<descriptor>`` alone in a directory only this process may read, so
    readers see the file's own name and suffix but always reach the checked file.

    The directories are kept for later calls (removing a directory costs milliseconds on some
    file systems, more than a small call) and removed when the process exits.
    """

    _root: tuple[int, Path] | None = None  # (pid, directory): a forked worker makes its own
    _free: ClassVar[list[Path]] = []
    _made = 0
    _lock = threading.Lock()

    def __init__(self, descriptor: int, name: str) -> None:
        self._descriptor = descriptor
        with _Through._lock:
            self._holder = self._acquire()
        self.link = self._holder / name
        try:
            os.symlink(f"/proc/self/fd/{descriptor}", self.link)
        except BaseException:
            self._give_back()
            raise

    @classmethod
    def _acquire(cls) -> Path:
        if cls._root is None or cls._root[0] != os.getpid():
            root = Path(tempfile.mkdtemp(prefix="uniqueness-sources-"))
            atexit.register(shutil.rmtree, root, ignore_errors=True)
            cls._root, cls._free, cls._made = (os.getpid(), root), [], 0
        if cls._free:
            return cls._free.pop()
        cls._made += 1
        holder = cls._root[1] / str(cls._made)
        holder.mkdir(mode=0o700)
        return holder

    def _give_back(self) -> None:
        with _Through._lock:
            if _Through._root is not None and self._holder.parent == _Through._root[1]:
                _Through._free.append(self._holder)

    def release(self) -> None:
        """Remove the link and close the descriptor."""
        self.link.unlink(missing_ok=True)
        self._give_back()
        os.close(self._descriptor)


def _open_table(
    source: Path,
    label: str,
    fmt: str,
    header_row: int,
    delimiter: str | None,
    max_line_bytes: int,
    context: ToolContext | None,
    confined_to: Sequence[Path] | None,
    limits: ReadLimits,
) -> Table:
    compressed = is_gzip(source)
    kind = detect_format(source, compressed, fmt, label)
    if kind not in _WITH_HEADER_ROW and header_row != 1:
        raise ToolError(
            f"headerRow applies to csv, tsv and xlsx sources, not {kind.value}",
            ErrorCode.INVALID_ARGUMENT,
        )
    if delimiter is not None and kind not in (Format.CSV, Format.TSV):
        raise ToolError(
            f"delimiter applies to csv and tsv sources, not {kind.value}",
            ErrorCode.INVALID_ARGUMENT,
        )
    small = not compressed and source.stat().st_size <= SMALL_FILE_BYTES
    connection = new_connection(confined_to, progress=not small, memory=limits.max_engine_memory)
    context = context or ToolContext()
    backend = DuckDbBackend(connection, context, label, small=small)
    try:
        names = _load(
            backend,
            source,
            compressed,
            kind,
            header_row,
            delimiter,
            label,
            max_line_bytes,
            limits,
            context,
            engine_directory(confined_to, limits.max_engine_memory),
        )
    except duckdb.Error as exc:
        # rows loaded from Python (YAML, TOON, .xlsx, CSV with comment lines) may outgrow
        # the engine's memory: said as for any read, naming its flag
        backend.close()
        raise duckdb_error(exc, label) from exc
    except BaseException:
        backend.close()
        raise
    return Table(backend=backend, label=label, names=addressable(names))


def _load(
    backend: DuckDbBackend,
    path: Path,
    compressed: bool,
    kind: Format,
    header_row: int,
    delimiter: str | None,
    label: str,
    max_line_bytes: int,
    limits: ReadLimits,
    context: ToolContext,
    scratch: Path,
) -> list[str]:
    budget = CellBudget(limits, label, context)
    if kind in (Format.CSV, Format.TSV):
        return _csv(
            backend, path, compressed, kind, header_row, delimiter, label, max_line_bytes, budget
        )
    if kind in (Format.JSON, Format.JSONL, Format.PARQUET):
        return _duckdb_document(backend, path, compressed, kind, label, limits, scratch)
    if kind is Format.XLSX:
        data = read_bounded(
            path, compressed, limits.max_inflated_bytes, label, limits.inflates_too_far(label)
        )
        return _xlsx(backend, data, header_row, label, limits, budget)
    text = decode_prefix(
        read_bounded(
            path,
            compressed,
            limits.max_document_bytes,
            label,
            limits.document_too_large(label),
        ),
        label,
        complete=True,
    )
    try:
        if kind is Format.YAML:
            # imported here: only YAML sources need the parser
            from uniqueness_server.engine.yaml12 import load_yaml

            document = load_yaml(text, label, limits, context)
        else:
            document = parse_toon(text)
        del text
        records = find_records(document, label)
        count_leaves(records, budget)
        names = record_columns(records, budget)
    except RecursionError as exc:
        raise ToolError(
            f"{label} is nested too deeply to be read as records", ErrorCode.INVALID_ARGUMENT
        ) from exc
    if len(records) * len(names) > limits.max_cells:
        raise limits.too_many_cells(label)
    load_rows(backend.connection, len(names), record_rows(records, names, budget))
    return names


def _csv(
    backend: DuckDbBackend,
    path: Path,
    compressed: bool,
    kind: Format,
    header_row: int,
    delimiter: str | None,
    label: str,
    max_line_bytes: int,
    budget: CellBudget,
) -> list[str]:
    # one character: the header and comment lines are split by Python's csv module, which
    # takes nothing longer (a 2-byte ";;" passed a byte-length check and crashed it)
    delimiter = DELIMITER_WORDS.get(delimiter.strip().lower(), delimiter) if delimiter else None
    if delimiter is not None and (len(delimiter) != 1 or delimiter in '"\r\n'):
        raise ToolError(
            f"delimiter must be one character other than a quote or a line break (or one of "
            f"the words {', '.join(word for word in DELIMITER_WORDS if word.isalpha())}), "
            f"not {delimiter!r}",
            ErrorCode.INVALID_ARGUMENT,
        )
    layout = read_layout(path, compressed, kind, header_row, delimiter, max_line_bytes, label)
    width = len(layout.header)
    # DuckDB ends a line at any carriage return: in a file whose lines end with LF alone, a CR
    # is part of a value, so such a file is split here instead
    carriage_return = check_last_line(
        path, compressed, max_line_bytes, label, find_cr=layout.lf_only
    )
    if layout.has_comments or carriage_return:
        rows = _python_csv_rows(path, compressed, layout, label, max_line_bytes, budget)
        load_rows(backend.connection, width, rows)
        return list(layout.header)
    columns = ", ".join(f"'c{i}': 'VARCHAR'" for i in range(1, width + 1))
    backend.execute(
        "CREATE TEMP VIEW src AS SELECT * FROM read_csv("
        f"{duckdb_path(path)}, auto_detect = false, header = false, "
        f"skip = {layout.skip_records}, delim = {literal(layout.delimiter)}, quote = '\"', "
        f"escape = '\"', columns = {{{columns}}}, max_line_size = {max_line_bytes}, "
        f"compression = {literal('gzip' if compressed else 'none')})"
    )
    return list(layout.header)


def _python_csv_rows(
    path: Path,
    compressed: bool,
    layout: CsvLayout,
    label: str,
    max_line_bytes: int,
    budget: CellBudget,
) -> Iterator[list[str | None]]:
    """Data rows of a CSV file DuckDB cannot split as written, streamed line by line: comment
    lines (DuckDB would cut values at any ``#``), or carriage returns inside the values of a
    file whose lines end with LF alone (read as ``pandas.read_csv(lineterminator="\\n")`` reads
    them: part of the value)."""
    width = len(layout.header)
    at = [0]  # the physical line the csv reader took last

    def lines(stream: Iterable[str]) -> Iterator[str]:
        for number, line in enumerate(stream, start=1):
            if number <= layout.skip_lines or is_comment(line):
                continue
            size = len(line.rstrip("\r\n").encode())
            if size > max_line_bytes:
                raise overlong_line(label, number, size, max_line_bytes)
            if layout.lf_only:
                if CR_IN_VALUE in line:
                    raise ToolError(
                        f"line {number} of {label} holds a NUL byte: it is binary data, not "
                        "delimited text",
                        ErrorCode.INVALID_ARGUMENT,
                    )
                line = line.replace("\r", CR_IN_VALUE)
            at[0] = number
            yield line

    allow_csv_fields(max_line_bytes)
    newline = "\n" if layout.lf_only else ""
    with (
        gzip.open(path, "rb") if compressed else path.open("rb") as raw,
        io.TextIOWrapper(raw, encoding="utf-8-sig", newline=newline) as text,
    ):
        try:
            for fields in csv.reader(lines(text), delimiter=layout.delimiter, quotechar='"'):
                if not fields:
                    continue
                if len(fields) != width:
                    raise ToolError(
                        f"ragged row at line {at[0]} of {label}: the header has {width} fields "
                        f"but the row has {len(fields)}: "
                        f"{layout.delimiter.join(fields)[:200]!r}",
                        ErrorCode.INVALID_ARGUMENT,
                    )
                budget.spend(width)
                if layout.lf_only:
                    fields = [field.replace(CR_IN_VALUE, "\r") for field in fields]
                yield [field if field != "" else None for field in fields]
        except UnicodeDecodeError as exc:
            raise ToolError(
                f"line {at[0] + 1} of {label} is not valid UTF-8; re-encode the file as UTF-8",
                ErrorCode.INVALID_ARGUMENT,
            ) from exc
        except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
            raise unreadable_gzip(label, exc) from exc


def _struct_columns(expression: str, name: str, kind: Any) -> list[tuple[str, str]]:
    if kind.id == "struct":
        out: list[tuple[str, str]] = []
        for child, child_type in kind.children:
            out += _struct_columns(
                f"struct_extract({expression}, {literal(child)})", f"{name}.{child}", child_type
            )
        return out
    return [(f"CAST({expression} AS VARCHAR)", name)]


def _as_written(kind: Any) -> str:
    """The DuckDB type reading a JSON value of detected type ``kind`` as the text it holds:
    objects stay structs (flattened later), a column mixing kinds of value stays JSON (so
    ``"1"`` and ``1`` stay apart), every other value is read as VARCHAR. A detected DOUBLE
    would merge integers past 2**53, a DATE or UUID would trim spaces or fold case."""
    if kind.id == "struct":
        fields = ", ".join(
            f'"{name.replace(chr(34), chr(34) * 2)}" {_as_written(child)}'
            for name, child in kind.children
        )
        return f"STRUCT({fields})"
    return "JSON" if str(kind) == "JSON" else "VARCHAR"


_RENAMED = re.compile(r"(.+)_\d+")


def _renamed_keys(names: list[str]) -> bool:
    """Whether DuckDB renamed a key differing from another only in case (``a`` and ``A``
    become ``a`` and ``A_1``): explicit columns cannot name both, so such a file keeps the
    detected kinds (a key named like ``id_1`` next to ``id`` is taken for one too)."""
    folded = {name.casefold() for name in names}
    return any(
        (renamed := _RENAMED.fullmatch(name)) is not None and renamed.group(1).casefold() in folded
        for name in names
    )


def _duckdb_document(
    backend: DuckDbBackend,
    path: Path,
    compressed: bool,
    kind: Format,
    label: str,
    limits: ReadLimits,
    scratch: Path,
) -> list[str]:
    compression = literal("gzip" if compressed else "none")
    try:
        if kind is Format.PARQUET:
            reader = (
                _gunzipped_parquet(backend, path, label, limits, scratch)
                if compressed
                else f"read_parquet({duckdb_path(path)})"
            )
        else:
            layout = "'array'" if kind is Format.JSON else "'newline_delimited'"
            options = f"format = {layout}, records = true, compression = {compression}"
            # the keys and kinds of every record (not a sample): a key first seen late would
            # otherwise be left out silently once the columns are given explicitly below
            reader = f"read_json({duckdb_path(path)}, {options}, sample_size = -1)"
            detected = backend.connection.sql(f"SELECT * FROM {reader}")
            if not _renamed_keys(detected.columns):
                columns = ", ".join(
                    f"{literal(name)}: {literal(_as_written(dtype))}"
                    for name, dtype in zip(detected.columns, detected.dtypes, strict=True)
                )
                reader = f"read_json({duckdb_path(path)}, {options}, columns = {{{columns}}})"
        relation = backend.connection.sql(f"SELECT * FROM {reader}")
        described = list(zip(relation.columns, relation.dtypes, strict=True))
    except duckdb.Error as exc:
        raise duckdb_error(exc, label) from exc
    selected: list[tuple[str, str]] = []
    for name, dtype in described:
        selected += _struct_columns(backend.quote(name), name, dtype)
    select = ", ".join(f"{expr} AS c{i}" for i, (expr, _) in enumerate(selected, start=1))
    backend.execute(f"CREATE TEMP VIEW src AS SELECT {select} FROM {reader}")
    if kind is Format.PARQUET:
        decoded = _check_decoded_size(backend, len(selected), label, limits, path.stat().st_size)
        # small on disk, large once decoded: read (and kept) as the large source it is
        backend.small = backend.small and decoded <= SMALL_FILE_BYTES
    return [name for _, name in selected]


EXPANSION = 1_000
"""Bytes of values one byte of a Parquet file may decode to beyond ``max_inflated_bytes``:
about what gzip can reach at most (1,032), so a file passes that a gzip CSV of the same
values would be."""


def _check_decoded_size(
    backend: DuckDbBackend, width: int, label: str, limits: ReadLimits, file_bytes: int
) -> int:
    """Refuse a Parquet file whose values (as the text every column is read as) total more
    than ``max_inflated_bytes`` or :data:`EXPANSION` times the file's size, whichever is more.

    Parquet's encodings let a few bytes stand for any amount of data: a dictionary entry of
    64 MB used by a thousand rows is 5 KB on disk and 64 GB to every copy, hash or export of
    its column, in steps no cancellation reaches. Lengths are read without copying a value
    (DuckDB keeps a dictionary column as references to its entries and knows each length),
    so measuring costs one scan however large the values claim to be. Returns the total.
    """
    allowed = max(limits.max_inflated_bytes, EXPANSION * file_bytes)
    lengths = ", ".join(f"SUM(strlen(c{i}))" for i in range(1, width + 1))
    (totals,) = backend.fetchall(f"SELECT {lengths} FROM src")
    decoded = sum(int(total or 0) for total in totals)
    if decoded > allowed:
        raise limits.decodes_too_far(label, allowed)
    return decoded


def _gunzipped_parquet(
    backend: DuckDbBackend, path: Path, label: str, limits: ReadLimits, scratch: Path
) -> str:
    """A gzip-compressed Parquet file, inflated (up to ``max_inflated_bytes``) into a private
    file of the engine's temporary directory ``scratch`` that goes when the call closes, and
    read from there as any Parquet file (DuckDB reads Parquet only from a seekable file).

    Decoding it in Python instead was unbounded: a 374-byte gzip of a Parquet page of
    delta-encoded strings decoded to 800 MB in pyarrow before any limit was checked; DuckDB
    decodes within its memory limit, and the decoded size is checked as for any Parquet file.
    """
    descriptor, name = tempfile.mkstemp(prefix="gunzipped-", suffix=".parquet", dir=scratch)
    inflated = Path(name)
    backend.on_close(partial(inflated.unlink, missing_ok=True))
    with os.fdopen(descriptor, "wb") as out:
        inflate_bounded(path, out, limits.max_inflated_bytes, label, limits.inflates_too_far(label))
    return f"read_parquet({duckdb_path(inflated)})"


def _xlsx(
    backend: DuckDbBackend,
    data: bytes,
    header_row: int,
    label: str,
    limits: ReadLimits,
    budget: CellBudget,
) -> list[str]:
    """The first sheet, read twice as a stream: once for its shape (every cell counted against
    the budget, however wide the sheet declares itself), once into DuckDB."""
    try:
        import openpyxl
    except ModuleNotFoundError:
        raise ToolError(
            f"{label}: reading Excel workbooks is optional; {extra_hint('excel')}",
            ErrorCode.FAILED,
        ) from None

    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        if sum(member.file_size for member in archive.infolist()) > limits.max_inflated_bytes:
            raise limits.inflates_too_far(label)
        check_workbook_parts(archive, label, limits)
        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (OSError, KeyError, ValueError, zlib.error, zipfile.BadZipFile) as exc:
        raise ToolError(
            f"{label} is not a readable .xlsx workbook: {exc}", ErrorCode.INVALID_ARGUMENT
        ) from exc
    try:
        sheet = workbook.worksheets[0]
        # the declared size is the file's word: rows are as wide as their own cells
        sheet.reset_dimensions()
        rows = width = 0
        header: list[str | None] = []
        for number, row in enumerate(sheet.iter_rows(values_only=True), start=1):
            budget.spend(len(row))
            rows, width = number, max(width, len(row))
            if number == header_row:
                header = [cell_text(cell) for cell in row]
        if not rows:
            raise ToolError(
                f"{label} is empty: its first sheet has no rows", ErrorCode.INVALID_ARGUMENT
            )
        if header_row > rows:
            raise ToolError(
                f"headerRow {header_row} is past the end: the first sheet of {label} has only "
                f"{rows} rows",
                ErrorCode.INVALID_ARGUMENT,
            )
        if rows * width > limits.max_cells:
            raise limits.too_many_cells(label)
        if header_row == 0:
            names = [f"column{i}" for i in range(1, width + 1)]
        else:
            cells = [*header, *([None] * (width - len(header)))]
            names = [cell or f"column{i}" for i, cell in enumerate(cells, start=1)]
        body = (
            [cell_text(cell) for cell in row]
            for row in sheet.iter_rows(min_row=header_row + 1, values_only=True)
        )
        load_rows(
            backend.connection, width, (row for row in body if any(c is not None for c in row))
        )
    finally:
        workbook.close()
    return [str(name) for name in names]
