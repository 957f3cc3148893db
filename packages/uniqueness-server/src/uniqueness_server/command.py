"""What ``uniqueness-check`` does: the three tools on the command line (the entry point,
:mod:`uniqueness_server.cli`, imports this once it can answer Ctrl-C).

The check (exit 0 unique, 1 not, 2 error), ``--find-keys`` and ``--list-columns`` (exit 0
answered, 2 error) take the tools' own arguments, read by the tools' own argument models
(:func:`~mcp_common.arguments.parse_arguments`), and run the tools' own code: a value the
server accepts, the command accepts, and the other way round.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from mcp_common import (
    McpTool,
    ToolContext,
    ToolError,
    ToolResult,
    mask_credentials,
    package_version,
)
from mcp_common.arguments import Arguments, parse_arguments, wire_names
from mcp_common.usage import UsageParser, argument_flags, flag_message, given_arguments

from uniqueness_server import DISTRIBUTION
from uniqueness_server.engine import DatabaseRegistry
from uniqueness_server.read_limits import LIMITS, ReadLimits
from uniqueness_server.tools import FindKeysTool, ListColumnsTool, SourceOpener, UniquenessCheckTool

EXIT_UNIQUE, EXIT_NOT_UNIQUE, EXIT_ERROR = 0, 1, 2
_GRACE_SECONDS = 2.0  # how long an interrupted call may take to stop its query

EPILOG = """\
exit status: 0 the columns are unique, 1 they are not, 2 an error (message on stderr);
with --find-keys or --list-columns: 0 answered, 2 an error. Ctrl-C stops it with 130.

The command reads any file its user can read: unlike the MCP server, it is not confined to
allowed directories, because whoever runs it already owns those files. Its flags are the
tools' arguments (docs/uniqueness-server.md describes each), with the same values accepted.

examples:
  uniqueness-check orders.csv order_id
  uniqueness-check households.csv.gz year1,hlpi_name --json
  uniqueness-check --header-row 0 --delimiter tab export.tsv column1 column3
  uniqueness-check --database shop=sqlite:///shop.db --table orders order_id
  uniqueness-check --find-keys orders.csv --max-columns 2 --plausible-only
  uniqueness-check --list-columns orders.csv
"""

_MODES: dict[str, Callable[[SourceOpener], McpTool]] = {
    "check": UniquenessCheckTool,
    "find_keys": FindKeysTool,
    "list_columns": ListColumnsTool,
}
_PREFIXES = {
    "check": "the check: ",
    "find_keys": "--find-keys: ",
    "list_columns": "--list-columns: ",
}
_SOURCE = ("path", "database", "columns")  # given as positionals and --database NAME=URL


def _tools(databases: DatabaseRegistry, limits: ReadLimits | None = None) -> dict[str, McpTool]:
    # allowed=None: the command reads the files its user names, as the user names them
    sources = SourceOpener(None, databases, limits or ReadLimits())
    return {mode: tool(sources) for mode, tool in _MODES.items()}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, str]]:
    """The command's argument parser, and its tool-argument flags (flag -> argument name)."""
    parser = UsageParser(
        prog="uniqueness-check",
        description="Check whether columns identify every row of a data file or database "
        "table; or find its keys, or list its columns.",
        epilog=EPILOG,
    )
    modes = parser.add_mutually_exclusive_group()
    modes.add_argument(
        "--find-keys",
        dest="mode",
        action="store_const",
        const="find_keys",
        help="find the keys (minimal unique column sets) instead of checking columns",
    )
    modes.add_argument(
        "--list-columns",
        dest="mode",
        action="store_const",
        const="list_columns",
        help="list the columns (type, missing, distinct values, samples) instead of checking",
    )
    parser.add_argument("source", nargs="?", help="data file (omit with --database)")
    parser.add_argument(
        "columns",
        nargs="*",
        help="the check: key columns (several, or comma-separated); --find-keys: the columns "
        "to search among (default all)",
    )
    parser.add_argument("--database", metavar="NAME=URL", help="read a database instead of a file")
    models: list[type[Arguments]] = [
        t.definition.arguments for t in _tools(DatabaseRegistry()).values()
    ]
    prefixes = {t.definition.arguments: _PREFIXES[m] for m, t in _tools(DatabaseRegistry()).items()}
    flags = argument_flags(parser, models, skip=_SOURCE, help_prefixes=prefixes)
    for name, (default, described) in LIMITS.items():
        flag = "--" + name.replace("_", "-")
        parser.add_argument(
            flag, type=int, default=default, metavar="N", help=f"{described} (default {default})"
        )
    parser.add_argument("--json", action="store_true", help="print the structured result")
    parser.add_argument("--version", action="version", version=package_version(DISTRIBUTION))
    return parser, flags


def _check_text(answer: dict[str, Any]) -> str:
    key = ", ".join(answer["columns"])
    if answer["unique"]:
        declared = answer.get("declaredKey")
        why = ""
        if answer["basis"] == "declared" and declared is not None:
            name = f" {declared['name']}" if declared.get("name") else ""
            why = (
                f"; declared by the database: {declared['kind']}{name} "
                f"({', '.join(declared['columns'])}), not scanned (--verify scans)"
            )
        lines = [f"{key}: {answer['verdict']} ({answer['rows']} rows{why})"]
        lines += [f"  smaller key: {', '.join(o)}" for o in answer["betterOptions"]]
        return "\n".join(lines)
    lines = [
        f"{key}: NOT unique ({answer['duplicateGroups']} duplicate keys over "
        f"{answer['duplicateRows']} of {answer['rows']} rows)"
    ]
    for group in answer["duplicates"]:
        where = f" at rows {', '.join(map(str, group['rows']))}" if group["rows"] else ""
        lines.append(f"  {tuple(group['values'])!r} x{group['count']}{where}")
    return "\n".join(lines)


def _fail(message: str) -> int:
    sys.stderr.write(f"uniqueness-check: error: {mask_credentials(message)}\n")
    return EXIT_ERROR


def _run(
    options: argparse.Namespace, parser: argparse.ArgumentParser, flags: dict[str, str]
) -> int:
    mode = options.mode or "check"
    raw: dict[str, Any] = given_arguments(options)
    columns = [c for part in options.columns for c in part.split(",") if c.strip()]
    try:
        limits = ReadLimits(**{name: getattr(options, name) for name in LIMITS})
    except ValueError as exc:
        parser.error(str(exc))
    databases = DatabaseRegistry()
    if options.database:
        if options.source is not None:
            columns.insert(0, options.source)  # no file with --database: a column then
        databases = DatabaseRegistry.from_options([options.database], limits)
        raw["database"] = databases.names[0]
    elif options.source is None:
        parser.error("give a data file (or --database NAME=URL with --table or --query)")
    else:
        raw["path"] = options.source
    if mode == "check" and not columns:
        parser.error("give at least one column to check")
    if columns:
        raw["columns"] = columns
    tool = _tools(databases, limits)[mode]
    model = tool.definition.arguments
    accepted = set(wire_names(model))
    for flag, wire in flags.items():
        if wire in raw and wire not in accepted:
            shown = "the check" if mode == "check" else f"--{mode.replace('_', '-')}"
            parser.error(f"{flag} does not apply to {shown}")
    try:
        arguments = parse_arguments(raw, model, tool="uniqueness-check")
    except ToolError as exc:
        parser.error(flag_message(str(exc), flags))
    result = _call(tool, arguments)
    answer = result.structured or {}
    if options.json:
        sys.stdout.write(json.dumps(answer, ensure_ascii=False, indent=2) + "\n")
    elif mode == "check":
        sys.stdout.write(_check_text(answer) + "\n")
    else:
        sys.stdout.write(result.text.rstrip("\n") + "\n")
    if mode == "check":
        return EXIT_UNIQUE if answer.get("unique") else EXIT_NOT_UNIQUE
    return EXIT_UNIQUE


def _call(tool: McpTool, arguments: Arguments) -> ToolResult:
    """The tool's answer, computed in a worker thread while this one waits for Ctrl-C: then
    the call is cancelled (its running query interrupted, as a client's cancel does on the
    server) and KeyboardInterrupt raised once it stopped, or after a grace period."""
    context = ToolContext()
    outcome: list[ToolResult | BaseException] = []

    def work() -> None:
        try:
            outcome.append(tool.call(arguments, context))
        except BaseException as exc:  # handed to the waiting thread
            outcome.append(exc)

    worker = threading.Thread(target=work, name="uniqueness-check-call", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        context.cancel()
        worker.join(_GRACE_SECONDS)
        raise
    answer = outcome[0]
    if isinstance(answer, BaseException):
        raise answer
    return answer


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns its exit status (KeyboardInterrupt passes through)."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    parser, flags = build_parser()
    options = parser.parse_args(argv)
    try:
        return _run(options, parser, flags)
    except (ToolError, ValueError, OSError) as exc:
        return _fail(str(exc))
