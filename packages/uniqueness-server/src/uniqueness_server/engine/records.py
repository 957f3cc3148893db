"""Nested documents as rows: records found, flattened to dotted paths, loaded into DuckDB."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import duckdb
from mcp_common import ErrorCode, ToolError

from uniqueness_server.engine.budget import CellBudget


def cell_text(value: Any) -> str | None:
    """A parsed value as the text it is compared by (``None`` stays missing)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def flatten(
    value: Any, prefix: str, out: dict[str, str | None], tick: Callable[[], None] | None = None
) -> None:
    """Leaves of ``value`` under dotted keys (``a.b``) and indexed list items (``tags[0]``);
    ``tick`` is called at every leaf (a cancellation check: a record may expand far)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), out, tick)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            flatten(item, f"{prefix}[{index}]", out, tick)
    else:
        if tick is not None:
            tick()
        out[prefix or "value"] = cell_text(value)


def find_records(document: Any, name: str) -> list[Any]:
    """The list of records a document holds: itself, or its one top-level list."""
    if isinstance(document, list):
        return document
    if isinstance(document, Mapping):
        lists = [key for key, value in document.items() if isinstance(value, list)]
        if len(lists) == 1:
            records = document[lists[0]]
            assert isinstance(records, list)
            return records
        if len(lists) > 1:
            raise ToolError(
                f"{name} holds several top-level lists ({', '.join(map(str, lists))}); keep one "
                "list of records per file",
                ErrorCode.UNSUPPORTED,
            )
        return [document]
    if document is None:
        return []
    raise ToolError(f"{name} holds a single value, not records", ErrorCode.INVALID_ARGUMENT)


def count_leaves(records: Sequence[Any], budget: CellBudget) -> None:
    """Spend a cell of ``budget`` on every leaf the records expand to, before expanding them:
    a value reached again through an alias is counted from memory, so a document of nested
    aliases (billions of leaves from a few hundred bytes) is refused at once."""
    counted: dict[int, int] = {}

    def leaves(value: Any) -> int:
        if not isinstance(value, Mapping | list | tuple):
            return 1
        known = counted.get(id(value))
        if known is None:
            items = value.values() if isinstance(value, Mapping) else value
            known = sum(leaves(item) for item in items) or 1
            counted[id(value)] = known
        return known

    for record in records:
        budget.spend(leaves(record))


def record_columns(records: Sequence[Any], budget: CellBudget) -> list[str]:
    """The column names the records flatten to, in first-seen order (count the records'
    leaves with :func:`count_leaves` first)."""
    names: dict[str, None] = {}
    for record in records:
        leaves: dict[str, str | None] = {}
        flatten(record, "", leaves, budget.tick)
        names.update(dict.fromkeys(leaves))
    return list(names)


def record_rows(
    records: Iterable[Any], columns: Sequence[str], budget: CellBudget
) -> Iterator[list[str | None]]:
    """One row per record over ``columns`` (missing leaves are None), one at a time."""
    for record in records:
        leaves: dict[str, str | None] = {}
        flatten(record, "", leaves, budget.tick)
        yield [leaves.get(c) for c in columns]


class RowLoader:
    """Rows streamed into the view ``src`` (columns ``c1..cn``, VARCHAR), in order, a batch at
    a time: what Python holds stays one batch, whatever the source's size (DuckDB keeps the
    rows, within its memory limit)."""

    BATCH_ROWS = 8_192
    BATCH_BYTES = 32 << 20  # a batch is cut here too: a row may be megabytes long

    def __init__(self, connection: duckdb.DuckDBPyConnection, width: int) -> None:
        if width == 0:
            raise ToolError("the source has no columns", ErrorCode.INVALID_ARGUMENT)
        self._connection = connection
        self._width = width
        self._batch: list[Sequence[str | None]] = []
        self._bytes = 0  # characters of the batch's values (at least their bytes' count)
        columns = ", ".join(f"c{i + 1} VARCHAR" for i in range(width))
        connection.execute(f"CREATE TEMP TABLE loaded ({columns})")

    def add(self, row: Sequence[str | None]) -> None:
        """One row (a shorter one is padded with missing values)."""
        self._batch.append(row)
        self._bytes += sum(len(value) for value in row if value is not None)
        if len(self._batch) >= self.BATCH_ROWS or self._bytes >= self.BATCH_BYTES:
            self._flush()

    def _flush(self) -> None:
        import pyarrow as pa

        rows = self._batch
        self._batch, self._bytes = [], 0
        if not rows:
            return
        batch = pa.table(
            {
                f"c{i + 1}": pa.array(
                    [row[i] if i < len(row) else None for row in rows], type=pa.string()
                )
                for i in range(self._width)
            }
        )
        self._connection.register("loaded_batch", batch)
        try:
            self._connection.execute("INSERT INTO loaded SELECT * FROM loaded_batch")
        finally:
            self._connection.unregister("loaded_batch")

    def finish(self) -> None:
        """Load what is left and define ``src``."""
        self._flush()
        self._connection.execute("CREATE TEMP VIEW src AS SELECT * FROM loaded")


def load_rows(
    connection: duckdb.DuckDBPyConnection, width: int, rows: Iterable[Sequence[str | None]]
) -> None:
    """Create the view ``src`` (columns ``c1..cn``, VARCHAR) holding ``rows``, in order."""
    loader = RowLoader(connection, width)
    for row in rows:
        loader.add(row)
    loader.finish()
