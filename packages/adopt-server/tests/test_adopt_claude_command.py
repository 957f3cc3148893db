"""How the adoption starts ``claude``: its environment, its flags, and a stand-in that honours
them as the real one does (the attack itself is replayed in ``security/``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from adopt_server.pipeline.claude_command import (
    CLAUDE_VARIABLES,
    PROVIDERS,
    claude_argv,
    claude_environment,
)
from adopt_server.pipeline.runner import BUILD_VARIABLES
from adopt_testkit import FAKES, git

README = Path(__file__).resolve().parents[1] / "README.md"
SERVER = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/adopt",
    "ANTHROPIC_API_KEY": "sk-ant-kept",
    "CLAUDE_CONFIG_DIR": "/home/adopt/.claude-work",
    "GH_TOKEN": "ghp_dropped",
    "GITHUB_TOKEN": "ghs_dropped",
    "OPENAI_API_KEY": "sk-dropped",
    "GIT_ASKPASS": "/usr/lib/git-core/git-gui--askpass",
    "AWS_ACCESS_KEY_ID": "AKIADROPPED",
    "AWS_SECRET_ACCESS_KEY": "aws-dropped",
    "AWS_REGION": "eu-west-1",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/adopt/gcp.json",
    "VERTEX_REGION_CLAUDE_3_7_SONNET": "europe-west1",
    "https_proxy": "http://user:secret@proxy.example:3128",
    "no_proxy": "localhost",
}


def test_claude_gets_what_it_needs_to_reach_its_model_and_no_other_credential() -> None:
    seen = claude_environment(SERVER)
    assert seen == {
        "PATH": "/usr/bin:/bin",
        "HOME": "/home/adopt",
        "ANTHROPIC_API_KEY": "sk-ant-kept",
        "CLAUDE_CONFIG_DIR": "/home/adopt/.claude-work",
        "no_proxy": "localhost",
    }


@pytest.mark.parametrize(
    ("switch", "kept"),
    [
        ("CLAUDE_CODE_USE_BEDROCK", {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_REGION"}),
        (
            "CLAUDE_CODE_USE_VERTEX",
            {"GOOGLE_APPLICATION_CREDENTIALS", "VERTEX_REGION_CLAUDE_3_7_SONNET"},
        ),
    ],
)
def test_a_cloud_providers_credentials_reach_claude_only_when_it_calls_that_provider(
    switch: str, kept: set[str]
) -> None:
    on = claude_environment({**SERVER, switch: "1"})
    assert set(on) - set(claude_environment(SERVER)) == {switch, *kept}
    assert "GH_TOKEN" not in on
    assert "OPENAI_API_KEY" not in on
    off = claude_environment({**SERVER, switch: "0"})
    assert set(off) - set(claude_environment(SERVER)) == {switch}


def test_the_readme_names_every_variable_claude_and_a_build_keep() -> None:
    security = README.read_text(encoding="utf-8").split("## Security", 1)[1].split("\n## ", 1)[0]
    names = set(CLAUDE_VARIABLES) | set(BUILD_VARIABLES)
    for provider in PROVIDERS:
        names |= {provider.switch, *provider.variables, *(p + "*" for p in provider.prefixes)}
    missing = sorted(name for name in names if f"`{name}`" not in security)
    assert missing == [], f"README's Security section does not name {missing}"
    assert "`--setting-sources user`" in security
    assert "`--strict-mcp-config`" in security


def run_fake(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {"PATH": os.environ["PATH"], "HOME": str(home), "FAKE_STATE": str(home)}
    return subprocess.run(
        [str(FAKES / "bin" / "claude"), *args],
        cwd=repo,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture
def hooked(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose project settings hook every event to a marker file, and a HOME."""
    repo = tmp_path / "repo"
    (repo / ".claude").mkdir(parents=True)
    git(repo, "init", "-q")
    hook = [{"matcher": "", "hooks": [{"type": "command", "command": "echo $0 >> ../ran"}]}]
    settings = {"hooks": {e: hook for e in ("SessionStart", "PreToolUse", "PostToolUse")}}
    (repo / ".claude" / "settings.json").write_text(json.dumps(settings))
    home = tmp_path / "home"
    home.mkdir()
    return repo, home


def test_the_fake_claude_runs_a_repositorys_hooks_unless_its_settings_are_left_out(
    hooked: tuple[Path, Path],
) -> None:
    repo, home = hooked
    ran = repo.parent / "ran"
    assert run_fake(repo, home, "-p", "/init", "--permission-mode", "acceptEdits").returncode == 0
    assert len(ran.read_text().splitlines()) == 3, "SessionStart, then around the write"
    ran.unlink()
    (repo / "CLAUDE.md").unlink()
    assert run_fake(repo, home, *claude_argv("/init")[1:]).returncode == 0
    assert (repo / "CLAUDE.md").is_file()
    assert not ran.exists(), "--setting-sources user leaves the project's hooks out"


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--no-such-flag"], "error: unknown option '--no-such-flag'"),
        (["--permission-mode", "yolo"], "argument 'yolo' is invalid"),
        (["--setting-sources", "user,everything"], "Invalid setting source: everything"),
    ],
)
def test_the_fake_claude_refuses_what_the_real_parser_refuses(
    hooked: tuple[Path, Path], args: list[str], said: str
) -> None:
    repo, home = hooked
    done = run_fake(repo, home, "-p", "/init", *args)
    assert done.returncode == 1
    assert said in done.stderr
    assert not (repo.parent / "ran").exists(), "nothing ran"
    assert re.sub(r"\s+", " ", done.stdout) == ""
