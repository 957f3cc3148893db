"""The on-disk index store: parsed files and resolved graphs that outlive the process.

A restarted server reads each project's facts back instead of parsing every file again. The
store is one SQLite file per project root (named by a hash of the root's real path) in a
cache directory outside every project. Rows are keyed by the file's root-relative path and
checked against its size and ``mtime_ns``; each row keeps the SHA-256 of the content, so a
file whose stat changed but whose bytes did not (a checkout, a copy) is recognised without
parsing it. A resolved graph is kept per language selection, keyed by the content of every
source and module-resolution config, so an unchanged project needs no resolution either.

The cache directory may be reachable by others, so its contents are untrusted input: the
directory must be a real directory (not a symlink) owned by this user and writable by no
one else (it is created 0700), a store file must be a regular file owned by this user, and
every row is MessagePack decoded by msgspec into declared types (never pickle), its lengths
and ranges checked (a file's facts when they are first decoded, see
:mod:`context_server.core.packed`). Anything unexpected (a foreign or corrupt file, another
format or version, a bad row) is reported with a warning and ignored or rebuilt; the answer never
depends on the store being sound. Writes are SQLite transactions, so a crash leaves the
previous state.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import importlib.metadata
import logging
import os
import re
import sqlite3
import stat
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

import msgspec
import platformdirs

from context_server.core.graph import PackedGraph, pack_graph, unpack_graph
from context_server.core.languages import LANGUAGES

FORMAT = 3
"""The layout of a store file; another number in a file means it is rebuilt."""
MAX_FACTS_BYTES = 16 * 1024 * 1024
"""A file row whose facts are longer is not read (a source is at most 2 MiB)."""
GRAPH_BYTES = 16 * 1024 * 1024
GRAPH_BYTES_PER_FILE = 4096
"""A stored graph longer than ``GRAPH_BYTES`` plus this per source file is not read."""
LISTING_BYTES = 16 * 1024 * 1024
"""A stored listing longer than this is not read, the tree is walked instead (114,000 files
take about 4 MB). Decoded, a listing costs about 20 times its size at worst (a million
empty directories a forged one names: 400 MB and 2.3 s of a restart's CPU at this limit)."""
ROWS_PER_FILE = 4
"""Rows examined per listed file at most: a store holding more is no store of this project."""
STORE_SUFFIX = ".sqlite3"
RETENTION_SECONDS = 30 * 24 * 3600
"""A store file not opened for this long (a project gone or no longer served) is removed."""
_STORE_NAME = re.compile(r"[0-9a-f]{32}" + re.escape(STORE_SUFFIX))
# What decoding a malformed row may raise (msgspec's errors are ValueErrors).
_MALFORMED = (ValueError, TypeError, IndexError)
_LANGUAGE_NAMES = frozenset(language.name for language in LANGUAGES)
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL,"
    " mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, digest TEXT NOT NULL,"
    " module TEXT NOT NULL, language TEXT NOT NULL, facts BLOB, problem TEXT)",
    "CREATE TABLE IF NOT EXISTS graphs (languages TEXT PRIMARY KEY, signature TEXT NOT NULL,"
    " direct BLOB NOT NULL)",
    "CREATE TABLE IF NOT EXISTS listings (boundary TEXT PRIMARY KEY, listing BLOB NOT NULL)",
)
_TABLES = frozenset({"meta", "files", "graphs", "listings"})

_log = logging.getLogger(__name__)


class FileRecord(msgspec.Struct, frozen=True, gc=False):
    """What the index knows of one source file: its stat signature, the SHA-256 of its
    content (empty when it was never read), the module name and dialect it was parsed
    under, and its facts (packed, see :mod:`context_server.core.packed`) or the reason it
    was skipped."""

    # a msgspec struct outside the collector (it holds no container): made for each of
    # 100,000 stored rows on a restart, where a frozen dataclass costs ten times more

    size: int
    mtime_ns: int
    ctime_ns: int
    digest: str
    module: str
    language: str
    facts: bytes | None
    problem: str | None


def default_directory() -> Path:
    """The store directory when none is configured: the user's cache directory
    (``$XDG_CACHE_HOME/mcp-tools/context-server``, ``~/.cache/…`` without it)."""
    return Path(platformdirs.user_cache_dir("mcp-tools")) / "context-server"


def fingerprint() -> str:
    """What the stored facts depend on besides the files: the store format, the parser and
    grammar versions, and the source of the indexing code itself (so any change to the
    extraction, even without a version bump, invalidates what it produced)."""
    digest = hashlib.sha256(f"format {FORMAT}\n".encode())
    distributions = sorted(
        {"tree-sitter"}
        | {language.grammar.__module__.split(".")[0].replace("_", "-") for language in LANGUAGES}
    )
    for name in distributions:
        digest.update(f"{name} {importlib.metadata.version(name)}\n".encode())
    core = Path(__file__).parent
    for module in sorted(core.rglob("*.py")):
        name = module.relative_to(core).as_posix()
        digest.update(name.encode() + b"\0" + module.read_bytes() + b"\0")
    return digest.hexdigest()


class IndexStore:
    """The store directory: hands out one :class:`RootStore` per project root.

    Nothing touches the disk before the first :meth:`open`. A directory that is unsafe
    (a symlink, owned by someone else, writable by group or others, inside ``outside``)
    is refused with a warning, and the index then lives in memory only.
    """

    def __init__(self, directory: Path, outside: Sequence[Path] = ()) -> None:
        self.directory = directory
        self._outside = tuple(outside)
        self._usable: bool | None = None
        self._fingerprint = ""
        self._lock = threading.Lock()

    def open(self, root: Path) -> RootStore | None:
        """The store of the project at ``root`` (a real path), or None if the store cannot
        be used (the reason was logged)."""
        with self._lock:
            if self._usable is None:
                self._usable = self._prepare()
            if not self._usable:
                return None
        name = hashlib.sha256(str(root).encode()).hexdigest()[:32] + STORE_SUFFIX
        return RootStore.open(self.directory / name, root, self._fingerprint)

    def _prepare(self) -> bool:
        directory = Path(os.path.abspath(os.path.expanduser(self.directory)))
        real = Path(os.path.realpath(directory))
        inside = next((r for r in self._outside if real.is_relative_to(r)), None)
        if inside is not None:
            return _refuse(directory, "it lies inside an allowed directory (a project)")
        try:
            # mode 0700 for every directory created here (the umask may only remove bits)
            os.makedirs(directory, mode=0o700, exist_ok=True)
            info = os.lstat(directory)
        except OSError as exc:
            return _refuse(directory, exc.strerror or str(exc))
        if stat.S_ISLNK(info.st_mode):
            return _refuse(directory, "it is a symlink")
        if not stat.S_ISDIR(info.st_mode):
            return _refuse(directory, "it is not a directory")
        if info.st_uid != os.geteuid():
            return _refuse(directory, "it is owned by another user")
        if info.st_mode & 0o022:
            return _refuse(directory, "group or others may write to it")
        self.directory = directory
        _remove_stale(directory)
        try:
            self._fingerprint = fingerprint()
        except (OSError, importlib.metadata.PackageNotFoundError) as exc:
            return _refuse(directory, f"the indexing code's version is unknown ({exc})")
        return True


def _remove_stale(directory: Path) -> None:
    """Remove the store files nobody opened for :data:`RETENTION_SECONDS` (each open marks
    its file), so stores of deleted or abandoned projects do not pile up."""
    oldest = time.time() - RETENTION_SECONDS
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            info = entry.stat(follow_symlinks=False)
            if (
                _STORE_NAME.fullmatch(entry.name)
                and stat.S_ISREG(info.st_mode)
                and info.st_uid == os.geteuid()
                and info.st_mtime < oldest
            ):
                _remove(Path(entry.path))


def _refuse(directory: Path, reason: str) -> bool:
    _log.warning("index store %s not used: %s; the index is kept in memory only", directory, reason)
    return False


class RootStore:
    """The stored index of one project root: its files' facts and its resolved graphs.

    Every method catches the store's own failures: a read gives nothing, a write is
    dropped, and after a failure the store of this root is no longer used.
    """

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._connection: sqlite3.Connection | None = connection
        self._lock = threading.Lock()

    @classmethod
    def open(cls, path: Path, root: Path, fingerprint: str) -> RootStore | None:
        """The store file ``path`` for ``root``; a foreign, corrupt or outdated one is
        rebuilt, an unsafe one (a symlink, not a regular file, another owner) refused."""
        try:
            info = os.lstat(path)
        except FileNotFoundError:
            info = None
        except OSError as exc:
            _log.warning("index store file %s not used: %s", path, exc.strerror or exc)
            return None
        if info is not None:
            if stat.S_ISLNK(info.st_mode) or not stat.S_ISREG(info.st_mode):
                _log.warning("index store file %s not used: it is not a regular file", path)
                return None
            if info.st_uid != os.geteuid():
                _log.warning("index store file %s not used: it is owned by another user", path)
                return None
        for attempt in range(2):
            connection = None
            level = logging.WARNING
            try:
                if info is None:
                    _create(path)
                connection = _connect(path)
                outdated = _outdated(connection, root, fingerprint)
                if outdated is None:
                    with contextlib.suppress(OSError):
                        os.utime(path)  # in use: not stale
                    return cls(path, connection)
                level, reason = outdated
            except sqlite3.Error as exc:
                reason = f"it is unreadable ({exc})"
                if not _damaged(exc):
                    # busy (another server writing it) or an I/O error: left as it is
                    if connection is not None:
                        connection.close()
                    break
            except OSError as exc:
                reason = str(exc.strerror or exc)
                break
            if connection is not None:
                connection.close()
            if attempt == 0 and info is not None:
                _log.log(level, "index store file %s rebuilt: %s", path, reason)
            try:
                _remove(path)
            except OSError as exc:
                reason = str(exc.strerror or exc)
                break
            info = None
        _log.warning("index store file %s not used: %s", path, reason)
        return None

    def files(self, paths: Collection[str]) -> tuple[dict[str, FileRecord], list[str]]:
        """The well-formed stored records of ``paths`` (the files listed now), and the
        stored paths not among them (files gone since). Malformed rows
        are dropped with a warning; a row longer than :data:`MAX_FACTS_BYTES` is not even
        read, nor a row of a skipped file (its reason is found again, so no text of the
        store reaches an answer); a store holding far more rows than the project has files
        is read no further."""
        limit = ROWS_PER_FILE * len(paths) + 1000
        query = (
            "SELECT path, size, mtime_ns, ctime_ns, digest, module, language,"
            " CASE WHEN length(facts) <= ? THEN facts END FROM files"
            " WHERE problem IS NULL AND length(path) <= 4096 LIMIT ?"
        )
        found: dict[str, FileRecord] = {}
        unlisted: list[str] = []
        bad = 0
        seen = 0

        def take(row: tuple[Any, ...]) -> None:
            nonlocal bad, seen
            seen += 1
            if seen > limit:
                return
            if row[0] not in paths:
                unlisted.append(row[0])
                return
            try:
                path, record = _record(row)
            except _MALFORMED:
                bad += 1
                return
            found[path] = record

        # streamed: the rows are decoded as they come, never all held as blobs at once
        with collector_paused():
            self._read_each(query, (MAX_FACTS_BYTES, limit + 1), take)
        if bad:
            _log.warning("index store %s: %d malformed rows ignored (re-parsed)", self.path, bad)
        if seen > limit:
            _log.warning(
                "index store %s: more than %d rows for %d files; the rest is not read",
                self.path,
                limit,
                len(paths),
            )
        return found, unlisted

    def save(self, changed: Mapping[str, FileRecord], gone: Iterable[str]) -> None:
        """Write ``changed`` records and forget the ``gone`` paths, in one transaction (the
        rows encoded one by one as SQLite takes them: a first build of a large project never
        holds all of them encoded at once)."""
        rows = (
            (
                path,
                record.size,
                record.mtime_ns,
                record.ctime_ns,
                record.digest,
                record.module,
                record.language,
                record.facts,
                record.problem,
            )
            for path, record in changed.items()
        )
        removed = [(path,) for path in gone]
        if not changed and not removed:
            return

        def write(connection: sqlite3.Connection) -> None:
            connection.executemany(
                "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows
            )
            connection.executemany("DELETE FROM files WHERE path = ?", removed)

        self._write(write)

    def graph(self, languages: str, signature: str, paths: Sequence[str]) -> PackedGraph | None:
        """The stored direct dependencies of ``paths`` for the language selection
        ``languages``, if they were resolved from sources with this ``signature``."""
        limit = GRAPH_BYTES + GRAPH_BYTES_PER_FILE * len(paths)
        # matched by the signature first: after an edit the stored graph (megabytes on a
        # large project) is another's, and is not read at all
        rows = self._read(
            "SELECT signature, CASE WHEN length(direct) <= ? THEN direct END FROM graphs"
            " WHERE languages = ? AND signature = ?",
            (limit, languages, signature),
        )
        if not rows or rows[0][0] != signature:
            return None
        try:
            with collector_paused():
                return unpack_graph(rows[0][1], paths)
        except _MALFORMED:
            _log.warning("index store %s: malformed graph ignored (resolved again)", self.path)
            return None

    def save_graph(self, languages: str, signature: str, graph: PackedGraph) -> None:
        """Keep the direct dependencies of every file, resolved from ``signature``."""
        encoded = pack_graph(graph)
        self._write(
            lambda connection: connection.execute(
                "INSERT OR REPLACE INTO graphs VALUES (?, ?, ?)", (languages, signature, encoded)
            )
        )

    def listing(self, boundary: str) -> bytes | None:
        """The stored listing of the root walked with the ``.gitignore`` files from
        ``boundary`` down (see :mod:`context_server.core.stored_listing`), if any."""
        rows = self._read(
            "SELECT length(listing), CASE WHEN length(listing) <= ? THEN listing END"
            " FROM listings WHERE boundary = ?",
            (LISTING_BYTES, boundary),
        )
        if rows and type(rows[0][0]) is int and rows[0][0] > LISTING_BYTES:
            _log.warning(
                "index store %s: the stored listing takes %.0f MB, over the %d MB a listing"
                " may take; the project is walked",
                self.path,
                rows[0][0] / (1024 * 1024),
                LISTING_BYTES // (1024 * 1024),
            )
        found = rows[0][1] if rows else None
        return found if type(found) is bytes else None

    def save_listing(self, boundary: str, listing: bytes) -> None:
        """Keep the packed listing of the root walked from ``boundary``."""
        self._write(
            lambda connection: connection.execute(
                "INSERT OR REPLACE INTO listings VALUES (?, ?)", (boundary, listing)
            )
        )

    def _read(self, query: str, parameters: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
        rows: list[tuple[Any, ...]] = []
        self._read_each(query, parameters, rows.append)
        return rows

    def _read_each(
        self,
        query: str,
        parameters: tuple[object, ...],
        each: Callable[[tuple[Any, ...]], object],
    ) -> None:
        with self._lock:
            if self._connection is None:
                return
            try:
                cursor = self._connection.execute(query, parameters)
                while batch := cursor.fetchmany(512):
                    for row in batch:
                        each(row)
            except sqlite3.Error as exc:
                self._fail("unreadable", exc)
                if _damaged(exc):
                    # removed, so that the next process starts it afresh
                    with contextlib.suppress(OSError):
                        _remove(self.path)

    def _write(self, action: Callable[[sqlite3.Connection], object]) -> None:
        with self._lock:
            if self._connection is None:
                return
            try:
                with self._connection:
                    action(self._connection)
            except sqlite3.Error as exc:
                self._fail("not written", exc)

    def _fail(self, what: str, exc: sqlite3.Error) -> None:
        _log.warning(
            "index store %s %s (%s); the index of this project is kept in memory only",
            self.path,
            what,
            exc,
        )
        assert self._connection is not None
        self._connection.close()
        self._connection = None


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection inside: for work making a million acyclic objects (decoding a
    store, building a resolver), whose passes of the collector cost a third of its time."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _damaged(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` says the file is no sound database (rather than busy or unreadable)."""
    return getattr(exc, "sqlite_errorcode", None) in {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}


def _create(path: Path) -> None:
    """A new empty store file (SQLite starts an empty file afresh), readable by its owner
    only; never through a symlink."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | os.O_NOFOLLOW, 0o600))


def _connect(path: Path) -> sqlite3.Connection:
    # nofollow: never open a store file through a symlink put there after the check
    uri = f"file:{quote(str(path))}?mode=rwc&nofollow=1"
    connection = sqlite3.connect(uri, uri=True, timeout=10.0, check_same_thread=False)
    for pragma in (
        "PRAGMA trusted_schema = OFF",
        "PRAGMA cell_size_check = ON",
        "PRAGMA mmap_size = 0",
    ):
        connection.execute(pragma)
    return connection


def _outdated(
    connection: sqlite3.Connection, root: Path, fingerprint: str
) -> tuple[int, str] | None:
    """Why the store cannot serve (with the log level that deserves), or None if it is ours
    and up to date (an empty new file is made so)."""
    entries = _schema_of(connection)
    if not entries:
        # One explicit transaction (sqlite3 would commit each CREATE on its own), so another
        # server process never sees half a schema; one making the same new store at this
        # moment waits for it, and its statements then leave what the first one wrote.
        connection.execute("BEGIN IMMEDIATE")
        try:
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.executemany(
                "INSERT OR IGNORE INTO meta VALUES (?, ?)",
                [("format", str(FORMAT)), ("root", str(root)), ("fingerprint", fingerprint)],
            )
            connection.commit()
        except BaseException:
            connection.rollback()
            raise
        entries = _schema_of(connection)
    expected = _expected_schema()
    tables = {name for kind, name, _, _ in entries if kind == "table"}
    meta_shape = {entry for entry in entries if entry[2] == "meta"}
    if tables != _TABLES or meta_shape != {entry for entry in expected if entry[2] == "meta"}:
        return logging.WARNING, "its tables are not an index store's"
    meta = dict(connection.execute("SELECT key, value FROM meta").fetchall())
    if meta != {"format": str(FORMAT), "root": str(root), "fingerprint": fingerprint}:
        # an upgrade outdates every store: worth a note, not a warning
        return logging.INFO, "it was written for another project or version"
    if entries != expected:
        # a trigger would run on the server's own writes, a view or another column shape
        # would answer what the server did not store
        return logging.WARNING, "it holds more than an index store's tables"
    return None


_Schema = frozenset[tuple[str, str, str, str | None]]
_EXPECTED: list[_Schema] = []


def _schema_of(connection: sqlite3.Connection) -> _Schema:
    """Every object of the database: its kind, name, table and SQL."""
    return frozenset(connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master"))


def _expected_schema() -> _Schema:
    """The objects of a store as this code makes it (made once in memory, so that SQLite's
    own spelling of each statement is what a store is compared with)."""
    if not _EXPECTED:
        with contextlib.closing(sqlite3.connect(":memory:")) as connection:
            for statement in _SCHEMA:
                connection.execute(statement)
            _EXPECTED.append(_schema_of(connection))
    return _EXPECTED[0]


def _remove(path: Path) -> None:
    for leftover in [
        path,
        *(path.with_name(path.name + end) for end in ("-journal", "-wal", "-shm")),
    ]:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(leftover)


# decoding ----------------------------------------------------------------------------------
# Facts, graphs and listings are MessagePack decoded by msgspec straight into declared types
# and checked for what a type cannot say by their own modules (packed, graph,
# stored_listing); a file row's columns are checked here.
def _record(row: tuple[Any, ...]) -> tuple[str, FileRecord]:
    """A stored file row, its columns checked; its facts are kept packed and checked when
    first decoded (see :class:`context_server.core.packed.PackedFacts`)."""
    path, size, mtime_ns, ctime_ns, digest, module, language, facts = row
    # spelled out, not a loop: this runs for each of 100,000 rows on a restart
    if not (
        type(path) is str
        and type(digest) is str
        and type(module) is str
        and type(language) is str
        and type(size) is int
        and type(mtime_ns) is int
        and type(ctime_ns) is int
    ):
        raise ValueError("bad file row")
    if type(facts) is not bytes:
        raise ValueError("a file row without facts (or facts over the size limit)")
    if language not in _LANGUAGE_NAMES:
        raise ValueError("facts of an unknown language")
    return path, FileRecord(size, mtime_ns, ctime_ns, digest, module, language, facts, None)
