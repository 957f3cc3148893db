"""The Dockerfile, without a Docker engine: its rules are checked here (the ones a Dockerfile
linter would check, written as tests), and its build commands run in a plain shell with the
image's paths moved into a scratch directory, so a broken command fails here first."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from mcp_common.workspace import workspace_packages
from test_wheels import PIP_SKIP_BYTECODE

ROOT = Path(__file__).resolve().parent.parent
SERVERS = {p.folder: p for p in workspace_packages(ROOT) if p.server_command}
SYSTEM_COMMANDS = ("apt-get ", "useradd ")
"""Commands that change the machine they run on: checked, never run here."""


@dataclass(frozen=True)
class Instruction:
    keyword: str
    argument: str


def instructions() -> list[Instruction]:
    text = (ROOT / "Dockerfile").read_text("utf-8").replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            keyword, _, argument = stripped.partition(" ")
            found.append(Instruction(keyword.upper(), " ".join(argument.split())))
    return found


def final_stage() -> list[Instruction]:
    every = instructions()
    start = max(i for i, instruction in enumerate(every) if instruction.keyword == "FROM")
    return every[start:]


def run_commands(stage: list[Instruction]) -> list[str]:
    return [
        command.strip()
        for instruction in stage
        if instruction.keyword == "RUN"
        for command in instruction.argument.split("&&")
    ]


def test_base_images_are_pinned_and_nothing_is_fetched_by_add() -> None:
    every = instructions()
    for instruction in every:
        assert instruction.keyword != "ADD", "COPY, never ADD (no remote URLs, no archives)"
        if instruction.keyword == "FROM":
            image = instruction.argument.split()[0]
            assert re.fullmatch(r"[\w./-]+:[\w.-]+", image), image
            assert not image.endswith(":latest"), image
    assert not any("curl" in i.argument or "wget" in i.argument for i in every)


def test_the_server_runs_as_a_user_that_is_not_root() -> None:
    stage = final_stage()
    keywords = [instruction.keyword for instruction in stage]
    user_at = max(i for i, keyword in enumerate(keywords) if keyword == "USER")
    assert all(keyword != "RUN" for keyword in keywords[user_at:]), "nothing runs as root after"
    uid = stage[user_at].argument.split(":")[0]
    assert uid not in ("0", "root")
    (entrypoint,) = [i for i in stage if i.keyword == "ENTRYPOINT"]
    assert isinstance(json.loads(entrypoint.argument), list), "exec form: signals reach it"
    assert keywords.index("ENTRYPOINT") > user_at


def test_installs_leave_no_caches_behind() -> None:
    for command in run_commands(instructions()):
        if command.startswith("apt-get install"):
            assert "-y" in command.split()
            assert "--no-install-recommends" in command
        if " pip install " in f" {command} " or "/pip install " in command:
            assert "--no-cache-dir" in command, command
    for instruction in instructions():
        if "apt-get update" in instruction.argument:
            assert "rm -rf /var/lib/apt/lists/*" in instruction.argument


def build_arguments() -> dict[str, str]:
    """The final stage's ``ARG`` names and their defaults."""
    return {
        i.argument.split("=")[0]: i.argument.partition("=")[2]
        for i in final_stage()
        if i.keyword == "ARG"
    }


def test_the_default_server_and_every_server_can_be_built() -> None:
    assert build_arguments()["SERVER"] in SERVERS
    install = next(c for c in run_commands(final_stage()) if "pip install" in c)
    for server, package in SERVERS.items():
        assert install.replace("${SERVER}", server).count(package.distribution) == 1
    ignored = (ROOT / ".dockerignore").read_text("utf-8").split()
    assert {".git", ".venv"} <= set(ignored)


@pytest.mark.e2e
@pytest.mark.slow
def test_the_build_commands_run_in_a_plain_shell(tmp_path: Path) -> None:
    """Every RUN command but the system ones, with /wheels, /opt and /usr/local/bin moved into
    ``tmp_path``; the wheels stage runs at the repository root (its COPY of the checkout)."""
    moved = {
        "/wheels": str(tmp_path / "wheels"),
        "/opt/": f"{tmp_path}/opt/",
        "/usr/local/bin/": f"{tmp_path}/bin/",
    }
    (tmp_path / "bin").mkdir()
    python = tmp_path / "python-env"
    subprocess.run([sys.executable, "-m", "venv", str(python)], check=True, timeout=300)
    environment = {key: value for key, value in os.environ.items() if key != "VIRTUAL_ENV"}
    environment["PATH"] = f"{python / 'bin'}{os.pathsep}{environment['PATH']}"
    # the image `docker build .` makes: the default server (adopt-server, 60 MB installed; the
    # wheel tests install every server, context-server's 155 MB took twice the CPU here)
    server = build_arguments()["SERVER"]
    environment |= {"SERVER": server, "EXTRAS": "", **PIP_SKIP_BYTECODE}
    ran = []
    for instruction in instructions():
        if instruction.keyword != "RUN":
            continue
        parts = [part.strip() for part in instruction.argument.split("&&")]
        if any(part.startswith(SYSTEM_COMMANDS) for part in parts):
            continue  # the whole instruction: its clean-up belongs to the image's system
        command = instruction.argument
        for image_path, scratch in moved.items():
            command = command.replace(image_path, scratch)
        # nothing outside the scratch directory is touched
        assert not re.search(r"(?<![\w./-])/(opt|usr|var|etc|wheels|home)\b", command), command
        done = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", command],
            cwd=ROOT,
            env=environment,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        ran.extend(shlex.split(part)[0] for part in command.split("&&"))
    assert {"uv", "rm", "ln"} <= set(ran), ran
    version = subprocess.run(
        [str(tmp_path / "bin" / "mcp-server"), "--version"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert version.stdout.startswith(f"{server} ")
