"""Query runners: one for embedded DuckDB, one for SQLAlchemy databases.

A runner executes the engine's SQL, turns driver errors into clear :class:`ToolError` s,
reports progress and honours cancellation by interrupting the running query from a watcher
thread (a blocked query never reaches Python code that could poll the flag itself).
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import duckdb
from mcp_common import ErrorCode, ToolCancelledError, ToolContext, ToolError

from uniqueness_server.engine.limits import overlong_line

_POLL_SECONDS = 0.2


class Runner(Protocol):
    """Executes SQL for one source; ``dialect`` names the SQL flavour."""

    @property
    def dialect(self) -> str:
        """``duckdb``, ``sqlite``, ``postgresql``, …"""
        ...

    @property
    def progress(self) -> Progress:
        """Where this runner's queries report progress."""
        ...

    def quote(self, identifier: str) -> str:
        """The identifier quoted for this dialect."""
        ...

    def fetchall(self, sql: str) -> list[tuple[Any, ...]]:
        """All rows of ``sql``."""
        ...

    def close(self) -> None:
        """Release the connection."""
        ...


class Progress:
    """Forwards progress to the client, never going backwards (the protocol requires it)."""

    def __init__(self, context: ToolContext) -> None:
        self._context = context
        self._last = -1.0
        self._lock = threading.Lock()
        self.scan_reports = True  # False while a search reports its own, coarser progress

    def report(self, percent: float, message: str | None = None) -> None:
        """Report ``percent`` (0..100) if it is higher than anything reported before."""
        with self._lock:
            if percent <= self._last:
                return
            self._last = percent
        self._context.report_progress(round(percent, 1), 100.0, message)


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
    done = threading.Event()

    def watch() -> None:
        while not done.wait(_POLL_SECONDS):
            if context.cancelled:
                interrupt()
                return
            if progress is not None and sink is not None and sink.scan_reports:
                value = progress()
                if value >= 0:
                    sink.report(value, message)

    thread = threading.Thread(target=watch, name="uniqueness-query-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
    context.check_cancelled()


_CSV_LINE = re.compile(r"CSV Error on Line: (\d+)")
_ORIGINAL = re.compile(r"Original Line: (.*)")
_FOUND = re.compile(r"Expected Number of Columns: (\d+) Found: (\d+)")
_LINE_SIZE = re.compile(r"Maximum line size of (\d+) bytes exceeded\. Actual Size: ?(\d+) bytes")


def duckdb_error(exc: duckdb.Error, label: str) -> ToolError:
    """A clear message for a DuckDB failure while reading ``label``."""
    text = str(exc)
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
    return ToolError(f"reading {label} failed: {first}", ErrorCode.FAILED)


class DuckDbRunner:
    """Runs queries on a private in-memory DuckDB connection."""

    def __init__(self, connection: duckdb.DuckDBPyConnection, context: ToolContext, label: str):
        self._connection = connection
        self._context = context
        self._label = label
        self.progress = Progress(context)
        self._held: list[tuple[int, Path]] = []

    def hold(self, descriptor: int, link: Path) -> None:
        """Keep ``descriptor`` open while the connection lives (its reads go through ``link``,
        a symlink to it alone in a private directory, removed on close)."""
        self._held.append((descriptor, link))

    @property
    def dialect(self) -> str:
        """Always ``duckdb``."""
        return "duckdb"

    @property
    def connection(self) -> duckdb.DuckDBPyConnection:
        """The underlying connection (for loading rows parsed in Python)."""
        return self._connection

    def quote(self, identifier: str) -> str:
        """Double-quoted, inner quotes doubled."""
        return '"' + identifier.replace('"', '""') + '"'

    def execute(self, sql: str) -> None:
        """Run a statement without a result."""
        self.fetchall(sql)

    def fetchall(self, sql: str) -> list[tuple[Any, ...]]:
        """All rows of ``sql``; cancellation interrupts it, failures become ToolErrors."""
        with self._guarded():
            return self._connection.execute(sql).fetchall()

    def batches(self, sql: str, rows: int) -> Iterator[Any]:
        """The result of ``sql`` as Arrow record batches of at most ``rows`` rows, streamed
        (never held whole); cancellation interrupts it, failures become ToolErrors."""
        with self._guarded():
            yield from self._connection.sql(sql).to_arrow_reader(rows)

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
        """Close the connection and the descriptors it read through."""
        self._connection.close()
        for descriptor, link in self._held:
            link.unlink(missing_ok=True)
            link.parent.rmdir()
            os.close(descriptor)
        self._held.clear()
