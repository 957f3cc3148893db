"""The command line every server shares, with an environment-variable equivalent per flag.

``serve(app)`` is a server's whole ``__main__``: it parses the flags, sets up logging (stderr
or ``--log-file``, never stdout), builds the tools and serves them over the chosen transport.
"""

from __future__ import annotations

import argparse
import logging
import os
import ssl
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from mcp.server import Server

from mcp_common.adapter.http import HttpSettings, run_http, tls_context
from mcp_common.adapter.logging_setup import LEVELS, configure_logging
from mcp_common.adapter.server import build_server
from mcp_common.adapter.stdio import claim_stdout, run_stdio
from mcp_common.masking import redact
from mcp_common.result import ToolError
from mcp_common.tool import McpTool
from mcp_common.version import package_version

TRANSPORTS = ("stdio", "streamable-http", "stateless-http")
LIST_SEPARATOR = "|"
"""Separates the values of a repeatable flag given through its environment variable; ``|``
cannot appear unencoded in a URL and hardly ever appears in a path."""
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})

_log = logging.getLogger("mcp_common.adapter")


@dataclass(frozen=True)
class ServerApp:
    """What a server contributes: its identity, its own flags and its tools."""

    name: str
    """The server's name, as advertised in the handshake and used as the program name."""
    distribution: str
    """The installed distribution whose version ``--version`` and the handshake report."""
    default_port: int
    description: str
    epilog: str
    """Usage examples shown at the end of ``--help``."""
    env_prefix: str
    """E.g. ``UNIQUENESS_SERVER``: ``--allowed-dir`` is then ``UNIQUENESS_SERVER_ALLOWED_DIR``."""
    build_tools: Callable[[argparse.Namespace], Sequence[McpTool]]
    add_arguments: Callable[[argparse.ArgumentParser], None] | None = None
    instructions: str | None = None

    @property
    def version(self) -> str:
        """The installed version of :attr:`distribution` (``unknown`` when not installed)."""
        return package_version(self.distribution)


class _Parser(argparse.ArgumentParser):
    """Reports a bad flag as usage plus one line (``prog: error: ...``), exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())}\n")


def _transport(value: str) -> str:
    if value not in TRANSPORTS:
        raise argparse.ArgumentTypeError(
            f"unknown transport {value!r}; use one of: {', '.join(TRANSPORTS)}"
        )
    return value


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {value!r}; use a number 0..65535")
    return port


def _level(value: str) -> str:
    if value.upper() not in LEVELS:
        raise argparse.ArgumentTypeError(
            f"invalid log level {value!r}; use one of: {', '.join(LEVELS)}"
        )
    return value.upper()


def env_name(app: ServerApp, action: argparse.Action) -> str:
    """The environment variable equivalent to a flag: ``<PREFIX>_<FLAG_IN_UPPER_SNAKE>``."""
    flag = max(action.option_strings, key=len).lstrip("-")
    return f"{app.env_prefix}_{flag.upper().replace('-', '_')}"


def _env_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    skipped = (argparse._HelpAction, argparse._VersionAction)
    return [a for a in parser._actions if a.option_strings and not isinstance(a, skipped)]


def _env_help(app: ServerApp, parser: argparse.ArgumentParser) -> str:
    lines = [
        "environment variables (a flag on the command line wins over its variable;",
        f"repeatable flags take several values separated by '{LIST_SEPARATOR}'):",
    ]
    for action in _env_actions(parser):
        lines.append(f"  {env_name(app, action):<36} {max(action.option_strings, key=len)}")
    return "\n".join(lines)


def build_parser(app: ServerApp) -> argparse.ArgumentParser:
    """The server's argument parser: the shared flags plus the app's own."""
    parser = _Parser(
        prog=app.name,
        description=app.description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    parser.add_argument(
        "--transport",
        type=_transport,
        default="stdio",
        metavar="{stdio,streamable-http,stateless-http}",
        help="how clients connect (default: stdio)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="HTTP bind address (default: 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=app.default_port,
        help=f"HTTP port (default: {app.default_port})",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="an extra Host header value HTTP clients may use (repeatable; DNS-rebinding "
        "protection refuses any other)",
    )
    parser.add_argument(
        "--auth-token",
        metavar="TOKEN",
        help="require 'Authorization: Bearer TOKEN' on HTTP (prefer the environment variable: "
        "a flag is visible to other users in the process list)",
    )
    parser.add_argument(
        "--tls-cert", metavar="FILE", help="serve HTTPS (TLS 1.3) with this PEM certificate"
    )
    parser.add_argument("--tls-key", metavar="FILE", help="the PEM private key of --tls-cert")
    parser.add_argument("--log-file", metavar="FILE", help="write the log here instead of stderr")
    parser.add_argument(
        "--log-level", type=_level, default="INFO", help="log level (default: INFO)"
    )
    parser.add_argument(
        "--version", action="version", version=f"{app.name} {app.version}", help="print the version"
    )
    if app.add_arguments is not None:
        app.add_arguments(parser)
    parser.epilog = (
        f"{app.epilog.rstrip()}\n\n{_env_help(app, parser)}"
        if app.epilog
        else _env_help(app, parser)
    )
    return parser


def _given_on_command_line(action: argparse.Action, argv: Sequence[str]) -> bool:
    for word in argv:
        if word == "--":
            return False
        if any(word == flag or word.startswith(flag + "=") for flag in action.option_strings):
            return True
    return False


def _env_arguments(
    app: ServerApp,
    parser: argparse.ArgumentParser,
    argv: Sequence[str],
    environ: Mapping[str, str],
) -> list[str]:
    """Command-line tokens equivalent to the environment variables of flags not given."""
    tokens: list[str] = []
    for action in _env_actions(parser):
        name = env_name(app, action)
        if name not in environ or _given_on_command_line(action, argv):
            continue
        value = environ[name]
        flag = max(action.option_strings, key=len)
        if action.nargs == 0:
            word = value.strip().lower()
            if word in _TRUE:
                tokens.append(flag)
            elif word not in _FALSE:
                parser.error(f"{name}={value!r}: use true or false")
        elif isinstance(action, argparse._AppendAction):
            for item in value.split(LIST_SEPARATOR):
                if item.strip():
                    tokens.append(f"{flag}={item.strip()}")
        else:
            tokens.append(f"{flag}={value}")
    return tokens


def parse_arguments(
    app: ServerApp,
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> argparse.Namespace:
    """Parse ``argv`` (default: ``sys.argv[1:]``) over the app's environment variables."""
    parser = build_parser(app)
    args = list(sys.argv[1:] if argv is None else argv)
    env = os.environ if environ is None else environ
    options = parser.parse_args(_env_arguments(app, parser, args, env) + args)
    if options.tls_key and not options.tls_cert:
        parser.error("--tls-key needs --tls-cert")
    return options


def _build_tools(app: ServerApp, options: argparse.Namespace) -> Sequence[McpTool]:
    try:
        return app.build_tools(options)
    except (ValueError, ToolError, OSError) as error:
        build_parser(app).error(redact(str(error)))


def build_server_for(
    app: ServerApp,
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Server[Any]:
    """The server ``app`` would serve for this command line, without serving it."""
    options = parse_arguments(app, argv, environ)
    return build_server(app.name, app.version, _build_tools(app, options), app.instructions)


def serve(app: ServerApp, argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve ``app`` until the client leaves or a signal arrives."""
    options = parse_arguments(app, argv)
    tls = None
    if options.tls_cert and options.transport != "stdio":
        try:
            tls = tls_context(options.tls_cert, options.tls_key)
        except (OSError, ssl.SSLError) as error:
            build_parser(app).error(f"cannot use --tls-cert/--tls-key: {error}")
    wire = claim_stdout() if options.transport == "stdio" else None
    try:
        configure_logging(options.log_level, options.log_file)
    except OSError as error:
        build_parser(app).error(f"cannot open --log-file: {error}")
    server = build_server(app.name, app.version, _build_tools(app, options), app.instructions)
    try:
        if wire is not None:
            if options.auth_token or options.tls_cert:
                _log.warning("--auth-token and --tls-cert apply to the HTTP transports only")
            _log.info("serving %s %s over stdio", app.name, app.version)
            run_stdio(server, wire)
        else:
            settings = HttpSettings(
                host=options.host,
                port=options.port,
                stateless=options.transport == "stateless-http",
                auth_token=options.auth_token or None,
                tls=tls,
                allowed_hosts=tuple(options.allowed_host),
            )
            run_http(server, settings)
    except KeyboardInterrupt:
        _log.info("interrupted; shutting down")
