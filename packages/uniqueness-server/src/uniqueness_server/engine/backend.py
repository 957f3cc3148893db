"""The interface every backend implements, and the pieces all backends share.

A *backend* is the engine that runs one opened source's queries: embedded DuckDB for files,
a SQL database (PostgreSQL, SQLite) or a Spark Connect cluster. The algorithm modules
(:mod:`.check`, :mod:`.keys`, :mod:`.keysearch`, :mod:`.codes`, :mod:`.stats`, :mod:`.profile`,
:mod:`.approximate`, :mod:`.metadata`) talk to a source only through :class:`Backend` (and the
:class:`SearchSource`, :class:`Catalog` and sketch function it hands out); they never import a
backend module, so they cannot switch on a backend's type or dialect (an import-linter
contract, generated from ``[tool.mcp-tools.plugins]`` in the package's pyproject, says so).
Where backends differ, the difference is a method of the backend, or a capability it states
(:attr:`Backend.local`), never a test of what it is.

The implementations live in :mod:`uniqueness_server.engine.backends`, one module each, with
the registry that picks one for a database URL.

Every backend also:

- turns its driver's errors into clear :class:`ToolError` s (never tracebacks, never
  credentials);
- honours cancellation by interrupting the running query from a watcher thread
  (:func:`watching`: a blocked query never reaches Python code that could poll the flag);
- reports progress through :class:`Progress`, never going backwards.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mcp_common import ErrorCode, ToolContext, ToolError

if TYPE_CHECKING:
    from uniqueness_server.engine.codes import CodeMatrix
    from uniqueness_server.engine.metadata import Catalog
    from uniqueness_server.engine.model import DuplicateGroup, Nulls, Profile
    from uniqueness_server.engine.stats import ColumnStats
    from uniqueness_server.engine.table import Table

_POLL_SECONDS = 0.2
SAMPLE_VALUE_BYTES = 4096
"""Longest value fetched whole as a sample (for its type and its display); a longer one
stays where it is (an answer shows 200 characters of a value at most)."""

GroupCounts = tuple[int, int, int, int, int, int]
"""One GROUP BY pass over a key: key groups, rows, duplicate groups, duplicate rows, groups with
a missing key value and rows with one (duplicates as ``nulls`` counts them)."""


@dataclass(frozen=True, slots=True)
class Sketch:
    """What one pass through a distinct-count sketch of a key says (approximate mode).

    ``exact_because`` set: the sketch cannot bound the answer usefully (it kept every key, or
    two kept keys collide), so the exact check answers, labelled with this reason. Otherwise
    ``estimate`` distinct keys among the comparable rows, within ``[lower, upper]`` at
    :data:`uniqueness_server.engine.approximate.SIGMAS` standard deviations.
    """

    rows: int
    missing: int  # rows with a missing key value
    method: str = ""
    estimate: float = 0.0
    lower: float = 0.0
    upper: float = 0.0
    exact_because: str | None = None


Sketcher = Callable[["Table", Sequence[int], "Nulls"], Sketch]
"""Sketches the key at the given positions of a table in one pass."""


class Progress:
    """Forwards progress to the client, never going backwards (the protocol requires it)."""

    def __init__(self, context: ToolContext) -> None:
        self._context = context
        self._last = -1.0
        self._lock = threading.Lock()
        self.scan_reports = True  # False while a search reports its own, coarser progress

    def report(self, percent: float, message: str | None = None) -> None:
        """Report ``percent`` (0..100) if it is higher than anything reported before.

        The value is compared as sent (rounded), so two reports never carry one value."""
        shown = round(percent, 3)
        with self._lock:
            if shown <= self._last:
                return
            self._last = shown
        self._context.report_progress(shown, 100.0, message)


@dataclass(eq=False)
class _Watch:
    context: ToolContext
    interrupt: Callable[[], None]
    progress: Callable[[], float] | None
    sink: Progress | None
    message: str | None
    interrupted: bool = False


class _Watchdog:
    """One thread watching every running query of the process: it interrupts the query of a
    cancelled call and forwards progress. (A thread per query cost more than a small query.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watches: set[_Watch] = set()
        self._thread: threading.Thread | None = None

    def add(self, watch: _Watch) -> None:
        with self._lock:
            self._watches.add(watch)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="uniqueness-query-watch", daemon=True
                )
                self._thread.start()

    def discard(self, watch: _Watch) -> None:
        with self._lock:
            self._watches.discard(watch)

    def count(self) -> int:
        with self._lock:
            return len(self._watches)

    def _run(self) -> None:
        while True:
            time.sleep(_POLL_SECONDS)
            with self._lock:
                watches = list(self._watches)
            for watch in watches:
                if watch.context.cancelled:
                    if not watch.interrupted:
                        watch.interrupted = True
                        # an interrupt may block (Spark asks its server): never this thread
                        threading.Thread(target=_quietly, args=(watch.interrupt,)).start()
                elif watch.progress is not None and watch.sink is not None:
                    # the query may have ended (its connection closed) since the snapshot
                    value = _quietly(watch.progress)
                    if watch.sink.scan_reports and value is not None and value >= 0:
                        watch.sink.report(value, watch.message)


def _quietly(action: Callable[[], float | None]) -> float | None:
    """``action()``, or None when it fails: a query that ended in the meantime."""
    try:
        return action()
    except Exception:  # any driver error here means the query is gone
        return None


_WATCHDOG = _Watchdog()


def running_queries() -> int:
    """How many queries of this process are running now (every backend's, watched)."""
    return _WATCHDOG.count()


@contextmanager
def watching(
    context: ToolContext,
    interrupt: Callable[[], None],
    progress: Callable[[], float] | None = None,
    sink: Progress | None = None,
    message: str | None = None,
) -> Iterator[None]:
    """Interrupt the running query when the call is cancelled; forward its progress."""
    context.check_cancelled()
    watch = _Watch(context, interrupt, progress, sink, message)
    _WATCHDOG.add(watch)
    try:
        yield
    finally:
        _WATCHDOG.discard(watch)
    context.check_cancelled()


DEFAULT_STATEMENT_TIMEOUT = 60.0
"""Seconds a statement (a SQL query, a Spark operation) may run unless the ``--database`` URL
sets ``statement_timeout``."""
TIMEOUT_OPTION = "statement_timeout"
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|min|h)$")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "min": 60.0, "h": 3600.0}


def statement_timeout(name: str, text: str | None) -> float | None:
    """The ``statement_timeout`` of connection ``name`` as seconds (``text`` as the URL gives
    it; absent: :data:`DEFAULT_STATEMENT_TIMEOUT`); ``0`` means no limit (``None``). A
    malformed value is a ``ValueError`` (a startup error)."""
    if text is None:
        return DEFAULT_STATEMENT_TIMEOUT
    value = text.strip().lower()
    if value == "0":
        return None
    match = _DURATION.match(value)
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(
            f"--database {name}: {TIMEOUT_OPTION} must be a duration such as 30s, 500ms, "
            f"5min or 1h (0 = no limit), got {text!r}"
        )
    return float(match.group(1)) * _UNIT_SECONDS[match.group(2)]


def timed_out(label: str, seconds: float) -> ToolError:
    """The error of a statement stopped at its time limit."""
    return ToolError(
        f"{label}: the query ran longer than the statement timeout of {seconds:g} s and was "
        f"stopped ({TIMEOUT_OPTION} in the server's --database URL sets it)",
        ErrorCode.FAILED,
    )


@contextmanager
def deadline(seconds: float | None, interrupt: Callable[[], None]) -> Iterator[threading.Event]:
    """Calls ``interrupt`` (from a timer thread) if the block still runs after ``seconds``
    (None: never); the event yielded says whether it did."""
    expired = threading.Event()
    if seconds is None:
        yield expired
        return

    def expire() -> None:
        expired.set()
        interrupt()

    timer = threading.Timer(seconds, expire)
    timer.daemon = True
    timer.start()
    try:
        yield expired
    finally:
        timer.cancel()


class SearchSource(Protocol):
    """Where one key search of a table reads its rows (see :class:`UniquenessOracle`).

    A backend decides what to copy: embedded DuckDB copies the searched columns into memory
    (on a wide source only those a check needs, as it needs them), Spark caches them in the
    cluster, a SQL database reads the source in place. Every relation named here reads from
    the same rows as the source, so answers found in it are answers about the source.
    """

    def relation(self, needed: Sequence[int] = ()) -> str:
        """A relation holding at least the ``needed`` positions (by their internal names
        ``c<position+1>``) and every row: where full checks of those columns read."""
        ...

    def samples(self, sizes: Sequence[int]) -> list[str]:
        """Relations holding samples of about ``sizes`` rows (smallest first) of the columns
        searched: a duplicate in a sample is a duplicate of the source."""
        ...

    def duplicated(
        self, candidates: Sequence[tuple[int, ...]], source: str
    ) -> set[tuple[int, ...]]:
        """The candidates (sorted position tuples) holding a duplicate within ``source`` (one
        of :meth:`relation` or :meth:`samples`), under the search's ``nulls``; cancellation
        is honoured between and during the checks."""
        ...


class Backend(Protocol):
    """The engine running one opened source's queries (one instance per opened source).

    SQL text passed in reads the relation a :class:`~uniqueness_server.engine.table.Table`
    names (``src``, columns ``c1..cn``), holds only internal identifiers quoted by
    :meth:`quote`, integers and a client query that passed the backend's own read-only check:
    client values never reach SQL text.
    """

    @property
    def progress(self) -> Progress:
        """Where this backend's queries report progress."""
        ...

    @property
    def local(self) -> bool:
        """True when the rows are read in this process (an embedded engine over a file):
        streaming every row out (:meth:`batches`), coding and copying them is cheap. False when
        they live in a database or cluster: only aggregates and small pages should leave it."""
        ...

    @property
    def catalog(self) -> Catalog | None:
        """The reader of what the database declares (keys) and estimates (statistics) about
        the table a source reads; None for sources without a catalog (files, Spark)."""
        ...

    def quote(self, identifier: str) -> str:
        """The identifier quoted for this backend's SQL."""
        ...

    def as_text(self, expression: str) -> str:
        """SQL casting ``expression`` to text."""
        ...

    def sampled(self, expression: str) -> str:
        """SQL for ``expression`` as a sample row fetches it: its value when at most
        :data:`SAMPLE_VALUE_BYTES` long (a text may be cut to that), otherwise missing, so a
        huge value never comes whole into the server's memory."""
        ...

    def fetchall(self, sql: str) -> list[tuple[Any, ...]]:
        """All rows of ``sql``; cancellation stops it, failures are ToolErrors."""
        ...

    def execute(self, sql: str) -> None:
        """Run a statement without a result (temporary tables of the call's own session)."""
        ...

    def batches(self, sql: str, rows: int) -> Iterator[Any]:
        """The result of ``sql`` as Arrow record batches of at most ``rows`` rows, streamed
        (never held whole). Only a :attr:`local` backend streams; others refuse with a
        ToolError."""
        ...

    def close(self) -> None:
        """Release the connection and everything the source held."""
        ...

    def duplicate_groups(
        self, table: Table, positions: Sequence[int], nulls: Nulls, limit: int, offset: int
    ) -> tuple[GroupCounts, list[DuplicateGroup]]:
        """The key's group counts and one page (``limit`` from ``offset``) of its duplicate
        groups: in first-occurrence order with row numbers where the backend can number rows
        (:attr:`Table.row_numbers`), otherwise largest first."""
        ...

    def column_stats(
        self, table: Table, positions: Sequence[int], *, code: bool = False
    ) -> ColumnStats:
        """Row count and per-column facts of ``positions`` in one pass (see
        :func:`uniqueness_server.engine.stats.column_stats`); with ``code``, a :attr:`local`
        backend also codes every searched column when their cells fit in memory."""
        ...

    def profile(self, table: Table) -> Profile:
        """Every column's type, missing and distinct counts and sample values."""
        ...

    def sample_values(
        self, table: Table, positions: Sequence[int], rows: int
    ) -> dict[int, list[Any]]:
        """Values of the first ``rows`` rows the source gives of each of ``positions``
        (see :func:`uniqueness_server.engine.sql.sample_values`)."""
        ...

    def codes(
        self, table: Table, positions: Sequence[int], source: str, max_cells: int
    ) -> CodeMatrix:
        """Exact integer codes of ``positions`` for every row of ``source`` (a relation of
        :meth:`SearchSource.relation` or :meth:`SearchSource.samples`): equal codes exactly
        where this backend's grouping finds values equal. Raises
        :class:`~uniqueness_server.engine.codes.TooManyCellsError` past ``max_cells``."""
        ...

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
        """Where a key search among ``columns`` (of ``rows`` rows) reads. ``hash_safe``
        positions have pairwise distinct 64-bit value hashes: a copy may hold their hashes
        instead of their values."""
        ...

    def sketcher(self) -> Sketcher:
        """The one-pass distinct-count sketch of approximate mode; a ToolError (unsupported)
        when this backend has none."""
        ...
