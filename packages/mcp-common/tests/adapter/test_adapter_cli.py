"""The shared command line: flags, environment equivalents, refusals."""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import pytest
from adapter_tools import GreetTool
from mcp_common import Flag, McpTool, Repeatable, ServerSettings
from mcp_common.adapter import ServerApp, build_server_for, parse_arguments
from mcp_common.adapter.http import transport_security
from mcp_common.adapter.logging_setup import MaskingFormatter, configure_logging
from mcp_common.settings import LIST_SEPARATOR
from pydantic import Field
from pydantic_settings import SettingsConfigDict


class DemoSettings(ServerSettings):
    model_config = SettingsConfigDict(env_prefix="DEMO_SERVER_")

    port: int = Field(8123, description="HTTP port")
    allowed_dir: Annotated[Repeatable, Flag("DIR")] = Field(
        default_factory=list, description="a root"
    )
    dry: bool = Field(False, description="a switch")


def _tools(settings: DemoSettings) -> Sequence[McpTool]:
    if "/missing" in settings.allowed_dir:
        raise ValueError("allowed directory does not exist: /srv/secret/missing")
    if "/db" in settings.allowed_dir:
        raise ValueError("cannot reach postgresql://reader:hunter2@db.example/x for /srv/db")
    return [GreetTool()]


APP = ServerApp(
    name="demo-server",
    distribution="mcp-tools-common",
    description="A demo server.",
    epilog="examples:\n  demo-server --transport stateless-http --port 9000",
    settings=DemoSettings,
    build_tools=_tools,
)


def parse(argv: list[str], env: dict[str, str] | None = None) -> DemoSettings:
    return parse_arguments(APP, argv, env or {})


def refusal(
    capsys: pytest.CaptureFixture[str], argv: list[str], env: dict[str, str] | None = None
) -> str:
    with pytest.raises(SystemExit) as exited:
        parse(argv, env)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.startswith("usage: demo-server")
    return err.strip().splitlines()[-1]


def test_defaults() -> None:
    options = parse([])
    assert options.transport == "stdio"
    assert options.host == "127.0.0.1"
    assert options.port == 8123
    assert options.auth_token is None
    assert options.log_level == "INFO"


def test_unknown_transport_is_refused_naming_the_three(capsys: pytest.CaptureFixture[str]) -> None:
    line = refusal(capsys, ["--transport", "sse"])
    assert line == (
        "demo-server: error: argument --transport: unknown transport 'sse'; "
        "use one of: stdio, streamable-http, stateless-http"
    )


def test_unknown_transport_from_the_environment_is_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    line = refusal(capsys, [], {"DEMO_SERVER_TRANSPORT": "websocket"})
    assert "unknown transport 'websocket'" in line


@pytest.mark.parametrize(
    "argv",
    [
        ["--port", "http"],
        ["--port", "70000"],
        ["--bogus"],
        ["--log-level", "loud"],
        ["--tls-key", "k"],
    ],
)
def test_bad_flags_are_one_line_errors(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    assert refusal(capsys, argv).startswith("demo-server: error: ")


def test_abbreviated_flags_are_not_guessed(capsys: pytest.CaptureFixture[str]) -> None:
    assert "unrecognized arguments: --trans" in refusal(capsys, ["--trans", "stdio"])


def test_version_prints_name_and_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        parse(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.strip() == f"demo-server {APP.version}"
    assert APP.version not in ("", "unknown")


def test_help_shows_examples_and_environment_variables(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse(["--help"])
    out = capsys.readouterr().out
    assert "demo-server --transport stateless-http --port 9000" in out
    assert "--port PORT           HTTP port (default: 8123)" in out
    assert "--allowed-dir DIR     a root" in out
    for variable in (
        "DEMO_SERVER_TRANSPORT",
        "DEMO_SERVER_HOST",
        "DEMO_SERVER_PORT",
        "DEMO_SERVER_AUTH_TOKEN",
        "DEMO_SERVER_TLS_CERT",
        "DEMO_SERVER_ALLOWED_DIR",
        "DEMO_SERVER_DRY",
    ):
        assert variable in out
    assert f"separated by '{LIST_SEPARATOR}'" in out


def test_every_flag_has_an_environment_equivalent() -> None:
    options = parse(
        [],
        {
            "DEMO_SERVER_TRANSPORT": "stateless-http",
            "DEMO_SERVER_HOST": "0.0.0.0",  # noqa: S104 - a parsed value, not a bind
            "DEMO_SERVER_PORT": "9001",
            "DEMO_SERVER_AUTH_TOKEN": "tok",
            "DEMO_SERVER_TLS_CERT": "/etc/cert.pem",
            "DEMO_SERVER_TLS_KEY": "/etc/key.pem",
            "DEMO_SERVER_LOG_FILE": "/tmp/server.log",
            "DEMO_SERVER_LOG_LEVEL": "debug",
            "DEMO_SERVER_ALLOWED_HOST": "mcp.example.com|proxy.internal",
            "DEMO_SERVER_ALLOWED_DIR": "/data/a|/data/b:c|",
            "DEMO_SERVER_DRY": "yes",
        },
    )
    assert options.transport == "stateless-http"
    assert options.host == "0.0.0.0"  # noqa: S104 - a parsed value, not a bind
    assert options.port == 9001
    assert options.token == "tok"
    assert (options.tls_cert, options.tls_key) == ("/etc/cert.pem", "/etc/key.pem")
    assert options.log_file == "/tmp/server.log"
    assert options.log_level == "DEBUG"
    assert options.allowed_host == ["mcp.example.com", "proxy.internal"]
    assert options.allowed_dir == ["/data/a", "/data/b:c"]
    assert options.dry is True


def test_flags_win_over_the_environment() -> None:
    env = {
        "DEMO_SERVER_PORT": "9001",
        "DEMO_SERVER_ALLOWED_DIR": "/env/a|/env/b",
        "DEMO_SERVER_TRANSPORT": "stateless-http",
    }
    options = parse(["--port=9002", "--allowed-dir", "/flag", "--transport", "stdio"], env)
    assert options.port == 9002
    assert options.allowed_dir == ["/flag"]
    assert options.transport == "stdio"


@pytest.mark.parametrize(("value", "expected"), [("true", True), ("0", False), ("", False)])
def test_switches_from_the_environment(value: str, expected: bool) -> None:
    assert parse([], {"DEMO_SERVER_DRY": value}).dry is expected


def test_bad_switch_value_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert "DEMO_SERVER_DRY='maybe': use true or false" in refusal(
        capsys, [], {"DEMO_SERVER_DRY": "maybe"}
    )


def test_a_credential_in_a_refused_value_is_masked(capsys: pytest.CaptureFixture[str]) -> None:
    line = refusal(capsys, ["--port", "https://admin:hunter2@db.example.com"])
    assert "hunter2" not in line
    assert "invalid port" in line


def test_build_server_for_parses_then_builds() -> None:
    server = build_server_for(APP, ["--dry"], {})
    assert server.name == "demo-server"
    assert server.version == APP.version


def test_build_tools_failure_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_server_for(APP, ["--allowed-dir", "/missing"], {})
    assert exited.value.code == 2
    line = capsys.readouterr().err.strip().splitlines()[-1]
    # the user's own path, unmasked: masking is for what reaches a model
    assert line == "demo-server: error: allowed directory does not exist: /srv/secret/missing"


def test_a_credential_in_a_startup_error_stays_masked(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_server_for(APP, ["--allowed-dir", "/db"], {})
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line == "demo-server: error: cannot reach postgresql://***@db.example/x for /srv/db"


def test_loopback_allow_list() -> None:
    settings = transport_security("127.0.0.1", [])
    assert settings.enable_dns_rebinding_protection
    assert "127.0.0.1:*" in settings.allowed_hosts
    assert "localhost:*" in settings.allowed_hosts
    assert "[::1]:*" in settings.allowed_hosts
    assert not any("evil" in h for h in settings.allowed_hosts)
    assert "http://localhost:*" in settings.allowed_origins


def test_specific_and_extra_hosts_are_allowed() -> None:
    settings = transport_security("10.1.2.3", ["mcp.example.com", "fd00::1"])
    assert {"10.1.2.3:*", "mcp.example.com", "mcp.example.com:*", "[fd00::1]:*"} <= set(
        settings.allowed_hosts
    )
    assert "https://mcp.example.com" in settings.allowed_origins


def test_wildcard_bind_allows_the_machine_name() -> None:
    settings = transport_security("0.0.0.0", [])  # noqa: S104 - a name, not a bind
    assert f"{socket.gethostname()}:*" in settings.allowed_hosts
    assert "0.0.0.0:*" not in settings.allowed_hosts


def test_log_formatter_masks_credentials_but_keeps_paths() -> None:
    try:
        raise RuntimeError("cannot open postgresql://app:hunter2@db/x for /srv/data/a.csv")
    except RuntimeError:
        record = logging.getLogger("t").makeRecord(
            "t", logging.ERROR, __file__, 1, "failed with token=abc123", (), sys.exc_info()
        )
    text = MaskingFormatter().format(record)
    assert "hunter2" not in text
    assert "abc123" not in text
    assert "/srv/data/a.csv" in text
    assert "Traceback" in text


def test_configure_logging_writes_to_the_log_file(tmp_path: Path) -> None:
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    log_file = tmp_path / "server.log"
    try:
        configure_logging("WARNING", str(log_file))
        logging.getLogger("x").warning("connect to https://u:p4ss@h/x")
        logging.getLogger("x").info("not at this level")
        for handler in root.handlers:
            handler.flush()
        text = log_file.read_text()
    finally:
        for handler in root.handlers:
            handler.close()
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        logging.captureWarnings(False)
    assert "https://***@h/x" in text
    assert "p4ss" not in text
    assert "not at this level" not in text
