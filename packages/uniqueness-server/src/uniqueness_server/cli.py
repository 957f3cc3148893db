"""``uniqueness-check``: the uniqueness check for pipelines (exit 0 unique, 1 not, 2 error)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

from mcp_common import Page, ToolError, mask_credentials, package_version
from mcp_common.usage import UsageParser

from uniqueness_server import DISTRIBUTION
from uniqueness_server.engine import (
    FORMAT_CHOICES,
    CheckResult,
    DatabaseRegistry,
    DuplicateGroup,
    Nulls,
    Table,
    check_uniqueness,
    open_file,
)
from uniqueness_server.engine.metadata import describe
from uniqueness_server.tools.uniqueness_check import CheckAnswer

EXIT_UNIQUE, EXIT_NOT_UNIQUE, EXIT_ERROR = 0, 1, 2

EPILOG = """\
exit status: 0 the columns are unique, 1 they are not, 2 an error (message on stderr).

The command reads any file its user can read: unlike the MCP server, it is not confined to
allowed directories, because whoever runs it already owns those files.

examples:
  uniqueness-check orders.csv order_id
  uniqueness-check households.csv.gz year1,hlpi_name --json
  uniqueness-check --header-row 0 export.tsv column1 column3
  uniqueness-check --database shop=sqlite:///shop.db --table orders order_id
"""


def build_parser() -> argparse.ArgumentParser:
    """The command's argument parser."""
    parser = UsageParser(
        prog="uniqueness-check",
        description="Check whether columns identify every row of a data file or database table.",
        epilog=EPILOG,
    )
    parser.add_argument("source", nargs="?", help="data file (omit with --database)")
    parser.add_argument("columns", nargs="+", help="key columns (several, or comma-separated)")
    parser.add_argument("--database", metavar="NAME=URL", help="read a database instead of a file")
    parser.add_argument("--table", help="table of --database")
    parser.add_argument("--query", help="read-only SELECT of --database")
    parser.add_argument("--header-row", type=int, default=1, help="1-based header line; 0 = none")
    parser.add_argument("--format", choices=FORMAT_CHOICES, default="auto", help="file format")
    parser.add_argument("--delimiter", help="csv field delimiter (sniffed by default)")
    parser.add_argument("--nulls", choices=[n.value for n in Nulls], default="equal")
    parser.add_argument("--no-better-options", action="store_true", help="skip the subset search")
    parser.add_argument(
        "--verify", action="store_true", help="scan even when a declared key proves the columns"
    )
    parser.add_argument("--limit", type=int, default=5, help="duplicate groups to show")
    parser.add_argument("--json", action="store_true", help="print the structured result")
    parser.add_argument("--version", action="version", version=package_version(DISTRIBUTION))
    return parser


def _open(options: argparse.Namespace, parser: argparse.ArgumentParser) -> tuple[Table, list[str]]:
    columns = [c.strip() for part in options.columns for c in part.split(",") if c.strip()]
    if options.database:
        if options.source is not None:
            columns.insert(0, options.source)
        registry = DatabaseRegistry.from_options([options.database])
        name = registry.names[0]
        return registry.open(name, table=options.table, query=options.query), columns
    if options.source is None or not columns:
        parser.error("give a data file and at least one column")
    path = Path(options.source)
    return open_file(
        path,
        label=path.name,
        fmt=options.format,
        header_row=options.header_row,
        delimiter=options.delimiter,
    ), columns


def _as_json(result: CheckResult, nulls: Nulls, limit: int) -> str:
    # the MCP tool's structured answer, so pipelines and clients read one shape
    page: Page[DuplicateGroup] = Page(result.examples, result.duplicate_groups, 0, limit)
    return json.dumps(CheckAnswer.of(result, nulls, page).to_wire(), ensure_ascii=False, indent=2)


def _as_text(result: CheckResult) -> str:
    key = ", ".join(result.columns)
    if result.unique:
        why = (
            f"; declared by the database: {describe(result.declared)}, not scanned (--verify scans)"
            if result.basis == "declared" and result.declared is not None
            else ""
        )
        lines = [f"{key}: unique ({result.rows} rows{why})"]
        lines += [f"  smaller key: {', '.join(o)}" for o in result.better_options]
        return "\n".join(lines)
    lines = [
        f"{key}: NOT unique ({result.duplicate_groups} duplicate keys over "
        f"{result.duplicate_rows} of {result.rows} rows)"
    ]
    for group in result.examples:
        where = f" at rows {', '.join(map(str, group.rows))}" if group.rows else ""
        lines.append(f"  {group.values!r} x{group.count}{where}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the check; the exit status carries the answer."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    parser = build_parser()
    options = parser.parse_args(argv)
    nulls = Nulls(options.nulls)
    try:
        table, columns = _open(options, parser)
        try:
            result = check_uniqueness(
                table,
                columns,
                nulls=nulls,
                better_options=not options.no_better_options,
                limit=max(0, options.limit),
                verify=options.verify,
            )
        finally:
            table.close()
    except (ToolError, ValueError, OSError) as exc:
        sys.stderr.write(f"uniqueness-check: error: {mask_credentials(str(exc))}\n")
        sys.exit(EXIT_ERROR)
    sys.stdout.write(
        (_as_json(result, nulls, options.limit) if options.json else _as_text(result)) + "\n"
    )
    sys.exit(EXIT_UNIQUE if result.unique else EXIT_NOT_UNIQUE)
