"""``agent-config-check`` end to end: bad input, confinement, baseline, severity, reports, and
the standalone script being the same checker as the installed command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agent_config_check import script as standalone
from agent_config_check.tree import MAX_READ_BYTES

BIN = Path(sys.executable).parent
FIXTURES = Path(__file__).parent / "fixtures" / "parity"
AGENTS = (FIXTURES / "clean-project" / "project" / "AGENTS.md").read_text(encoding="utf-8")
CLAUDE = (FIXTURES / "clean-project" / "project" / "CLAUDE.md").read_text(encoding="utf-8")


def run(
    *args: str, cwd: Path, command: str = "agent-config-check"
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / command), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def project(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "project"
    for relative, content in {"CLAUDE.md": CLAUDE, "AGENTS.md": AGENTS, **files}.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stdout.splitlines()


def test_clean_project_exits_zero_and_the_alias_is_the_same_command(tmp_path: Path) -> None:
    root = project(tmp_path, {})
    for command in ("agent-config-check", "claude-md-check"):
        result = run("--section", "## Project", cwd=root, command=command)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert run("--version", cwd=root).stdout.startswith("agent-config-check ")


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"CLAUDE.md": b"# CLAUDE.md\n\x00\x01binary"},
            "CLAUDE.md: error [claudeMdFormat] CLAUDE.md is a binary file, not text",
        ),
        (
            {"AGENTS.md": "# AGENTS.md\n" + "x" * MAX_READ_BYTES},
            f"AGENTS.md: error [agentsMdFormat] AGENTS.md is larger than {MAX_READ_BYTES} "
            "bytes; it was not read",
        ),
        (
            {".mcp.json": b'{"mcpServers": {"a": "\xff"}}'},
            ".mcp.json: error [mcpServersValid] .mcp.json is not valid UTF-8 (line 1)",
        ),
        (
            {".mcp.json": "[" * 100_000 + "]" * 100_000},
            ".mcp.json: error [mcpServersValid] mcp.json is not valid JSON: nested too deeply",
        ),
        (
            {".claude/agents/loose.md": "---\nname: loose\ndescription: 'open\n---\n"},
            ".claude/agents/loose.md:3: error [subAgentFormat] Sub-agent definition has malformed "
            "YAML front matter (front matter value opens a quote it never closes): "
            ".claude/agents/loose.md",
        ),
        (
            {".claude/agents/tabs.md": "---\nname: tabs\n\tdescription: x\n---\n"},
            ".claude/agents/tabs.md:3: error [subAgentFormat] Sub-agent definition has malformed "
            "YAML front matter (front matter indents with a tab, which YAML forbids): "
            ".claude/agents/tabs.md",
        ),
        (
            {".claude/skills/unclosed/SKILL.md": "---\nname: unclosed\n"},
            ".claude/skills/unclosed/SKILL.md:1: error [skillFilesExist] SKILL.md has malformed "
            "YAML front matter (front matter opened with '---' is never closed): "
            ".claude/skills/unclosed/SKILL.md",
        ),
        (
            {"CLAUDE.md": CLAUDE + "\n@CLAUDE.md\n"},
            "CLAUDE.md:11: error [memoryImports] CLAUDE.md has a circular import: @CLAUDE.md",
        ),
    ],
)
def test_bad_input_is_a_violation_with_file_and_line_never_a_crash(
    tmp_path: Path, files: dict[str, str | bytes], expected: str
) -> None:
    result = run("--section", "## Project", cwd=project(tmp_path, files))
    assert result.returncode == 1, result.stderr
    assert expected in lines(result)
    assert "Traceback" not in result.stderr


def test_symlinks_out_of_the_project_are_never_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = "ghp_" + "a" * 36
    (outside / "notes.md").write_text(f"token {secret}\n@more.md\n", encoding="utf-8")
    (outside / "agents").mkdir()
    (outside / "agents" / "x.md").write_text("no front matter\n", encoding="utf-8")
    root = project(tmp_path, {"CLAUDE.md": CLAUDE + "\n@../outside/notes.md\n@linked.md\n"})
    (root / "linked.md").symlink_to(outside / "notes.md")
    (root / ".claude").mkdir()
    (root / ".claude" / "agents").symlink_to(outside / "agents")
    (root / ".mcp.json").symlink_to(outside / "notes.md")
    result = run("--section", "## Project", cwd=root)
    assert result.returncode == 1
    assert secret[:8] not in result.stdout
    assert lines(result) == [
        "CLAUDE.md:11: error [memoryImports] CLAUDE.md imports @../outside/notes.md, which "
        "leads out of the project; it was not read",
        "CLAUDE.md:12: error [memoryImports] CLAUDE.md imports @linked.md, which leads out of "
        "the project; it was not read",
        ".mcp.json: error [mcpServersValid] .mcp.json leads out of the project; it was not read",
        ".mcp.json: error [mcpConfigFormat] .mcp.json leads out of the project; it was not read",
        ".mcp.json: error [noSecrets] .mcp.json leads out of the project; it was not read, so it "
        "was not scanned for secrets",
    ]


def test_the_checker_executes_nothing() -> None:
    source = standalone.script("test")
    for call in ("subprocess", "os.system", "os.exec", "os.popen", "eval(", "exec(", "pickle"):
        assert call not in source


def test_baseline_accepts_recorded_violations_in_any_clone(tmp_path: Path) -> None:
    root = project(tmp_path, {".claude/agents/Bad.md": "no front matter\n"})
    recorded = run(
        "--section", "## Project", "--baseline", "baseline.txt", "--write-baseline", cwd=root
    )
    assert recorded.returncode == 0, recorded.stderr
    baseline = (root / "baseline.txt").read_text(encoding="utf-8")
    assert "[subAgentFormat]" in baseline
    assert str(tmp_path) not in baseline, "paths are relative: the baseline works in any clone"
    clone = tmp_path / "elsewhere" / "clone"
    shutil.copytree(root, clone)
    accepted = run(
        "--section", "## Project", "--baseline", "baseline.txt", "--format", "json", cwd=clone
    )
    assert accepted.returncode == 0
    assert json.loads(accepted.stdout)["suppressedByBaseline"] == 1
    (clone / ".claude/agents/new-one.md").write_text("no front matter either\n", "utf-8")
    fresh = run("--section", "## Project", "--baseline", "baseline.txt", cwd=clone)
    assert fresh.returncode == 1
    assert all("new-one.md" in line for line in lines(fresh))
    (clone / ".claude/agents/Bad.md").unlink()
    stale = run("--section", "## Project", "--baseline", "baseline.txt", cwd=clone)
    assert "baseline entries no longer match anything" in stale.stderr


def configured_baseline(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose own configuration names ``baseline.txt``, and a victim file outside."""
    root = project(tmp_path, {".claude/agents/Bad.md": "no front matter\n"})
    config = root / ".claude" / "agent-config-check.json"
    config.write_text(json.dumps({"baselineFile": "baseline.txt"}), encoding="utf-8")
    victim = tmp_path / "outside" / "victim.txt"
    victim.parent.mkdir()
    victim.write_text("precious\n", encoding="utf-8")
    return root, victim


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_write_baseline_never_writes_through_a_link(tmp_path: Path, link: str) -> None:
    root, victim = configured_baseline(tmp_path)
    if link == "symbolic":  # one pointing out is outside the project; this one overwrote CLAUDE.md
        victim = root / "CLAUDE.md"
        (root / "baseline.txt").symlink_to("CLAUDE.md")
    else:
        os.link(victim, root / "baseline.txt")
    result = run("--write-baseline", cwd=root)
    assert result.returncode == 2
    refusal = "is a symbolic link" if link == "symbolic" else "has other hard links"
    assert (
        f"error: the baseline baseline.txt {refusal}; --write-baseline never writes through "
        "one (remove it, or name another file)"
    ) in result.stderr
    assert victim.read_text(encoding="utf-8") == (CLAUDE if link == "symbolic" else "precious\n")
    assert (root / "baseline.txt").is_symlink() == (link == "symbolic")
    assert sorted(p.name for p in root.iterdir()) == [
        ".claude",
        "AGENTS.md",
        "CLAUDE.md",
        "baseline.txt",
    ]


def test_write_baseline_refuses_a_fifo_instead_of_blocking(tmp_path: Path) -> None:
    root, _ = configured_baseline(tmp_path)
    os.mkfifo(root / "baseline.txt")
    result = run("--write-baseline", cwd=root)  # opening a FIFO to write waited for a reader
    assert result.returncode == 2
    assert "the baseline baseline.txt is not a regular file" in result.stderr


def test_write_baseline_replaces_the_file_in_one_rename(tmp_path: Path) -> None:
    root, _ = configured_baseline(tmp_path)
    (root / "baseline.txt").write_text("[old] entry\n", encoding="utf-8")
    before = (root / "baseline.txt").stat().st_ino
    result = run("--write-baseline", cwd=root)
    assert result.returncode == 0, result.stderr
    written = root / "baseline.txt"
    assert "[subAgentFormat]" in written.read_text(encoding="utf-8")
    assert written.stat().st_ino != before  # a new file, renamed over the old one
    assert sorted(p.name for p in root.iterdir()) == [
        ".claude",
        "AGENTS.md",
        "CLAUDE.md",
        "baseline.txt",
    ]


def test_severity_per_rule_and_skipped_rules_from_the_configuration(tmp_path: Path) -> None:
    key = "sk-ant-" + "b" * 20
    root = project(tmp_path, {".mcp.json": json.dumps({"mcpServers": {"a": {"command": key}}})})
    config = root / ".claude" / "agent-config-check.json"
    config.parent.mkdir(exist_ok=True)
    config.write_text(
        json.dumps(
            {"claudeMdSections": ["## Project"], "rules": {"noSecrets": {"severity": "warn"}}}
        ),
        encoding="utf-8",
    )
    warned = run(cwd=root)
    assert warned.returncode == 0
    assert lines(warned) == [
        ".mcp.json:1: warn [noSecrets] .mcp.json contains what looks like a Anthropic API key: "
        "sk-ant-b..."
    ]
    config.write_text(
        json.dumps({"claudeMdSections": ["## Project"], "skippedRules": ["NOSECRETS"]}), "utf-8"
    )
    assert (run(cwd=root).returncode, run(cwd=root).stdout) == (0, "")


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"severity": "warning"}, "'severity' must be one of error, warn, not 'warning'"),
        ({"rulez": {}}, "unknown configuration key 'rulez'"),
        ({"rules": {"noSuchRule": {}}}, "unknown rule 'noSuchRule'"),
        ({"rules": {"memoryImports": {"maxDepht": 3}}}, "unknown key 'maxDepht' for rule"),
        ({"rules": {"memoryImports": {"maxDepth": "5"}}}, "rules.memoryImports.maxDepth must be"),
        (
            {"rules": {"crossDocConsistency": {"consistentPatterns": ["Java"]}}},
            "must declare a capturing group",
        ),
        ({"claudeMdSections": ["Build"]}, "is not a Markdown heading"),
        (
            {"rules": {"readmeConsistency": {"consistentPatterns": ["(v)\\1"]}}},
            "rules.readmeConsistency.consistentPatterns: '(v)\\1' cannot be used: "
            "backreferences are not supported by the linear-time matcher at position 3",
        ),
        (
            {"rules": {"noSecrets": {"secretPatterns": ["(?<=key=)\\w+"]}}},
            "lookaround is not supported by the linear-time matcher",
        ),
        (
            {"rules": {"permissionsFormat": {"forbiddenEntryPatterns": ["Bash(rm"]}}},
            "missing ), unterminated subpattern",
        ),
    ],
)
def test_configuration_mistakes_are_usage_errors(
    tmp_path: Path, config: dict[str, object], message: str
) -> None:
    root = project(tmp_path, {})
    (tmp_path / "config.json").write_text(json.dumps(config), encoding="utf-8")
    result = run("--config", str(tmp_path / "config.json"), cwd=root)
    assert result.returncode == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def test_a_deeply_nested_repository_configuration_is_a_usage_error(tmp_path: Path) -> None:
    # the repository's own .claude/agent-config-check.json: json.loads recursed to a traceback
    root = project(tmp_path, {".claude/agent-config-check.json": "[" * 100_000 + "]" * 100_000})
    result = run(cwd=root)
    assert result.returncode == 2
    assert result.stdout == ""
    assert ".claude/agent-config-check.json: not valid JSON (nested too deeply)" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_fifo_among_the_hook_scripts_is_reported_not_read(tmp_path: Path) -> None:
    # opening a FIFO blocks until someone writes to it: the check never ended
    root = project(tmp_path, {})
    (root / ".claude" / "hooks").mkdir(parents=True)
    os.mkfifo(root / ".claude" / "hooks" / "stop.sh")
    result = run("--profile", "adoption", cwd=root)
    assert result.returncode == 1, result.stderr
    assert (
        ".claude/hooks/stop.sh: error [hooksFormat] hook script is not a regular file: "
        ".claude/hooks/stop.sh"
    ) in result.stdout.splitlines()


def test_sarif_report_locates_each_violation(tmp_path: Path) -> None:
    root = project(tmp_path, {".claude/agents/Bad_Name.md": "---\nname: Bad_Name\n---\n"})
    result = run("--section", "## Project", "--format", "sarif", "--output", "out.sarif", cwd=root)
    assert result.returncode == 1
    assert result.stdout == ""
    log = json.loads((root / "out.sarif").read_text(encoding="utf-8"))
    assert log["version"] == "2.1.0"
    [sarif_run] = log["runs"]
    rules = [rule["id"] for rule in sarif_run["tool"]["driver"]["rules"]]
    assert "subAgentFormat" in rules
    results = sarif_run["results"]
    kebab = next(r for r in results if "kebab-case" in r["message"]["text"])
    assert kebab["ruleId"] == "subAgentFormat"
    assert rules[kebab["ruleIndex"]] == "subAgentFormat"
    assert kebab["level"] == "error"
    location = kebab["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {
        "uri": ".claude/agents/Bad_Name.md",
        "uriBaseId": "%SRCROOT%",
    }
    assert location["region"] == {"startLine": 2}


def test_standalone_script_is_the_installed_command(tmp_path: Path) -> None:
    script = tmp_path / "agent-config-check.py"
    script.write_text(standalone.script("9.9.9"), encoding="utf-8")
    for case in ("mcp-transports", "sub-agents", "memory-imports", "okf-bundle"):
        config = tmp_path / f"{case}.json"
        expected = json.loads((FIXTURES / case / "expected.json").read_text(encoding="utf-8"))
        config.write_text(json.dumps(expected["config"]), encoding="utf-8")
        target = FIXTURES / case / "project"
        installed = run("--config", str(config), "--format", "json", str(target), cwd=tmp_path)
        copied = subprocess.run(
            [
                sys.executable,
                "-I",
                str(script),
                "--config",
                str(config),
                "--format",
                "json",
                str(target),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        assert (copied.returncode, copied.stdout) == (installed.returncode, installed.stdout)
        assert copied.returncode == 1


def test_generator_refuses_a_module_that_an_adopted_repo_could_not_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = standalone.module_source

    def with_yaml(name: str) -> str:
        source = original(name)
        return source + "\nimport yaml\n" if name == "front_matter" else source

    monkeypatch.setattr(standalone, "module_source", with_yaml)
    with pytest.raises(ValueError, match="front_matter imports yaml"):
        standalone._script("refused-import")

    def twice(name: str) -> str:
        source = original(name)
        return source + "\ndef canonical_heading() -> None: ...\n" if name == "findings" else source

    monkeypatch.setattr(standalone, "module_source", twice)
    with pytest.raises(ValueError, match="both define canonical_heading"):
        standalone._script("duplicate-name")


def test_the_help_lists_every_rule_the_registry_registers(tmp_path: Path) -> None:
    from agent_config_check import registry, usage

    # the help's table of rule names is written out (so --help loads no rule): in step here
    assert tuple(rule.name for rule in registry.RULES) == usage.RULE_NAMES
    listed = run("--help", cwd=tmp_path, command="claude-md-check").stdout
    assert listed.startswith("usage: claude-md-check ")
    assert f"Rules: {', '.join(rule.name for rule in registry.RULES)}." in " ".join(listed.split())


def test_the_standalone_script_answers_help_and_version_like_the_command(tmp_path: Path) -> None:
    script = tmp_path / "agent-config-check.py"
    script.write_text(standalone.script("9.9.9"), encoding="utf-8")
    environment = {**os.environ, "COLUMNS": "100"}

    def answer(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, cwd=tmp_path, env=environment, capture_output=True, text=True, timeout=60
        )

    copied = answer(sys.executable, "-I", str(script), "--help")
    installed = answer(str(BIN / "agent-config-check"), "--help")
    assert (copied.returncode, copied.stdout) == (0, installed.stdout)
    assert answer(sys.executable, "-I", str(script), "--version").stdout == (
        "agent-config-check 9.9.9\n"
    )


def test_a_help_word_that_is_a_path_goes_to_the_checker(tmp_path: Path) -> None:
    refused = run("--", "--help", cwd=tmp_path)

    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == "agent-config-check: error: --help does not exist"
