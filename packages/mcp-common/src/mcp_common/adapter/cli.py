"""The command line every server shares, derived from the server's settings model.

``serve(app)`` is a server's whole ``__main__``: it reads the options (flags over environment
variables over defaults, all declared once in the app's :class:`~mcp_common.ServerSettings`
subclass), then hands them to :mod:`mcp_common.adapter.serving`, which sets up logging (stderr
or ``--log-file``, never stdout), builds the tools and serves them over the chosen transport.

This module imports neither the MCP SDK nor the transports: ``--help``, ``--version`` and a
usage error answer before anything heavy is loaded.
"""

from __future__ import annotations

import argparse
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Generic, TypeVar

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from mcp_common.environ import reading
from mcp_common.settings import LIST_SEPARATOR, Flag, ServerSettings
from mcp_common.tool import McpTool
from mcp_common.usage import UsageParser
from mcp_common.version import package_version

SettingsT = TypeVar("SettingsT", bound=ServerSettings)


@dataclass(frozen=True)
class ServerApp(Generic[SettingsT]):
    """What a server contributes: its identity, its settings model and its tools."""

    name: str
    """The server's name, as advertised in the handshake and used as the program name."""
    distribution: str
    """The installed distribution whose version ``--version`` and the handshake report."""
    description: str
    epilog: str
    """Usage examples shown at the end of ``--help``."""
    settings: type[SettingsT]
    """The server's options (a :class:`~mcp_common.ServerSettings` subclass)."""
    build_tools: Callable[[SettingsT], Sequence[McpTool]]
    instructions: str | None = None

    @property
    def version(self) -> str:
        """The installed version of :attr:`distribution` (``unknown`` when not installed)."""
        return package_version(self.distribution)

    @property
    def default_port(self) -> int:
        """The HTTP port the server listens on unless told otherwise."""
        return int(self.settings.model_fields["port"].default)

    @property
    def env_prefix(self) -> str:
        """E.g. ``UNIQUENESS_SERVER_``: ``--allowed-dir`` is ``UNIQUENESS_SERVER_ALLOWED_DIR``."""
        return str(self.settings.model_config.get("env_prefix", ""))


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def env_name(app: ServerApp[Any], field: str) -> str:
    """The environment variable of a settings field: ``<PREFIX><FIELD_IN_UPPER_SNAKE>``."""
    return f"{app.env_prefix}{field.upper()}"


def _is_list(info: FieldInfo) -> bool:
    return typing.get_origin(info.annotation) is list


def _is_switch(info: FieldInfo) -> bool:
    return info.annotation is bool


def _metavar(info: FieldInfo) -> str | None:
    for mark in info.metadata:
        if isinstance(mark, Flag):
            return mark.metavar
    annotation = info.annotation
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return "{" + ",".join(member.value for member in annotation) + "}"
    return None


def _help(info: FieldInfo) -> str:
    text = info.description or ""
    default = info.get_default(call_default_factory=True)
    if default not in (None, [], False) and not isinstance(default, types.FunctionType):
        shown = default.value if hasattr(default, "value") else default
        text += f" (default: {shown})"
    return text


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a server as its users see it: for ``--help``, guides and their tests."""

    flag: str
    variable: str
    metavar: str | None
    default: object
    help: str
    repeatable: bool


def options(app: ServerApp[Any]) -> list[Option]:
    """Every option of ``app``, in declaration order, derived from its settings model."""
    found = []
    for name, info in app.settings.model_fields.items():
        default = info.get_default(call_default_factory=True)
        found.append(
            Option(
                flag=_flag(name),
                variable=env_name(app, name),
                metavar=None if _is_switch(info) else _metavar(info) or name.upper(),
                default=getattr(default, "value", default),
                help=info.description or "",
                repeatable=_is_list(info),
            )
        )
    return found


def _env_help(app: ServerApp[Any]) -> str:
    lines = [
        "environment variables (a flag on the command line wins over its variable;",
        f"repeatable flags take several values separated by '{LIST_SEPARATOR}'):",
    ]
    for option in options(app):
        lines.append(f"  {option.variable:<36} {option.flag}")
    return "\n".join(lines)


def build_parser(app: ServerApp[Any]) -> UsageParser:
    """The server's argument parser, one flag per settings field (nothing given = absent)."""
    parser = UsageParser(prog=app.name, description=app.description)
    for name, info in app.settings.model_fields.items():
        options: dict[str, Any] = {"help": _help(info), "default": argparse.SUPPRESS}
        if _is_switch(info):
            options["action"] = "store_true"
        else:
            options["metavar"] = _metavar(info)
            if _is_list(info):
                options["action"] = "append"
        parser.add_argument(_flag(name), dest=name, **options)
    parser.add_argument(
        "--version", action="version", version=f"{app.name} {app.version}", help="print the version"
    )
    epilog = _env_help(app)
    parser.epilog = f"{app.epilog.rstrip()}\n\n{epilog}" if app.epilog else epilog
    return parser


def _refusal(app: ServerApp[Any], given: Mapping[str, Any], error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    field = str(first["loc"][0]) if first["loc"] else ""
    cause = (first.get("ctx") or {}).get("error")
    message = str(cause) if cause is not None else str(first["msg"])
    if str(first["type"]).startswith("bool"):
        message = "use true or false"
    if field in given or field not in app.settings.model_fields:
        return f"argument {_flag(field)}: {message}"
    return f"{env_name(app, field)}={first.get('input')!r}: {message}"


def parse_arguments(
    app: ServerApp[SettingsT],
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> SettingsT:
    """The app's settings from ``argv`` (default ``sys.argv[1:]``) over its environment
    variables (default ``os.environ``) over the declared defaults."""
    parser = build_parser(app)
    given = vars(parser.parse_args(list(sys.argv[1:] if argv is None else argv)))
    try:
        with reading(environ):
            settings = app.settings(**given)
    except ValidationError as error:
        parser.error(_refusal(app, given, error))
    if settings.tls_key and not settings.tls_cert:
        parser.error("--tls-key needs --tls-cert")
    if settings.no_auth and settings.auth_token:
        parser.error("--no-auth and --auth-token exclude each other")
    return settings


def serve(app: ServerApp[Any], argv: Sequence[str] | None = None) -> None:
    """Parse the command line and serve ``app`` until the client leaves or a signal arrives."""
    settings = parse_arguments(app, argv)
    # the SDK, the transports and the server's tools load only now that there is serving to do
    from mcp_common.adapter.serving import run

    run(app, settings)
