"""The source arguments every tool shares: a confined file path or a named database."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mcp_common import AllowedPaths, ErrorCode, ToolArguments, ToolContext, ToolError

from uniqueness_server.engine import (
    DEFAULT_MAX_LINE_BYTES,
    FORMAT_CHOICES,
    MAX_LINE_BYTES_LIMIT,
    DatabaseRegistry,
    Table,
    open_file,
)

MAX_HEADER_ROW = 1_000_000
_DELIMITER_WORDS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "pipe": "|"}

SOURCE_PROPERTIES: dict[str, dict[str, Any]] = {
    "path": {
        "type": "string",
        "description": "Data file to read, inside the allowed directories (e.g. data/orders.csv).",
    },
    "database": {
        "type": "string",
        "description": "Name of a database connection configured on the server (instead of path).",
    },
    "table": {
        "type": "string",
        "description": "Table (or schema.table) to read from the named database.",
    },
    "query": {
        "type": "string",
        "description": "A single read-only SELECT to read from the named database "
        "(instead of table).",
    },
    "headerRow": {
        "type": "integer",
        "minimum": 0,
        "description": "1-based line (or sheet row) holding the column names; 0 = no header, "
        "columns named column1, column2, … (default 1; csv, tsv, xlsx).",
    },
    "format": {
        "type": "string",
        "enum": list(FORMAT_CHOICES),
        "description": "File format; auto (default) detects it from the content and the name.",
    },
    "delimiter": {
        "type": "string",
        "description": "Field delimiter of a csv file (a character, or tab); sniffed when absent.",
    },
    "maxLineBytes": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_LINE_BYTES_LIMIT,
        "description": "Longest line a csv/tsv file may hold, in bytes (default "
        f"{DEFAULT_MAX_LINE_BYTES:,}); a longer line is an error naming it, never a skipped row.",
    },
}

SOURCE_ALIASES = {"file": "path", "columns_row": "headerRow"}


def _delimiter(value: str | None) -> str | None:
    if value is None:
        return None
    return _DELIMITER_WORDS.get(value.strip().lower(), value)


@dataclass(frozen=True)
class SourceOpener:
    """Opens the source a call names: a file confined by ``allowed`` or a named database."""

    allowed: AllowedPaths
    databases: DatabaseRegistry

    def open(self, arguments: ToolArguments, context: ToolContext) -> Table:
        """The table the call's source arguments describe (the caller closes it)."""
        path = arguments.optional_string("path")
        database = arguments.optional_string("database")
        table = arguments.optional_string("table")
        query = arguments.optional_string("query")
        header_row = arguments.optional_bounded_int("headerRow", 1, 0, MAX_HEADER_ROW)
        fmt = arguments.optional_enum("format", FORMAT_CHOICES, "auto")
        delimiter = _delimiter(arguments.optional_string("delimiter"))
        max_line_bytes = arguments.optional_bounded_int(
            "maxLineBytes", DEFAULT_MAX_LINE_BYTES, 1, MAX_LINE_BYTES_LIMIT
        )
        if (path is None) == (database is None):
            raise ToolError(
                "give exactly one source: path (a file) or database (with table or query)",
                ErrorCode.INVALID_ARGUMENT,
            )
        if database is not None:
            for name in ("headerRow", "format", "delimiter", "maxLineBytes"):
                if arguments.is_given(name):
                    raise ToolError(
                        f"{name} applies to files, not to database sources",
                        ErrorCode.INVALID_ARGUMENT,
                    )
            return self.databases.open(database, table=table, query=query, context=context)
        assert path is not None
        if table is not None or query is not None:
            raise ToolError(
                "table and query go with database, not with path", ErrorCode.INVALID_ARGUMENT
            )
        real = self.allowed.resolve(path, must_exist=True, kind="file")
        return open_file(
            real,
            label=self.allowed.display(real),
            fmt=fmt,
            header_row=header_row,
            delimiter=delimiter,
            max_line_bytes=max_line_bytes,
            context=context,
        )
