"""The default profile on configurations shaped like real ones (``fixtures/shapes``): a plugin
marketplace with skills and agents, hooks written with ``"$CLAUDE_PROJECT_DIR"``, a symlinked
AGENTS.md, a skills catalogue without CLAUDE.md; each with its exact expected findings, the
same from the installed command and from the committed script. Then what agnix reads as
noise, and ``--fix`` in front of a symbolic link."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from agent_config_check.command import run_check
from agent_config_check.script import script

SHAPES = Path(__file__).parent / "fixtures" / "shapes"
CASES = sorted(p.name for p in SHAPES.iterdir() if (p / "expected.json").is_file())
BIN = Path(sys.executable).parent


def expected(case: str) -> list[str]:
    document = json.loads((SHAPES / case / "expected.json").read_text(encoding="utf-8"))
    violations = document["violations"]
    assert isinstance(violations, list)
    return violations


def fix_under_the_adoption_profile(project: Path) -> subprocess.CompletedProcess[str]:
    """The installed command's ``--fix --profile adoption`` run in ``project``."""
    return subprocess.run(
        [str(BIN / "agent-config-check"), "--fix", "--profile", "adoption"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_every_shape_is_collected() -> None:
    assert CASES == [
        "hooks-project-dir",
        "plugin-marketplace",
        "skills-catalogue",
        "symlinked-agents-md",
    ]


@pytest.mark.parametrize("case", CASES)
def test_exact_findings_of_the_default_profile(case: str) -> None:
    outcome = run_check(SHAPES / case / "project")
    assert [violation.text() for violation in outcome.violations] == expected(case)


@pytest.mark.parametrize("case", CASES)
def test_the_installed_command_and_the_committed_script_agree(case: str, tmp_path: Path) -> None:
    committed = tmp_path / "agent-config-check.py"
    committed.write_text(script(), encoding="utf-8")
    runs = [[str(BIN / "agent-config-check")], ["python3", "-I", str(committed)]]
    answers = [
        subprocess.run(
            command,
            cwd=SHAPES / case / "project",
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        for command in runs
    ]
    for answer in answers:
        assert answer.stdout.splitlines() == expected(case), answer.stderr
        errors = [line for line in expected(case) if ": error [" in line]
        assert answer.returncode == (1 if errors else 0)


def test_what_agnix_reads_as_noise_is_not_a_finding() -> None:
    # @maintainers in prose is no import, `feature/new-skill` in backticks is no file, and a
    # settings.json outside .claude is no Claude settings: the catalogue's only finding is the
    # skill name.
    (finding,) = expected("skills-catalogue")
    assert "[skillFilesExist] name 'Slide_Decks' must be lower-case kebab-case" in finding


def test_a_missing_claude_md_is_no_finding_by_default_but_is_under_the_adoption_profile() -> None:
    project = SHAPES / "skills-catalogue" / "project"
    assert not any("CLAUDE.md" in v.message for v in run_check(project).violations)
    adopted = run_check(project, profile="adoption")
    assert "CLAUDE.md is missing" in [v.message for v in adopted.violations]


def test_fix_never_writes_through_a_symlinked_agents_md(tmp_path: Path) -> None:
    project = tmp_path / "project"
    shutil.copytree(SHAPES / "symlinked-agents-md" / "project", project, symlinks=True)
    result = fix_under_the_adoption_profile(project)
    assert (
        "AGENTS.md: not reshaped: it is a symbolic link, and --fix never writes through one "
        "(edit the file it points to)"
    ) in result.stderr.splitlines()
    assert (project / "AGENTS.md").is_symlink()
    claude_md = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert claude_md.startswith("# CLAUDE.md\n")
    assert claude_md.count("# CLAUDE.md") == 1  # not a second title written through the link
    assert "_Not documented yet" not in claude_md  # no placeholder sections


def test_fix_never_writes_through_a_hard_link_to_a_file_outside(tmp_path: Path) -> None:
    # a hard link passes every path check: the file outside would be reshaped in place
    outside = tmp_path / "notes.md"
    outside.write_text("my own notes\n", encoding="utf-8")
    project = tmp_path / "project"
    project.mkdir()
    (project / "CLAUDE.md").hardlink_to(outside)
    result = fix_under_the_adoption_profile(project)
    assert (
        "CLAUDE.md: not reshaped: it has other hard links, and --fix never writes through one "
        "(edit the file itself)"
    ) in result.stderr.splitlines()
    assert outside.read_text(encoding="utf-8") == "my own notes\n"


def test_nested_memory_files_are_read_and_a_symlink_is_measured_as_its_target(
    tmp_path: Path,
) -> None:
    (tmp_path / "CLAUDE.md").write_text("# App\n" + "- rule\n" * 260, encoding="utf-8")
    (tmp_path / "AGENTS.md").symlink_to("CLAUDE.md")
    nested = tmp_path / "services" / "api"
    nested.mkdir(parents=True)
    (nested / "CLAUDE.md").write_text("# API\n\n@docs/missing.md\n\nSee [the spec](spec.md).\n")
    found = [v.text() for v in run_check(tmp_path).violations]
    assert found == [
        "services/api/CLAUDE.md:5: error [documentLinks] services/api/CLAUDE.md references a "
        "missing file: spec.md",
        "AGENTS.md:201: warn [memorySize] AGENTS.md has 261 lines, over the 200-line budget of a "
        "file loaded into every session; move detail into files it links to or imports",
        "CLAUDE.md:201: warn [memorySize] CLAUDE.md has 261 lines, over the 200-line budget of a "
        "file loaded into every session; move detail into files it links to or imports",
        "services/api/CLAUDE.md:3: error [memoryImports] services/api/CLAUDE.md imports a missing "
        "file: @docs/missing.md (resolved to services/api/docs/missing.md)",
    ]


def test_argument_placeholders_are_one_finding_per_skill(tmp_path: Path) -> None:
    # a skill teaching shell scripts holds dozens of $1: one warning, at the first, not one a line
    skill = tmp_path / ".claude" / "skills" / "shell"
    skill.mkdir(parents=True)
    samples = "".join(f"awk '{{print $1}}' part-{index}.txt\n" for index in range(30))
    (skill / "SKILL.md").write_text(
        f"---\nname: shell\ndescription: Shell recipes.\n---\n\nRun it with $1.\n\n"
        f"```sh\n{samples}echo $2 $ARGUMENTS\n```\n",
        encoding="utf-8",
    )
    assert [v.text() for v in run_check(tmp_path).violations] == [
        ".claude/skills/shell/SKILL.md:9: warn [skillArguments] .claude/skills/shell/SKILL.md has "
        "$1, $2, $ARGUMENTS in code blocks on 31 lines (the first here); Claude Code replaces "
        "them with the skill's arguments when the skill runs (write them another way if the code "
        "needs them literally)"
    ]


def test_a_claude_code_skill_may_leave_out_its_name_or_name_its_command(tmp_path: Path) -> None:
    # Claude Code's skills: 'name' is optional (the folder's stands in) and is the slash
    # command; the Agent Skills specification binds a published skill's name to its folder.
    def skill(folder: str, name: str | None) -> None:
        (tmp_path / folder).mkdir(parents=True)
        head = "" if name is None else f"name: {name}\n"
        (tmp_path / folder / "SKILL.md").write_text(
            f"---\n{head}description: Reviews {folder}.\n---\n\nBody.\n", encoding="utf-8"
        )

    skill(".claude/skills/code-review", "reviewing-code")
    skill(".claude/skills/pre-push", None)
    skill(".claude/skills/bad-name", "Bad Name")
    skill("skills/published", "other-name")
    skill("skills/nameless", None)
    assert [v.text() for v in run_check(tmp_path).violations] == [
        ".claude/skills/bad-name/SKILL.md:2: error [skillFilesExist] name 'Bad Name' must be "
        "lower-case kebab-case in .claude/skills/bad-name/SKILL.md",
        "skills/nameless/SKILL.md:1: error [skillFilesExist] SKILL.md front matter is missing "
        "'name:' in: skills/nameless/SKILL.md",
        "skills/published/SKILL.md:2: error [skillFilesExist] name 'other-name' must match "
        "'published' in skills/published/SKILL.md",
    ]
    adopted = [v.message for v in run_check(tmp_path, profile="adoption").violations]
    assert (
        "name 'reviewing-code' must match 'code-review' in .claude/skills/code-review/SKILL.md"
    ) in adopted


def test_a_sub_agent_may_share_a_skills_name_but_a_command_may_not(tmp_path: Path) -> None:
    # Claude Code: a command and a skill of one name are one /name (the skill wins); a
    # sub-agent is called through the Agent tool, a namespace of its own.
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "release.md").write_text(
        "---\nname: release\ndescription: Runs a release end to end.\n---\n\nBody.\n"
    )
    (tmp_path / ".claude" / "skills" / "release").mkdir(parents=True)
    (tmp_path / ".claude" / "skills" / "release" / "SKILL.md").write_text(
        "---\nname: release\ndescription: How releases are cut here.\n---\n\nBody.\n"
    )
    assert run_check(tmp_path).violations == ()
    (tmp_path / ".claude" / "commands").mkdir()
    (tmp_path / ".claude" / "commands" / "release.md").write_text("Cut a release.\n")
    assert [v.text() for v in run_check(tmp_path).violations] == [
        ".claude/commands/release.md: error [uniqueNames] name 'release' is used by 2 "
        "definitions: .claude/commands/release.md, .claude/skills/release"
    ]
    adopted = [v.text() for v in run_check(tmp_path, profile="adoption").violations]
    assert any("is used by 3 definitions" in line for line in adopted), adopted


@pytest.mark.parametrize(
    ("model", "known"),
    [
        ("fable", True),
        ("best", True),
        ("default", True),
        ("opus[1m]", True),
        ("claude-sonnet-4-5", True),
        ("inherit", True),
        ("gpt-4o", False),
        ("Sonnet 4", False),
    ],
)
def test_sub_agent_models_are_claude_codes_aliases_or_ids(
    tmp_path: Path, model: str, known: bool
) -> None:
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "lead.md").write_text(
        f"---\nname: lead\ndescription: Leads the team.\nmodel: {model}\n---\n\nBody.\n"
    )
    found = [v.message for v in run_check(tmp_path).violations]
    assert (found == []) is known, found


def test_an_argument_hint_of_two_bracket_groups_is_named_for_what_it_is(tmp_path: Path) -> None:
    # Claude Code's YAML parser throws on it and loads the command with no front matter at all
    # (description and allowed-tools dropped): the finding says why and how to fix it.
    (tmp_path / ".claude" / "commands").mkdir(parents=True)
    (tmp_path / ".claude" / "commands" / "cleanup.md").write_text(
        "---\nallowed-tools: Bash(rm:*)\nargument-hint: [--aggressive] | [--maximum]\n"
        "description: Cleans caches\n---\n\nClean up.\n"
    )
    assert [v.text() for v in run_check(tmp_path).violations] == [
        ".claude/commands/cleanup.md:3: error [commandFormat] Command definition has malformed "
        "YAML front matter (front matter value is a '[' or '{' collection followed by more text "
        "(such as 'argument-hint: [a] [b]'), which YAML rejects; quote the value): "
        ".claude/commands/cleanup.md"
    ]


def test_a_private_key_header_is_a_secret_only_with_key_material_after_it(tmp_path: Path) -> None:
    material = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7"
    (tmp_path / "CLAUDE.md").write_text(
        "# Review\n\nFlag secrets:\n- Private keys: `-----BEGIN PRIVATE KEY-----`\n"
    )
    assert run_check(tmp_path).violations == ()
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "deployer.md").write_text(
        "---\nname: deployer\ndescription: Deploys.\n---\n\n"
        f"-----BEGIN RSA PRIVATE KEY-----\n{material}\n-----END RSA PRIVATE KEY-----\n"
    )
    (tmp_path / ".mcp.json").write_text(
        '{"mcpServers": {"s": {"command": "s", "env": {"KEY": "-----BEGIN PRIVATE KEY-----\\n'
        + material
        + '"}}}}'
    )
    found = sorted((v.path, v.rule) for v in run_check(tmp_path).violations)
    assert found == [(".claude/agents/deployer.md", "noSecrets"), (".mcp.json", "noSecrets")]


def test_a_tool_named_twice_with_and_without_a_specifier_is_one_finding(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "agents" / "scanner.md").write_text(
        "---\nname: scanner\ndescription: Scans.\n"
        "tools: Read, Workflow, Workflow(scan), Scan, Scan(all)\n---\n\nBody.\n"
    )
    assert [v.message for v in run_check(tmp_path).violations] == [
        ".claude/agents/scanner.md names 'Scan' in 'tools', which is not a Claude Code tool"
    ]


def test_only_a_script_the_shell_runs_itself_needs_a_shebang_and_the_executable_bit(
    tmp_path: Path,
) -> None:
    hooks = tmp_path / ".claude" / "hooks"
    hooks.mkdir(parents=True)
    for name in ("direct.sh", "handed.py", "unwired.py"):
        (hooks / name).write_text("echo hook\n")  # no '#!', not executable
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "Stop": [
                        {
                            "hooks": [
                                {
                                    "type": "command",
                                    "command": '"$CLAUDE_PROJECT_DIR"/.claude/hooks/direct.sh',
                                },
                                {"type": "command", "command": "python3 .claude/hooks/handed.py"},
                            ]
                        }
                    ]
                }
            }
        )
    )
    assert sorted({v.path for v in run_check(tmp_path).violations}) == [".claude/hooks/direct.sh"]
    adopted = {v.path for v in run_check(tmp_path, profile="adoption").violations}
    assert {".claude/hooks/handed.py", ".claude/hooks/unwired.py"} <= adopted


def test_a_hook_s_type_and_command_must_be_non_empty_strings(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    hooks = [
        {"type": 7},
        {"type": " "},
        {"type": "command", "command": ["echo", "hi"]},
        {"type": "command", "command": "  "},
        {"type": "prompt", "prompt": "Check it."},
    ]
    (tmp_path / ".claude" / "settings.json").write_text(
        json.dumps({"hooks": {"Stop": [{"hooks": hooks}]}})
    )
    assert [v.message for v in run_check(tmp_path).violations] == [
        "hook event 'Stop' has a hook whose 'type' is not a string",
        "hook event 'Stop' has a hook missing 'type'",
        "hook event 'Stop' has a command hook whose 'command' is not a string",
        "hook event 'Stop' has a command hook with an empty 'command'",
    ]
