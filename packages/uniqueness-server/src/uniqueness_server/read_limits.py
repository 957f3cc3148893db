"""What a reader may spend before it refuses a source: bytes, cells, memory.

Files read by DuckDB straight from disk (CSV, JSON, Parquet) stream, within the engine's
memory limit (it spills to disk beyond). What is parsed in Python is bounded before it
expands, so one small hostile file cannot take the server's memory: a YAML document of
nested aliases, a sheet declaring sixteen thousand columns, a gzip stream inflating a
thousand times. Each limit has a server flag (and a ``uniqueness-check`` one) to raise it, and
an oversized file is a tool error naming the limit and that flag. The defaults keep one call
under 1 GB.

Declared here, outside the engine, because the server's and the command's flags are made from
it before anything heavy loads; :mod:`uniqueness_server.engine.budget` spends it.
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp_common import ErrorCode, ToolError

MIB = 1 << 20

LIMITS: dict[str, tuple[int, str]] = {
    "max_document_bytes": (
        8 * MIB,
        "largest YAML or TOON document read, in bytes after decompression (parsed whole in "
        "memory, where YAML takes about 70 times its size; an entry a YAML << merge copies "
        "counts 16 bytes), and what the parts of an .xlsx held whole may hold (16 bytes an "
        "XML element: styles, shared strings, workbook)",
    ),
    "max_inflated_bytes": (
        256 * MIB,
        "most bytes a compressed file read whole may inflate to (a gzip-compressed Parquet "
        "or .xlsx file, the parts of an .xlsx), and the values (as text) of any Parquet file "
        "may decode to, where 1,000 times the file's size is not more",
    ),
    "max_cells": (
        10_000_000,
        "most cells (rows x columns) a file parsed in Python may expand to: YAML and TOON "
        "records (aliases expanded), .xlsx rows (as wide as their cells), CSV files read line "
        "by line (comment lines, carriage returns inside values)",
    ),
    "max_value_bytes": (
        64 * MIB,
        "longest value, in bytes, an SQLite source may produce (a longer one is an error); "
        "values shown from any source are cut far shorter",
    ),
    "max_engine_memory": (
        512,
        "memory, in MiB, of each engine running inside the server: DuckDB reading files "
        "(shared by the calls of one server process; it spills to a private temporary "
        "directory beyond) and SQLite (a query needing more is an error)",
    ),
}
"""Every read limit: its default and what it bounds (the flags of the server and of
``uniqueness-check``, and :class:`ReadLimits`, are made from this)."""
DEFAULT_ENGINE_MEMORY = LIMITS["max_engine_memory"][0]


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """The budgets of one server (or command); see :data:`LIMITS` for each."""

    max_document_bytes: int = LIMITS["max_document_bytes"][0]
    max_inflated_bytes: int = LIMITS["max_inflated_bytes"][0]
    max_cells: int = LIMITS["max_cells"][0]
    max_value_bytes: int = LIMITS["max_value_bytes"][0]
    max_engine_memory: int = LIMITS["max_engine_memory"][0]  # MiB

    def __post_init__(self) -> None:
        for name in LIMITS:
            if getattr(self, name) < 1:
                flag = "--" + name.replace("_", "-")
                raise ValueError(f"{flag} must be 1 or more, not {getattr(self, name)}")

    def document_too_large(self, label: str, how: str = "") -> ToolError:
        """The error for a YAML/TOON document over :attr:`max_document_bytes` (``how``: what
        made it so, e.g. copying its merges)."""
        size = f"is a document of more than {self.max_document_bytes:,} bytes"
        return _over(label, f"{size} {how}" if how else size, "--max-document-bytes")

    def inflates_too_far(self, label: str) -> ToolError:
        """The error for a compressed file over :attr:`max_inflated_bytes`."""
        return _over(
            label,
            f"inflates to more than {self.max_inflated_bytes:,} bytes",
            "--max-inflated-bytes",
        )

    def decodes_too_far(self, label: str, allowed: int) -> ToolError:
        """The error for a file whose values decode to more than ``allowed`` bytes (the
        larger of :attr:`max_inflated_bytes` and a multiple of the file's size)."""
        return _over(
            label,
            f"decodes to more than {allowed:,} bytes of values ({self.max_inflated_bytes:,} or "
            "1,000 times the file's size, whichever is more)",
            "--max-inflated-bytes",
        )

    def too_many_cells(self, label: str) -> ToolError:
        """The error for a file expanding past :attr:`max_cells` cells."""
        return _over(label, f"expands to more than {self.max_cells:,} cells", "--max-cells")


def _over(label: str, what: str, flag: str) -> ToolError:
    return ToolError(
        f"{label} {what}, over the server's limit ({flag}); nothing was counted. Raise "
        f"{flag} to read it",
        ErrorCode.INVALID_ARGUMENT,
    )
