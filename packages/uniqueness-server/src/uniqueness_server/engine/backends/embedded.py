"""The embedded DuckDB backend: every file source is read by a private in-memory DuckDB.

The rows are local (:attr:`DuckDbBackend.local`): a check copies the key columns once in
source order, so duplicate groups come with row numbers; a key search copies the searched
columns into memory (or codes them, :mod:`uniqueness_server.engine.codes`); approximate mode
sketches with DuckDB's own 64-bit ``hash``.
"""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

import atexit
import dataclasses
import functools
import itertools
import os
import re
import shutil
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError

from uniqueness_server.engine.approximate import SKETCH_KEYS, kmv_sketch
from uniqueness_server.engine.backend import (
    SAMPLE_VALUE_BYTES,
    GroupCounts,
    Progress,
    SearchSource,
    Sketch,
    Sketcher,
    watching,
)
from uniqueness_server.engine.check import ROWS_PER_GROUP, counted_groups, shorten
from uniqueness_server.engine.codes import CodeMatrix, TooManyCellsError
from uniqueness_server.engine.limits import overlong_line
from uniqueness_server.engine.metadata import Catalog
from uniqueness_server.engine.model import DuplicateGroup, Nulls, Profile
from uniqueness_server.engine.profile import text_profile
from uniqueness_server.engine.sql import (
    any_missing,
    column_list,
    duplicated_each,
    not_missing,
    sample_values,
    shown_list,
)
from uniqueness_server.engine.stats import (
    EXACT_DISTINCT_COLUMNS,
    ColumnStats,
    aggregate_stats,
    coded_stats,
    stats_of_codes,
)
from uniqueness_server.engine.table import Table
from uniqueness_server.read_limits import DEFAULT_ENGINE_MEMORY

SMALL_FILE_BYTES = 1 << 20
"""A file up to this size (not compressed) is small: a check groups it once before copying."""
_KEPT_ROWS = 100_000  # a check's copies of at most this many rows are not dropped early
_PREFILTER = 1 << 60  # hashes below it enter DuckDB's bounded min first: 1/16 of the range


def literal(text: str) -> str:
    """``text`` as a DuckDB string literal."""
    return "'" + text.replace("'", "''") + "'"


_DatabaseKey = tuple[tuple[str, ...] | None, int]
_DATABASES: dict[_DatabaseKey, duckdb.DuckDBPyConnection] = {}
_SOURCE_CACHES: dict[_DatabaseKey, SourceCache] = {}
_SPILL_DIRECTORIES: dict[_DatabaseKey, Path] = {}
_DATABASES_LOCK = threading.Lock()
# what the engine's own SQL does: read, and make or drop the call's temporary tables and views
_STATEMENTS = frozenset(
    {duckdb.StatementType.SELECT, duckdb.StatementType.CREATE, duckdb.StatementType.DROP}
)


def _database(confined_to: Sequence[Path] | None, memory: int) -> duckdb.DuckDBPyConnection:
    """The process's in-memory DuckDB database for sources confined to ``confined_to`` (None:
    not confined, the command line), made on first use and kept: opening a database costs
    tens of milliseconds, more than a small call itself.

    A confined database reads files only inside those directories, judged by DuckDB itself on
    the real path (symlinks resolved) of every file it opens: external access is disabled but
    for them, which can be neither re-enabled nor widened while the database runs, and it
    loads no extension. Spill files (if any) go to a private directory of the system temp
    directory.
    """
    confined = None if confined_to is None else tuple(sorted(str(d) for d in confined_to))
    key = (confined, memory)
    with _DATABASES_LOCK:
        database = _DATABASES.get(key)
        if database is None:
            database = duckdb.connect(":memory:")
            # the check reads row numbers from a copy's rowid (keyed_copy_statement): the copy
            # must keep the source's order, which is DuckDB's default; said here so it stays so
            database.execute("SET GLOBAL preserve_insertion_order = true")
            # a directory of its own: DuckDB lets a database read its temp directory whatever
            # the allowed directories say, and the system one holds other users' files
            spill = tempfile.mkdtemp(prefix="uniqueness-spill-")
            atexit.register(shutil.rmtree, spill, ignore_errors=True)
            database.execute(f"SET temp_directory = {literal(spill)}")
            database.execute("SET autoinstall_known_extensions = false")
            database.execute("SET autoload_known_extensions = false")
            database.execute(f"SET memory_limit = '{int(memory)}MiB'")
            if confined is not None:
                listed = ", ".join(literal(os.path.join(d, "")) for d in confined)
                database.execute(f"SET allowed_directories = [{listed}]")
                database.execute("SET enable_external_access = false")
            _DATABASES[key] = database
            _SOURCE_CACHES[key] = SourceCache(database)
            _SPILL_DIRECTORIES[key] = Path(spill)
        return database


def source_cache(confined_to: Sequence[Path] | None, memory: int) -> SourceCache:
    """The cache of small sources of the database :func:`new_connection` connects to for the
    same arguments."""
    _database(confined_to, memory)
    confined = None if confined_to is None else tuple(sorted(str(d) for d in confined_to))
    return _SOURCE_CACHES[(confined, memory)]


def engine_directory(confined_to: Sequence[Path] | None, memory: int) -> Path:
    """The private temporary directory of the database :func:`new_connection` connects to
    for the same arguments (made by this process, readable by it alone): a file put there is
    read by that database whatever its allowed directories, and removed with it at exit."""
    _database(confined_to, memory)
    confined = None if confined_to is None else tuple(sorted(str(d) for d in confined_to))
    return _SPILL_DIRECTORIES[(confined, memory)]


@dataclass(eq=False)
class CachedSource:
    """A small source read once, kept as a table of the process's database."""

    relation: str
    names: tuple[str, ...]
    cells: int
    users: int = 0
    evicted: bool = False
    profile: Profile | None = None  # its column profile, once a call computed it
    codes: CodeMatrix | None = None  # every column coded, with its facts, once a call needed it
    # sample values by (rows, position), once a call read them (plausibility judgements)
    samples: dict[tuple[int, int], list[Any]] = dataclasses.field(default_factory=dict)
    uncodable: bool = False  # its distinct values are too large to code (TooManyCellsError)


class SourceCache:
    """Small sources already read, kept as tables of one database by a key naming the file
    exactly (its device, inode, size, modification and change times, and every read option):
    a warm call on an unchanged small file reads the table instead of parsing the file again,
    which cost a small call more than its query.

    A file that changes gets a new change time (no user can set it back), so its old entry is
    never found again and ages out. A file changed within :data:`RACY_NANOSECONDS` before it
    was read is not kept: a file system's coarse timestamps could let a second write in the
    same tick keep the key of the first (git's "racily clean" entries).

    Bounded by :data:`MAX_ENTRIES` entries and :data:`MAX_CELLS` cells in all (least recently
    used first out); an entry a call still reads is dropped once that call closes (with it its
    codes, at most 4 bytes a cell, and its profile, both made by the first call needing them).
    A source of more than :data:`MAX_COLUMNS` columns is never kept (copying a row of 60,000
    columns takes DuckDB hundreds of megabytes, however few rows there are).

    The kept tables belong to the database, not to a call's connection: only the engine's own
    SQL names them, by the name in the entry a call took after its file passed confinement.
    """

    MAX_ENTRIES = 64
    MAX_CELLS = 2_000_000
    MAX_COLUMNS = 256
    RACY_NANOSECONDS = 2_000_000_000

    def __init__(self, database: duckdb.DuckDBPyConnection) -> None:
        self._database = database
        self._lock = threading.Lock()
        self._entries: OrderedDict[Hashable, CachedSource] = OrderedDict()
        self._cells = 0  # of every table still in the database, evicted ones in use included
        self._names = itertools.count(1)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def take(self, key: Hashable) -> CachedSource | None:
        """The entry under ``key``, held for the caller until :meth:`give_back`; None if none."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
                entry.users += 1
            return entry

    @classmethod
    def keepable(cls, identity: os.stat_result, now_ns: int) -> bool:
        """Whether a file of this ``os.stat`` read at ``now_ns`` may be kept: it has not
        changed in the last :data:`RACY_NANOSECONDS`."""
        return now_ns - max(identity.st_mtime_ns, identity.st_ctime_ns) >= cls.RACY_NANOSECONDS

    def keep(
        self, backend: DuckDbBackend, key: Hashable, names: Sequence[str]
    ) -> CachedSource | None:
        """Copy ``backend``'s ``src`` into a table of the database and keep it under ``key``;
        the entry, held for the caller (None when the source is too large to keep)."""
        if len(names) > self.MAX_COLUMNS:
            return None
        relation = f"source_{next(self._names)}"
        # a small file may still hold millions of rows (a Parquet run of one value): one row
        # past what may be kept is copied, never the rest
        most = self.MAX_CELLS // 2 // max(1, len(names))
        rows = backend.fetchall(f"CREATE TABLE {relation} AS SELECT * FROM src LIMIT {most + 1}")[
            0
        ][0]
        cells = int(rows) * max(1, len(names))
        if cells > self.MAX_CELLS // 2:
            self._drop([relation])
            return None
        entry = CachedSource(relation, tuple(names), cells, users=1)
        with self._lock:
            kept = self._entries.get(key)
            if kept is None:
                self._entries[key] = entry
                self._cells += cells
                dropped = self._evict()
            else:  # another call kept this source meanwhile
                kept.users += 1
                entry, dropped = kept, [relation]
        self._drop(dropped)
        return entry

    def give_back(self, entry: CachedSource) -> None:
        """The caller no longer reads ``entry``'s table."""
        with self._lock:
            entry.users -= 1
            dropped = [self._forget(entry)] if entry.evicted and not entry.users else []
        self._drop(dropped)

    def _evict(self) -> list[str]:
        # under the lock: the tables to drop now, least recently used first
        dropped: list[str] = []
        for key in list(self._entries):
            if len(self._entries) <= self.MAX_ENTRIES and self._cells <= self.MAX_CELLS:
                break
            entry = self._entries.pop(key)
            entry.evicted = True
            if not entry.users:
                dropped.append(self._forget(entry))
        return dropped

    def _forget(self, entry: CachedSource) -> str:
        self._cells -= entry.cells
        return entry.relation

    def _drop(self, relations: Sequence[str]) -> None:
        if not relations:
            return
        connection = self._database.cursor()
        try:
            for relation in relations:
                connection.execute(f"DROP TABLE IF EXISTS {relation}")
        finally:
            connection.close()


def new_connection(
    confined_to: Sequence[Path] | None = None,
    *,
    progress: bool = True,
    memory: int = DEFAULT_ENGINE_MEMORY,
) -> duckdb.DuckDBPyConnection:
    """A connection of its own to the process's database for ``confined_to`` (see
    :func:`_database`): its temporary tables, views and settings are private to it and go
    with it when it closes, so one call never sees another's. ``progress``: its queries
    measure their progress (two settings, which cost a small call more than its scan).
    ``memory``: the database's memory limit in MiB (it spills to disk beyond)."""
    connection = _database(confined_to, memory).cursor()
    if progress:
        connection.execute("SET enable_progress_bar = true; SET enable_progress_bar_print = false")
    return connection


def refuse_unless_reading(sql: str) -> None:
    """Raise unless every statement of ``sql`` reads or makes or drops the call's own
    temporary relations: a statement that would write a file (``COPY … TO``, ``EXPORT``),
    attach a database, load an extension or change a setting never runs, whatever built it."""
    refused = _refused_statement(sql) if len(sql) <= _REMEMBERED_SQL else _refused(sql)
    if refused is not None:
        raise ToolError(
            f"refused to run a {refused} statement: the engine only reads", ErrorCode.FAILED
        )


_REMEMBERED_SQL = 4096  # longer statements (wide sources) are parsed each time


def _refused(sql: str) -> str | None:
    """The type of the first statement of ``sql`` the engine may not run; None if none."""
    for statement in duckdb.extract_statements(sql):
        if statement.type not in _STATEMENTS:
            return statement.type.name
    return None


# the same text always parses to the same statements: a small call repeats its few statements
# call after call, and parsing one cost about as much as running it on a small source
_refused_statement = functools.lru_cache(maxsize=512)(_refused)


_QUOTED_PATH = re.compile(r"""(['"])/[^'"\n]*\1""")
_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
_ORIGINAL = re.compile(r"Original Line: (.*)")
_FOUND = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
_LINE_SIZE = re.compile(r"Maximum line size of (\d+) bytes exceeded\. Actual Size: ?(\d+) bytes")


def duckdb_error(exc: duckdb.Error, label: str) -> ToolError:
    """A clear message for a DuckDB failure while reading ``label``; a path DuckDB quotes
    (the server's own, of the file or of the link it is read through) is named ``label``."""
    text = _QUOTED_PATH.sub(lambda found: f"{found[1]}{label}{found[1]}", str(exc))
    line = _CSV_LINE.search(text)
    where = f"line {line.group(1)} of {label}" if line else label
    if "Invalid unicode" in text or "invalid utf" in text.lower():
        return ToolError(
            f"{where} is not valid UTF-8; re-encode the file as UTF-8", ErrorCode.INVALID_ARGUMENT
        )
    too_long = _LINE_SIZE.search(text)
    if too_long and line:
        return overlong_line(
            label, int(line.group(1)), int(too_long.group(2)), int(too_long.group(1))
        )
    found = _FOUND.search(text)
    if found:
        original = _ORIGINAL.search(text)
        shown = f": {original.group(1).strip()[:200]!r}" if original else ""
        return ToolError(
            f"ragged row at {where}: the header has {found.group(1)} fields but the row has "
            f"{found.group(2)}{shown}",
            ErrorCode.INVALID_ARGUMENT,
        )
    if "gzip" in text.lower() or "GZIP" in text:
        return ToolError(
            f"reading {label} failed before the end of the data: the gzip stream is truncated "
            "or corrupt",
            ErrorCode.FAILED,
        )
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    if isinstance(exc, duckdb.OutOfMemoryException):
        # a small file may decode to far more (a Parquet page of one value repeated
        # 50 million times): the engine's memory bound stops it, and says which flag it is
        return ToolError(
            f"reading {label} needs more memory than the server's file engine may use, its "
            f"limit (--max-engine-memory); raise --max-engine-memory to read it ({first})",
            ErrorCode.INVALID_ARGUMENT,
        )
    return ToolError(f"reading {label} failed: {first}", ErrorCode.FAILED)


_DIRECT_PAGE_GROUPS = 10_000  # fewer repeated keys: one join of every row finds the page


class DuckDbBackend:
    """Runs a file source's queries on a private in-memory DuckDB connection."""

    local = True
    catalog: Catalog | None = None

    def __init__(
        self,
        connection: duckdb.DuckDBPyConnection,
        context: ToolContext,
        label: str,
        *,
        small: bool = False,
        cached: CachedSource | None = None,
    ) -> None:
        """``small``: the source is known to be small (its file is at most
        :data:`SMALL_FILE_BYTES`), so fewer, whole-source statements answer faster.
        ``cached``: the source is the table of this entry of a :class:`SourceCache` (its
        column profile is kept with it)."""
        self._connection = connection
        self.small = small
        self.cached = cached
        self._context = context
        self._label = label
        self.progress = Progress(context)
        self._releases: list[Callable[[], None]] = []

    def on_close(self, release: Callable[[], None]) -> None:
        """Run ``release`` when the backend closes (after its connection), e.g. closing the
        descriptor its reads went through."""
        self._releases.append(release)

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The underlying connection (for loading rows parsed in Python)."""
        return self._connection

    def quote(self, identifier: str) -> str:
        """Double-quoted, inner quotes doubled."""
        return '"' + identifier.replace('"', '""') + '"'

    def as_text(self, expression: str) -> str:
        """``CAST(… AS VARCHAR)``."""
        return f"CAST({expression} AS VARCHAR)"

    def sampled(self, expression: str) -> str:
        """The text (every column is text here), cut to :data:`SAMPLE_VALUE_BYTES` characters."""
        return f"left({expression}, {SAMPLE_VALUE_BYTES})"

    def execute(self, sql: str) -> None:
        """Run a statement without a result."""
        self.fetchall(sql)

    def fetchall(self, sql: str) -> list[tuple[Any, ...]]:
        """All rows of ``sql``; cancellation interrupts it, failures become ToolErrors."""
        with self._guarded():
            refuse_unless_reading(sql)
            return self._connection.execute(sql).fetchall()

    def batches(self, sql: str, rows: int) -> Iterator[Any]:
        """The result of ``sql`` as Arrow record batches of at most ``rows`` rows, streamed
        (never held whole); cancellation interrupts it, failures become ToolErrors."""
        with self._guarded():
            refuse_unless_reading(sql)
            yield from self._connection.sql(sql).to_arrow_reader(rows)

    @contextmanager
    def registered(self, name: str, data: pa.Table) -> Iterator[None]:
        """``data`` readable as the relation ``name`` while the context lasts."""
        self._connection.register(name, data)
        try:
            yield
        finally:
            self._connection.unregister(name)

    @contextmanager
    def _guarded(self) -> Iterator[None]:
        # progress and cancellation watched while DuckDB works; its errors as tool errors
        try:
            with watching(
                self._context,
                self._connection.interrupt,
                self._connection.query_progress,
                self.progress,
                f"scanning {self._label}",
            ):
                yield
        except duckdb.InterruptException as exc:
            raise ToolCancelledError from exc
        except OSError as exc:
            # an interrupted Arrow stream fails in pyarrow, not as a DuckDB error
            if self._context.cancelled:
                raise ToolCancelledError from exc
            raise
        except duckdb.Error as exc:
            if self._context.cancelled:
                raise ToolCancelledError from exc
            raise duckdb_error(exc, self._label) from exc

    def close(self) -> None:
        """Close the connection (its temporary relations go with it) and the descriptors it
        read through."""
        self._connection.close()
        for release in self._releases:
            release()
        self._releases.clear()

    def duplicate_groups(
        self, table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
    ) -> tuple[GroupCounts, list[DuplicateGroup]]:
        """Totals and one page of duplicate groups (first-occurrence order, with row numbers)
        from one scan: the key columns are copied in source order (see
        :func:`keyed_copy_statement`), the copy is grouped once, and only a page of duplicates
        reads the copy again.

        A small file is grouped once first: when it holds no duplicate (or no page is asked
        for), that one statement is the answer (each statement costs more than the scan).
        """
        if self.small:
            kept = self._kept_codes(table)
            counts = (
                kept.group_counts(positions, nulls)
                if kept is not None
                else counted_groups(table, positions, nulls, 0, 0)[0]
            )
            if not counts[2] or limit <= 0:
                return counts, []
        table.query(keyed_copy_statement(table, positions))
        table.query(repeated_keys_statement(table, positions))
        rows, missing_rows, multi_groups, multi_rows, multi_missing_groups, multi_missing_rows = (
            int(v) for v in table.query(keyed_totals_query(table, positions))[0]
        )
        # keys absent from dup_keys occur once: each is one group of one row
        groups = rows - multi_rows + multi_groups
        missing_groups = multi_missing_groups + missing_rows - multi_missing_rows
        dup_groups, dup_rows = multi_groups, multi_rows
        if nulls is Nulls.DISTINCT:
            # a key with a missing value never repeats under nulls=distinct
            dup_groups -= multi_missing_groups
            dup_rows -= multi_missing_rows
        examples: list[DuplicateGroup] = []
        if dup_groups and limit > 0:
            # many repeated keys: the page's keys first occur early, so rank only the keys of a
            # prefix of the rows, growing it until it holds the page (joining every row with a
            # million repeated keys cost as much as the grouping itself)
            shown = min(limit, max(0, dup_groups - offset))  # groups the page must hold
            prefix = 4 * (offset + limit) * rows // max(1, dup_rows) + 1_024
            while True:
                whole = prefix >= rows or dup_groups <= _DIRECT_PAGE_GROUPS
                table.query(
                    duplicate_page_statement(
                        table, positions, nulls, limit, offset, None if whole else prefix
                    )
                )
                if whole or table.query("SELECT COUNT(*) FROM dup_page")[0][0] >= shown:
                    break
                prefix *= 4
            page = table.query(  # key values (as shown), n, first
                f"SELECT {shown_list(table, positions)}, n, first FROM dup_page ORDER BY first"
            )
            listed = {
                int(first): tuple(int(n) for n in numbers)
                for first, numbers in table.query(page_rows_query(table, positions, ROWS_PER_GROUP))
            }
            width = len(positions)
            for row in page:
                values = tuple(shorten(v) for v in row[:width])
                examples.append(
                    DuplicateGroup(values, int(row[width]), listed[int(row[width + 1])])
                )
        if rows > _KEPT_ROWS:
            # the copies free their memory for any search that follows; small ones go with
            # the connection (a statement costs more than a small call's whole check)
            table.query("DROP TABLE IF EXISTS dup_page")
            table.query("DROP TABLE dup_keys")
            table.query("DROP TABLE keyed")
        return (groups, rows, dup_groups, dup_rows, missing_groups, missing_rows), examples

    def column_stats(
        self, table: Table, positions: Sequence[int], *, code: bool = False
    ) -> ColumnStats:
        """A wide source (or any, with ``code``) whose cells fit in memory is coded in one
        streamed pass (exact counts); otherwise one aggregate pass with HyperLogLog
        estimates, exact distinct counts (and their hashes' distinct counts) only for narrow
        searches, whose exact ``COUNT(DISTINCT …)`` per column grows with the square of the
        column count, and the head sample's facts for wide ones."""
        kept = self._kept_codes(table)
        if kept is not None:
            return stats_of_codes(kept, positions, len(table.names))
        narrow = len(positions) <= EXACT_DISTINCT_COLUMNS
        if code or not narrow:
            coded = coded_stats(table, positions)
            if coded is not None:
                return coded
        return aggregate_stats(
            table,
            positions,
            table.relation,
            estimate=True,
            exact=narrow,
            hashes=narrow,
            head=not narrow,
        )

    def _kept_codes(self, table: Table) -> CodeMatrix | None:
        """A kept source's codes of every column, made by the first call that needs them
        (they depend only on the rows kept); None for a source not kept. A warm call then
        answers from array work on them instead of a DuckDB statement, which cost a small
        call more than everything else it did; the codes are read-only, shared by calls."""
        cached = self.cached
        if cached is None or cached.uncodable:
            return None
        if cached.codes is None:
            positions = range(len(table.names))
            try:
                codes = CodeMatrix.encode(table, table.relation, positions, measure=True)
            except TooManyCellsError:
                # a small file may still hold long values (Parquet decodes to up to 1,000
                # times its size): answered by DuckDB, as a source not kept is
                cached.uncodable = True
                return None
            codes.freeze()
            cached.codes = codes
        return cached.codes

    def profile(self, table: Table) -> Profile:
        """Values are text: types inferred from it (see :func:`text_profile`); a cached
        source's profile is computed once (it depends only on the rows kept)."""
        cached = self.cached
        if cached is None:
            return text_profile(table, self.registered)
        if cached.profile is None:
            cached.profile = text_profile(table, self.registered)
        return dataclasses.replace(cached.profile, source=table.label)

    def sample_values(
        self, table: Table, positions: Sequence[int], rows: int
    ) -> dict[int, list[Any]]:
        """The first rows' values (:func:`.sql.sample_values`); a kept source's are read
        once per column (they depend only on the rows kept): the query cost a warm call on a
        small wide file 5-7 ms of CPU, a third of the call."""
        cached = self.cached
        if cached is None:
            return sample_values(table, positions, rows)
        unread = [p for p in positions if (rows, p) not in cached.samples]
        if unread:
            read = sample_values(table, unread, rows)
            cached.samples.update({(rows, p): values for p, values in read.items()})
        return {p: cached.samples[(rows, p)] for p in positions}

    def codes(
        self, table: Table, positions: Sequence[int], source: str, max_cells: int
    ) -> CodeMatrix:
        """Streamed out as Arrow and coded by value here (see :meth:`CodeMatrix.encode`)."""
        return CodeMatrix.encode(table, source, positions, max_cells=max_cells)

    def search_source(
        self,
        table: Table,
        columns: Sequence[int],
        nulls: Nulls,
        context: ToolContext,
        *,
        rows: int,
        hash_safe: frozenset[int],
    ) -> SearchSource:
        """In-memory copies of the searched columns (see :class:`_Search`)."""
        return _Search(self, table, columns, nulls, context, hash_safe)

    def sketcher(self) -> Sketcher:
        """A K-minimum-values sketch of DuckDB's ``hash`` of the key."""
        return _sketch


class _Search:
    """A key search's in-memory copy of the searched columns (of a wide search, only those
    checks have needed so far), so repeated scans skip re-parsing the file.

    Columns whose values all hash to distinct 64-bit values are copied as their hashes:
    grouping fixed-width integers is much faster than grouping text, and equal hashes then
    mean equal values, so every answer stays exact.
    """

    def __init__(
        self,
        backend: DuckDbBackend,
        table: Table,
        columns: Sequence[int],
        nulls: Nulls,
        context: ToolContext,
        hash_safe: frozenset[int],
    ) -> None:
        self._backend = backend
        self._table = table
        self._columns = tuple(columns)
        self._nulls = nulls
        self._context = context
        self._hash_safe = hash_safe
        self._copy: str | None = None
        self._copied: set[int] = set()
        self._samples: list[str] | None = None
        self._sizes: tuple[int, ...] = ()  # the sizes asked for when the samples were made

    def relation(self, needed: Sequence[int] = ()) -> str:
        """The copy, made (again, wider) when it lacks a needed column."""
        wide = len(self._columns) > EXACT_DISTINCT_COLUMNS
        wanted = set(needed) | self._copied if wide else set(self._columns)
        if self._copy is None or not wanted <= self._copied:
            columns = []
            for p in sorted(wanted):
                c = self._table.column(p)
                columns.append(
                    f"CASE WHEN {c} IS NULL THEN NULL ELSE hash({c}) END AS {c}"
                    if p in self._hash_safe
                    else c
                )
            self._backend.execute(
                "CREATE OR REPLACE TEMP TABLE search AS "
                f"SELECT {', '.join(columns)} FROM {self._table.relation}"
            )
            self._copy = "search"
            self._copied = wanted
            self._samples = None  # samples of the old copy lack the new columns
        return self._copy

    def samples(self, sizes: Sequence[int]) -> list[str]:
        """Random samples of the copy once there is one (a random sample costs a scan, worth
        it once the data sits in memory); before, the first rows of the file, which come
        almost for free."""
        if self._samples is None or self._sizes != tuple(sizes):
            self._samples, self._sizes = [], tuple(sizes)
            for rows in sizes:
                name = f"sample_{rows}"
                if self._copy is not None:
                    how = f"{self._copy} USING SAMPLE reservoir({rows} ROWS) REPEATABLE (7)"
                else:
                    how = f"{self._table.relation} LIMIT {rows}"
                self._backend.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT * FROM {how}")
                self._samples.append(name)
        return self._samples

    def duplicated(
        self, candidates: Sequence[tuple[int, ...]], source: str
    ) -> set[tuple[int, ...]]:
        """One GROUP BY per candidate."""
        return duplicated_each(self._table, candidates, self._nulls, source, self._context)


def _sketch(table: Table, positions: Sequence[int], nulls: Nulls) -> Sketch:
    """Rows, rows with a missing key value and the smallest key hashes, in one aggregate.

    DuckDB's ``min(x, k)`` costs far more per row than hashing, so only hashes in the lowest
    1/16 of the range enter it. Once that holds ``k`` hashes they are the ``k`` smallest of
    all; when it does not (up to about ``16 k`` rows), a second pass takes them from every row.
    """
    missing = any_missing(table, positions)
    kept = f"NOT ({missing})" if nulls is Nulls.DISTINCT else "TRUE"
    cols = column_list(table, positions)
    hashed = f"SELECT hash({cols}) AS h, {cols} FROM {table.relation}"
    rows, missing_rows, hashes = table.query(
        f"SELECT COUNT(*), COUNT(CASE WHEN {missing} THEN 1 END), "
        f"min(h, {SKETCH_KEYS}) FILTER (WHERE {kept} AND h < {_PREFILTER}::UBIGINT) "
        f"FROM ({hashed}) s"
    )[0]
    eligible = rows - missing_rows if nulls is Nulls.DISTINCT else rows
    if len(hashes or ()) < SKETCH_KEYS < eligible:
        (hashes,) = table.query(
            f"SELECT min(h, {SKETCH_KEYS}) FILTER (WHERE {kept}) FROM ({hashed}) s"
        )[0]
    ordered = sorted(int(h) for h in hashes or ())
    return kmv_sketch(int(rows), int(missing_rows), ordered, nulls, "DuckDB hash")


def keyed_copy_statement(table: Table, positions: Sequence[int]) -> str:
    """copy the key columns of every row into the temp table ``keyed``.

    DuckDB keeps the copy in source order (insertion order is preserved even when the scan
    runs in parallel), so a row's ``rowid`` in ``keyed`` is its 0-based row number: row
    numbers come free with the copy, where numbering the scan itself (``row_number() OVER
    ()``) forces it through one ordered stream and cost more than the grouping.
    """
    return (
        f"CREATE OR REPLACE TEMP TABLE keyed AS SELECT {column_list(table, positions)} "
        f"FROM {table.relation}"
    )


def repeated_keys_statement(table: Table, positions: Sequence[int]) -> str:
    """the keys of ``keyed`` that occur more than once, with their counts ``n``,
    into the temp table ``dup_keys`` (a key left out occurs exactly once)."""
    cols = column_list(table, positions)
    return (
        f"CREATE OR REPLACE TEMP TABLE dup_keys AS SELECT {cols}, COUNT(*) AS n FROM keyed "
        f"GROUP BY {cols} HAVING COUNT(*) > 1"
    )


def keyed_totals_query(table: Table, positions: Sequence[int]) -> str:
    """rows and rows with a missing key value of ``keyed``, then the repeated keys'
    groups and rows, all and those with a missing value, from ``dup_keys``."""
    missing = any_missing(table, positions)
    return (
        f"SELECT (SELECT COUNT(*) FROM keyed), (SELECT COUNT(*) FROM keyed WHERE {missing}), "
        "COUNT(*), COALESCE(SUM(n), 0), "
        f"COUNT(CASE WHEN {missing} THEN 1 END), COALESCE(SUM(CASE WHEN {missing} THEN n END), 0) "
        "FROM dup_keys"
    )


def _same_key(table: Table, positions: Sequence[int], left: str, right: str) -> str:
    return " AND ".join(
        f"{left}.{table.column(p)} IS NOT DISTINCT FROM {right}.{table.column(p)}"
        for p in positions
    )


def duplicate_page_statement(
    table: Table,
    positions: Sequence[int],
    nulls: Nulls,
    limit: int,
    offset: int,
    prefix: int | None = None,
) -> str:
    """one page of the repeated keys in ``dup_keys``, in first-occurrence order
    (key values, ``n``, 1-based ``first`` row number), into the temp table ``dup_page``.

    With ``prefix``, only keys occurring in the first ``prefix`` rows are ranked: their first
    occurrences are the earliest of all, so when at least ``offset + limit`` of them are
    there, the page is the page of all keys."""
    cols = ", ".join(f"k.{table.column(p)}" for p in positions)
    where = f" WHERE {not_missing(table, positions)}" if nulls is Nulls.DISTINCT else ""
    rows = "keyed" if prefix is None else f"(SELECT rowid, * FROM keyed WHERE rowid < {prefix})"
    return (
        f"CREATE OR REPLACE TEMP TABLE dup_page AS SELECT {cols}, d.n, MIN(k.rowid) + 1 AS first "
        f"FROM {rows} k JOIN (SELECT * FROM dup_keys{where}) d "
        f"ON {_same_key(table, positions, 'k', 'd')} GROUP BY {cols}, d.n "
        f"ORDER BY first LIMIT {limit} OFFSET {offset}"
    )


def page_rows_query(table: Table, positions: Sequence[int], rows_shown: int) -> str:
    """the first ``rows_shown`` 1-based row numbers of each group in ``dup_page``,
    by the group's first row number (DuckDB's bounded ``min(x, n)``, ascending: a group of
    50 million rows listed whole took the engine past its memory limit)."""
    return (
        f"SELECT p.first, min(k.rowid + 1, {rows_shown}) FROM keyed k "
        f"JOIN dup_page p ON {_same_key(table, positions, 'k', 'p')} GROUP BY p.first"
    )
