"""Nested documents as rows: records found, flattened to dotted paths, loaded into DuckDB."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import duckdb
from mcp_common import ErrorCode, ToolError


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


def flatten(value: Any, prefix: str, out: dict[str, str | None]) -> None:
    """Leaves of ``value`` under dotted keys (``a.b``) and indexed list items (``tags[0]``)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            flatten(item, f"{prefix}.{key}" if prefix else str(key), out)
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            flatten(item, f"{prefix}[{index}]", out)
    else:
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


def flatten_records(records: Iterable[Any]) -> tuple[list[str], list[list[str | None]]]:
    """Column names in first-seen order and one row per record (missing leaves are None)."""
    names: dict[str, int] = {}
    flat: list[dict[str, str | None]] = []
    for record in records:
        leaves: dict[str, str | None] = {}
        flatten(record, "", leaves)
        for key in leaves:
            names.setdefault(key, len(names))
        flat.append(leaves)
    columns = list(names)
    return columns, [[leaves.get(c) for c in columns] for leaves in flat]


def load_rows(
    connection: duckdb.DuckDBPyConnection, width: int, rows: Sequence[Sequence[str | None]]
) -> None:
    """Create the view ``src`` (columns ``c1..cn``, VARCHAR) holding ``rows``, in order.

    Each column travels as one list parameter and is unnested, which is much faster than
    inserting row by row and writes nothing to disk.
    """
    if width == 0:
        raise ToolError("the source has no columns", ErrorCode.INVALID_ARGUMENT)
    columns = [[row[i] if i < len(row) else None for row in rows] for i in range(width)]
    select = ", ".join(f"unnest(${i + 1}::VARCHAR[]) AS c{i + 1}" for i in range(width))
    connection.execute(f"CREATE TEMP TABLE loaded AS SELECT {select}", columns)
    connection.execute("CREATE TEMP VIEW src AS SELECT * FROM loaded")
