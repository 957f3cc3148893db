"""Build detection, the written-paths list, and the starter assets (never overwriting)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from adopt_server.assets import install_assets
from adopt_server.conformance import claude_md_importing_agents_md, rules_for
from adopt_server.guards import detect_build, guard_paths, install_guard, written_paths
from adopt_testkit import GOOD_AGENTS_MD
from agent_config_check.command import run_check


@pytest.mark.parametrize(
    ("files", "build"),
    [
        (["pom.xml", "build.gradle", "pyproject.toml"], "maven"),
        (["build.gradle.kts", "setup.py"], "gradle"),
        (["build.gradle"], "gradle"),
        (["pyproject.toml"], "python"),
        (["setup.py"], "python"),
        (["setup.cfg"], "python"),
        (["README.md"], "github-actions"),
        ([], "github-actions"),
    ],
)
def test_detection_order(tmp_path: Path, files: list[str], build: str) -> None:
    for name in files:
        (tmp_path / name).write_text("x", encoding="utf-8")
    assert detect_build(tmp_path) == build


def test_a_directory_named_pom_xml_is_not_maven(tmp_path: Path) -> None:
    (tmp_path / "pom.xml").mkdir()
    assert detect_build(tmp_path) == "github-actions"


def test_every_guard_and_asset_path_is_a_written_path() -> None:
    for build in ("maven", "gradle", "python", "github-actions"):
        assert set(guard_paths(build)) <= set(written_paths())
    assert "CLAUDE.md" in written_paths()
    assert len(set(written_paths())) == len(written_paths())


def test_unknown_build_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="Unknown build system 'ant'"):
        guard_paths("ant")
    with pytest.raises(ValueError, match="Unknown build system"):
        install_guard(tmp_path, "ant", rules_for(), None)


def test_guards_write_only_their_own_paths(tmp_path: Path) -> None:
    for build, seed in (("maven", "pom.xml"), ("gradle", "build.gradle"), ("python", None)):
        checkout = tmp_path / build
        checkout.mkdir()
        if seed == "pom.xml":
            (checkout / seed).write_text("<project>\n</project>\n", encoding="utf-8")
        elif seed:
            (checkout / seed).write_text("", encoding="utf-8")
        written = install_guard(checkout, build, rules_for("project", build), None)
        assert set(written) <= set(guard_paths(build))
        on_disk = {str(p.relative_to(checkout)) for p in checkout.rglob("*") if p.is_file()}
        assert on_disk <= set(guard_paths(build))


def test_assets_written_valid_and_executable(tmp_path: Path) -> None:
    written = install_assets(tmp_path)
    assert written == [
        ".claude/settings.json",
        ".claude/hooks/session-start.sh",
        ".mcp.json",
        ".github/workflows/claude.yml",
    ]
    assert set(written) <= set(written_paths())
    settings = json.loads((tmp_path / ".claude/settings.json").read_text(encoding="utf-8"))
    assert "Read(./.env)" in settings["permissions"]["deny"]
    command = settings["hooks"]["SessionStart"][0]["hooks"][0]["command"]
    assert command == '"$CLAUDE_PROJECT_DIR"/.claude/hooks/session-start.sh'
    assert json.loads((tmp_path / ".mcp.json").read_text(encoding="utf-8")) == {"mcpServers": {}}
    assert os.access(tmp_path / ".claude/hooks/session-start.sh", os.X_OK)
    workflow = yaml.safe_load((tmp_path / ".github/workflows/claude.yml").read_text("utf-8"))
    assert workflow["jobs"]["claude"]["steps"][1]["uses"] == "anthropics/claude-code-action@v1"
    assert workflow["jobs"]["claude"]["timeout-minutes"] == 30  # not GitHub's six hours
    assert install_assets(tmp_path) == []
    # The starter configuration passes the checker the guards run (mcpServersValid, noSecrets).
    (tmp_path / "AGENTS.md").write_text(GOOD_AGENTS_MD, encoding="utf-8")
    (tmp_path / "CLAUDE.md").write_text(claude_md_importing_agents_md(), encoding="utf-8")
    outcome = run_check(tmp_path)
    assert "mcpServersValid" in outcome.checked
    assert outcome.violations == ()


def test_assets_never_overwrite(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("theirs\n", encoding="utf-8")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude/settings.json").write_text("{}", encoding="utf-8")
    (tmp_path / ".mcp.json").symlink_to(tmp_path / "missing-target")
    written = install_assets(tmp_path)
    assert "AGENTS.md" not in written
    assert ".claude/settings.json" not in written
    assert ".mcp.json" not in written
    assert (tmp_path / "AGENTS.md").read_text(encoding="utf-8") == "theirs\n"
    assert (tmp_path / ".claude/settings.json").read_text(encoding="utf-8") == "{}"
    assert not (tmp_path / "missing-target").exists()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_project_guard_adds_local_settings_to_an_existing_gitignore_once(
    tmp_path: Path, newline: str
) -> None:
    (tmp_path / ".gitignore").write_bytes(f"build/{newline}*.log".encode())
    written = install_guard(tmp_path, "github-actions", rules_for("project"), None)
    assert ".gitignore" in written
    text = (tmp_path / ".gitignore").read_bytes().decode()
    assert text.startswith(f"build/{newline}*.log{newline}# Added by claude-code-adopt")
    assert text.endswith(f"/.claude/settings.local.json{newline}")
    assert "\n" not in text.replace(newline, "")
    assert ".gitignore" not in install_guard(tmp_path, "github-actions", rules_for(), None)
    assert (tmp_path / ".gitignore").read_bytes().decode() == text
    outcome = run_check(tmp_path, sections=())
    assert "localSettingsIgnored" in outcome.checked
    assert [v for v in outcome.violations if v.rule == "localSettingsIgnored"] == []


def test_gitignore_is_left_alone_when_absent_covering_or_under_minimal_rules(
    tmp_path: Path,
) -> None:
    assert ".gitignore" not in install_guard(tmp_path, "github-actions", rules_for(), None)
    assert not (tmp_path / ".gitignore").exists()
    (tmp_path / ".gitignore").write_text(".claude/\n", encoding="utf-8")
    install_guard(tmp_path, "github-actions", rules_for(), None)
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == ".claude/\n"
    other = tmp_path / "other"
    other.mkdir()
    (other / ".gitignore").write_text("*.log\n", encoding="utf-8")
    install_guard(other, "github-actions", rules_for("minimal"), None)
    assert (other / ".gitignore").read_text(encoding="utf-8") == "*.log\n"
