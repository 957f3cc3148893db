"""The source arguments every tool shares: a confined file path or a named database."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Annotated

from mcp_common import (
    AllowedPaths,
    Arguments,
    Between,
    Deprecated,
    ErrorCode,
    Int,
    OneOf,
    Str,
    ToolContext,
    ToolError,
)
from pydantic import Field

from uniqueness_server import engine
from uniqueness_server.engine import (
    DEFAULT_MAX_LINE_BYTES,
    FORMAT_CHOICES,
    MAX_LINE_BYTES_LIMIT,
    DatabaseRegistry,
    Table,
)
from uniqueness_server.read_limits import ReadLimits

MAX_HEADER_ROW = 1_000_000


class SourceArguments(Arguments):
    """The source arguments every tool shares: a confined file path or a named database."""

    path: Annotated[Str | None, Deprecated("file")] = Field(
        None,
        description="Data file to read, inside the allowed directories (e.g. data/orders.csv).",
    )
    database: Str | None = Field(
        None,
        description="Name of a database connection configured on the server (instead of path).",
    )
    table: Str | None = Field(
        None, description="Table (or schema.table) to read from the named database."
    )
    query: Str | None = Field(
        None,
        description="A single read-only SELECT to read from the named database (instead of table).",
    )
    header_row: Annotated[Int | None, Between(0, MAX_HEADER_ROW), Deprecated("columns_row")] = (
        Field(
            None,
            description="1-based line (or sheet row) holding the column names; 0 = no header, "
            "columns named column1, column2, … (default 1; csv, tsv, xlsx).",
        )
    )
    format: Annotated[Str, OneOf(FORMAT_CHOICES)] = Field(
        "auto",
        description="File format; auto (default) detects it from the content and the name.",
    )
    delimiter: Str | None = Field(
        None,
        description="Field delimiter of a csv file (a character, or tab); sniffed when absent.",
    )
    max_line_bytes: Annotated[Int | None, Between(1, MAX_LINE_BYTES_LIMIT)] = Field(
        None,
        description="Longest line a csv/tsv file may hold, in bytes (default "
        f"{DEFAULT_MAX_LINE_BYTES}); a longer line is an error naming it, never a skipped row.",
    )


@dataclass(frozen=True)
class SourceOpener:
    """Opens the source a call names: a file confined by ``allowed`` or a named database.

    ``allowed`` None reads any file the process may read, named as given: the command line's
    case, whose user owns the files (the server always confines).
    """

    allowed: AllowedPaths | None
    databases: DatabaseRegistry
    limits: ReadLimits = field(default_factory=ReadLimits)

    def open(self, arguments: SourceArguments, context: ToolContext) -> Table:
        """The table the call's source arguments describe (the caller closes it)."""
        path, database = arguments.path, arguments.database
        table, query = arguments.table, arguments.query
        if (path is None) == (database is None):
            raise ToolError(
                "give exactly one source: path (a file) or database (with table or query)",
                ErrorCode.INVALID_ARGUMENT,
            )
        if database is not None:
            file_only = {
                "headerRow": arguments.header_row is not None,
                "format": arguments.format != "auto",
                "delimiter": arguments.delimiter is not None,
                "maxLineBytes": arguments.max_line_bytes is not None,
            }
            for name, given in file_only.items():
                if given:
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
        read = partial(
            engine.open_file,
            fmt=arguments.format,
            header_row=1 if arguments.header_row is None else arguments.header_row,
            delimiter=arguments.delimiter,
            max_line_bytes=arguments.max_line_bytes or DEFAULT_MAX_LINE_BYTES,
            context=context,
            limits=self.limits,
        )
        if self.allowed is None:
            return read(Path(path), label=path)
        real = self.allowed.resolve(path, must_exist=True, kind="file")
        return read(
            real,
            label=self.allowed.display(real),
            # readers go through this descriptor, never the name: a symlink swapped in at the
            # path after the check is never followed
            descriptor=self.allowed.open_descriptor(real),
            confined_to=self.allowed.roots,
        )
