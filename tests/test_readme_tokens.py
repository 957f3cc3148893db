"""The READMEs' HTTP setup works as written: the documented server command, started without a
token, generates one, and the documented ``export X_MCP_TOKEN="$(cat ...)"`` line reads it."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from e2e.e2e_support import INITIALIZE, free_port, stop, wait_until_listening
from readme_snippets import client_section, shell_lines

pytestmark = pytest.mark.e2e

SERVERS = ("uniqueness-server", "context-server", "adopt-server")
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("server", SERVERS)
def test_the_documented_token_line_reads_the_generated_token(server: str, tmp_path: Path) -> None:
    lines = shell_lines(client_section(server))
    (serving,) = [line for line in lines if line.startswith(f"{server} --transport")]
    (reading,) = [line for line in lines if "_MCP_TOKEN=" in line and "cat " in line]
    words = shlex.split(serving)
    documented_port = words[words.index("--port") + 1]
    port = str(free_port())
    words[words.index("--port") + 1] = port
    for index, word in enumerate(words):
        if word.startswith("/path/to/"):
            (tmp_path / "places" / word.rsplit("/", 1)[1]).mkdir(parents=True)
            words[index] = str(tmp_path / "places" / word.rsplit("/", 1)[1])
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    env = {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(runtime)}
    log = tmp_path / "server.log"
    with log.open("wb") as sink:
        process = subprocess.Popen(
            [str(BIN / words[0]), *words[1:]],
            env=env,
            cwd=tmp_path,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_until_listening(process, int(port), log)
        variable = reading.split("=", 1)[0].removeprefix("export ")
        shell = f'{reading.replace(documented_port, port)}\nprintf %s "${variable}"'
        token = subprocess.run(
            ["bash", "-c", shell], env=env, capture_output=True, text=True, check=True, timeout=30
        ).stdout
        assert token
        url = f"http://127.0.0.1:{port}/mcp"
        headers = {"accept": "application/json, text/event-stream"}
        assert httpx.post(url, json=INITIALIZE, headers=headers, timeout=30).status_code == 401
        authorized = {**headers, "authorization": f"Bearer {token}"}
        assert httpx.post(url, json=INITIALIZE, headers=authorized, timeout=30).status_code == 200
    finally:
        stop(process)
