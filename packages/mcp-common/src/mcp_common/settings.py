"""Server options, declared once as a pydantic-settings model.

A server's options are a subclass of :class:`ServerSettings`. Each field is at once a command
line flag (``allowed_dir`` -> ``--allowed-dir``; a list field is repeatable, a boolean is a
switch), an environment variable (``<env_prefix><FIELD>``, e.g. ``UNIQUENESS_SERVER_ALLOWED_DIR``;
a list takes several values separated by ``|``) and a default, with its ``description`` as help.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, SecretStr, field_validator
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from mcp_common.environ import environ_source

DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The MCP SDK's own limit on an HTTP request body, used for stdio lines too."""

LIST_SEPARATOR = "|"
"""Separates the values of a repeatable option given through its environment variable; ``|``
cannot appear unencoded in a URL and hardly ever appears in a path."""


@dataclass(frozen=True, slots=True)
class Flag:
    """Field metadata for the command line: the value's placeholder in ``--help``."""

    metavar: str


def _split(value: Any) -> Any:
    if isinstance(value, str):
        return [item.strip() for item in value.split(LIST_SEPARATOR) if item.strip()]
    return value


Repeatable = Annotated[list[str], NoDecode, BeforeValidator(_split)]
"""A repeatable option: the flag may be given several times; its variable separates by ``|``."""


class Transport(StrEnum):
    """How clients connect."""

    STDIO = "stdio"
    STREAMABLE_HTTP = "streamable-http"
    STATELESS_HTTP = "stateless-http"


class LogLevel(StrEnum):
    """Log levels, as ``logging`` names them."""

    DEBUG = "DEBUG"
    INFO = "INFO"
    WARNING = "WARNING"
    ERROR = "ERROR"
    CRITICAL = "CRITICAL"


class ServerSettings(BaseSettings):
    """The options every server shares. A server subclasses it, sets ``env_prefix`` in its
    ``model_config`` and redeclares ``port`` with its own default."""

    model_config = SettingsConfigDict(extra="forbid", frozen=True, env_ignore_empty=True)

    transport: Transport = Field(Transport.STDIO, description="how clients connect")
    host: str = Field("127.0.0.1", description="HTTP bind address")
    port: int = Field(8080, description="HTTP port")
    allowed_host: Annotated[Repeatable, Flag("HOST")] = Field(
        default_factory=list,
        description="an extra Host header value HTTP clients may use (repeatable; "
        "DNS-rebinding protection refuses any other)",
    )
    auth_token: Annotated[SecretStr | None, Flag("TOKEN")] = Field(
        None,
        description="require 'Authorization: Bearer TOKEN' on HTTP (prefer the environment "
        "variable: a flag is visible to other users in the process list; default: a random "
        "token, new at each start, printed on stderr and written to a file only you can read)",
    )
    no_auth: bool = Field(
        False,
        description="serve HTTP without a bearer token: anyone who can connect (every user of "
        "this machine, at least) can call the tools; logged as a warning",
    )
    tls_cert: Annotated[str | None, Flag("FILE")] = Field(
        None, description="serve HTTPS (TLS 1.3) with this PEM certificate"
    )
    tls_key: Annotated[str | None, Flag("FILE")] = Field(
        None, description="the PEM private key of --tls-cert"
    )
    session_idle_timeout: Annotated[float, Flag("SECONDS")] = Field(
        300.0,
        gt=0,
        description="streamable HTTP: close a session after this many seconds without a "
        "request (its client then initializes a new one)",
    )
    max_sessions: Annotated[int, Flag("N")] = Field(
        1000,
        gt=0,
        description="streamable HTTP: most sessions open at once; at the limit the "
        "longest-idle session is closed to admit a new client, who is refused (503) only "
        "while every session is busy",
    )
    max_message_bytes: Annotated[int, Flag("BYTES")] = Field(
        DEFAULT_MAX_MESSAGE_BYTES,
        gt=0,
        description="largest message a client may send (a stdio line or an HTTP body); a "
        "larger one is refused (stdio: parse error, HTTP: 413) without being held in memory",
    )
    workers: Annotated[int, Flag("N")] = Field(
        1,
        gt=0,
        description="stateless HTTP: serve from this many processes sharing the port (about "
        "one per CPU core)",
    )
    log_file: Annotated[str | None, Flag("FILE")] = Field(
        None, description="write the log here instead of stderr"
    )
    log_level: LogLevel = Field(LogLevel.INFO, description="log level")

    @field_validator("transport", mode="before")
    @classmethod
    def _known_transport(cls, value: Any) -> Any:
        if isinstance(value, str) and value not in set(Transport):
            choices = ", ".join(t.value for t in Transport)
            raise ValueError(f"unknown transport {value!r}; use one of: {choices}")
        return value

    @field_validator("port", mode="before")
    @classmethod
    def _valid_port(cls, value: Any) -> Any:
        text = str(value).strip()
        if not (text.isdigit() and 0 <= int(text) <= 65535):
            raise ValueError(f"invalid port {value!r}; use a number 0..65535")
        return int(text)

    @field_validator("log_level", mode="before")
    @classmethod
    def _known_level(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value.upper() not in set(LogLevel):
                choices = ", ".join(level.value for level in LogLevel)
                raise ValueError(f"invalid log level {value!r}; use one of: {choices}")
            return value.upper()
        return value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags (init values) over environment variables; no .env or secret files."""
        return (init_settings, environ_source(settings_cls))

    @property
    def token(self) -> str | None:
        """The bearer token HTTP clients must send, if any."""
        return self.auth_token.get_secret_value() if self.auth_token else None


class ConfinedSettings(ServerSettings):
    """The options of a server whose tools read files clients name (through
    :class:`~mcp_common.AllowedPaths`): the shared options plus the hard-link policy."""

    allow_hard_links: bool = Field(
        False,
        description="read files that have more than one hard link (refused by default: a hard "
        "link inside an allowed directory may be another name of a file outside it)",
    )
