"""Whatever a project holds, the checker answers with violations, never an exception."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from agent_config_check import registry
from agent_config_check.command import run_check
from agent_config_check.family import Found
from agent_config_check.front_matter import FrontMatterError, read_front_matter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FRAGMENTS = st.sampled_from(
    [
        "---",
        "name: x",
        "description: 'a",
        'description: "b"',
        "tools: [Read, Grep",
        "  - Read",
        "- item",
        "\tname: tab",
        "key: value: more",
        "model: *alias",
        "@AGENTS.md",
        "@../../etc/passwd",
        "@~/home.md",
        "```",
        "<!--",
        "-->",
        "# CLAUDE.md",
        "## Project overview",
        '{"mcpServers": {',
        '"a": {"command": 1}',
        "}}",
        "[" * 50,
        "sk-ant-" + "x" * 20,
        "\x00",
        "\ufeff",
        "",
    ]
)
DOCUMENTS = st.lists(FRAGMENTS, max_size=12).map("\n".join)
PATHS = st.sampled_from(
    [
        "CLAUDE.md",
        "AGENTS.md",
        ".mcp.json",
        ".claude/settings.json",
        ".claude/agents/a.md",
        ".claude/commands/c.md",
        ".claude/skills/s/SKILL.md",
        ".claude-plugin/plugin.json",
        "okf/index.md",
        "okf/log.md",
        "okf/sub/concept.md",
        "docs/imported.md",
    ]
)


@given(DOCUMENTS)
@settings(max_examples=300, deadline=None)
def test_front_matter_reader_returns_or_reports_a_line(text: str) -> None:
    def line_of_problem() -> int | None:
        try:
            read_front_matter(text)
        except FrontMatterError as error:
            return error.line
        return None

    line = line_of_problem()
    assert line is None or 1 <= line <= text.count("\n") + 1


@given(st.dictionaries(PATHS, st.one_of(DOCUMENTS, st.binary(max_size=64)), max_size=8))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_any_project_gives_violations_never_an_exception(files: dict[str, str | bytes]) -> None:
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp)
        for relative, content in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        outcome = run_check(root)
    for violation in outcome.violations:
        assert "could not be checked" not in violation.message, violation
        assert violation.rule in registry.RULE_NAMES


def test_a_rule_that_fails_unexpectedly_is_reported_and_the_others_still_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(tree: object, options: object) -> list[Found]:
        raise RuntimeError("boom")

    rules = tuple(
        spec
        if spec.name != "memoryImports"
        else registry.Rule(spec.name, spec.description, broken, spec.defaults, spec.applies)
        for spec in registry.RULES
    )
    monkeypatch.setattr(registry, "RULES", rules)
    (tmp_path / "CLAUDE.md").write_text("no title\n", encoding="utf-8")
    messages = [(v.rule, v.message) for v in run_check(tmp_path, profile="adoption").violations]
    assert ("memoryImports", "could not be checked: RuntimeError: boom") in messages
    assert ("claudeMdFormat", "CLAUDE.md must start with the '# CLAUDE.md' title heading") in (
        messages
    )
