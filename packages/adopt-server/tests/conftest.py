"""Fixtures for adopt-server tests: an isolated HOME and git configuration, fake claude/gh/
mvn/gradle on the PATH, and bare repositories copied from session-wide templates."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from adopt_testkit import FAKES, PROJECTS, REAL_GIT, make_bare_repository


@pytest.fixture(scope="session")
def repository_templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One bare repository per project kind, built once."""
    root = tmp_path_factory.mktemp("templates")
    return {kind: make_bare_repository(root, kind, files) for kind, files in PROJECTS.items()}


@dataclass
class AdoptEnv:
    """The isolated world one test runs in."""

    root: Path
    home: Path
    remotes: Path
    workspace: Path
    log: Path
    state: Path
    templates: dict[str, Path]
    monkeypatch: pytest.MonkeyPatch

    def remote(self, kind: str, name: str | None = None) -> Path:
        """A fresh bare repository of ``kind`` at ``remotes/<name>.git``."""
        target = self.remotes / f"{name or kind}.git"
        shutil.copytree(self.templates[kind], target)
        return target

    def use_flaky_git(self) -> None:
        """Put the failing git wrapper first on the PATH."""
        self.monkeypatch.setenv("PATH", f"{FAKES / 'flaky'}{os.pathsep}{os.environ['PATH']}")
        self.monkeypatch.setenv("REAL_GIT", REAL_GIT)

    def claude_env(self, **values: str) -> None:
        """Set variables for ``claude`` alone, under ``env`` in the user's Claude Code
        settings: the adoption starts claude with an allow-listed environment, so the fake's
        controls (``FAKE_CLAUDE_MODE`` ...) reach it this way, as an operator's would."""
        settings = self.home / ".claude" / "settings.json"
        data = json.loads(settings.read_text(encoding="utf-8"))
        data.setdefault("env", {}).update(values)
        settings.write_text(json.dumps(data), encoding="utf-8")

    def claude_environments(self) -> list[dict[str, dict[str, str]]]:
        """What each ``claude`` call so far started with (``received``) and ran with after
        its settings' ``env`` (``effective``), in order."""
        folder = self.state / "claude-env"
        files = sorted(folder.iterdir()) if folder.is_dir() else []
        return [json.loads(file.read_text(encoding="utf-8")) for file in files]

    def git_config(self, text: str) -> None:
        """Append to the test's global git configuration."""
        with (self.home / ".gitconfig").open("a", encoding="utf-8") as handle:
            handle.write(text)


def isolated_env(
    root: Path, monkeypatch: pytest.MonkeyPatch, templates: dict[str, Path]
) -> AdoptEnv:
    """An :class:`AdoptEnv` under ``root``: HOME and git configuration of its own, fakes first
    on the PATH, log and state files, every variable a fake or GitHub reads cleared
    (``CLAUDE_CONFIG_DIR`` too: the trust step would write to the person's own)."""
    home = root / "home"
    remotes = root / "remotes"
    workspace = root / "ws"
    state = root / "state"
    for folder in (home, remotes, workspace, state):
        folder.mkdir()
    (home / ".gitconfig").write_text("", encoding="utf-8")
    log = root / "fake.log"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("PATH", f"{FAKES / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_LOG", str(log))
    monkeypatch.setenv("FAKE_STATE", str(state))
    for name in list(os.environ):
        if name.startswith(
            ("FAKE_CLAUDE", "FAKE_GH", "FAKE_GIT", "GH_", "GITHUB_TOKEN", "CLAUDE_CONFIG_DIR")
        ):
            monkeypatch.delenv(name)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(
        json.dumps({"env": {"FAKE_LOG": str(log), "FAKE_STATE": str(state)}}), encoding="utf-8"
    )
    return AdoptEnv(
        root=root,
        home=home,
        remotes=remotes,
        workspace=workspace,
        log=log,
        state=state,
        templates=templates,
        monkeypatch=monkeypatch,
    )


@pytest.fixture
def adopt_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repository_templates: dict[str, Path]
) -> AdoptEnv:
    """Temporary HOME and git config, fakes first on the PATH, log and state files."""
    return isolated_env(tmp_path, monkeypatch, repository_templates)
