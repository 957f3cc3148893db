"""Rule sets and the CLAUDE.md / AGENTS.md checker messages."""

from __future__ import annotations

import pytest
from adopt_server.conformance import agents_md_draft, rules_for
from adopt_server.guards.builds.maven import JAVA_SECTIONS
from agent_config_check.document_format import check_agents_md, check_claude_md, unwritten_sections
from agent_config_check.rule_sets import AGENTS_MD_SECTIONS

GOOD = "# CLAUDE.md\n\nSee [AGENTS.md](AGENTS.md).\n\n## Testing\n\nRun pytest.\n"


def test_default_rules_are_project_without_sections_for_the_fallback_build() -> None:
    rules = rules_for()
    assert (rules.name, rules.build, rules.sections) == ("project", "github-actions", ())
    assert rules.checks_agents_md


def test_maven_gets_the_six_java_sections_and_other_builds_none() -> None:
    assert rules_for("project", "maven").sections == JAVA_SECTIONS
    for build in ("gradle", "python", "github-actions"):
        assert rules_for("minimal", build).sections == ()


def test_rule_set_name_is_case_insensitive_and_blank_means_project() -> None:
    assert rules_for(" Minimal ").name == "minimal"
    assert rules_for("  ").name == "project"
    assert not rules_for("minimal").checks_agents_md


def test_unknown_rule_set_names_both_choices() -> None:
    with pytest.raises(
        ValueError, match=r"Unknown rule set 'strict'\. Use one of minimal, project"
    ):
        rules_for("strict")


def test_unknown_build_is_refused() -> None:
    with pytest.raises(ValueError, match="Unknown build system 'ant'"):
        rules_for("project", "ant")


@pytest.mark.parametrize("section", ["Build", "##", "##Build", "- ## Build", "## A\n## B", "#1 x"])
def test_a_section_that_is_not_a_heading_is_refused(section: str) -> None:
    with pytest.raises(ValueError, match="is not a Markdown heading"):
        rules_for("project", "maven", [section])


def test_the_title_is_not_a_section() -> None:
    with pytest.raises(ValueError, match="title"):
        rules_for(sections=["# CLAUDE.md"])


def test_given_sections_are_canonicalised_deduplicated_and_blanks_dropped() -> None:
    rules = rules_for("project", "maven", ["##  Testing ##", " ", "## Build", "## Testing"])
    assert rules.sections == ("## Testing", "## Build")


def test_a_lone_string_is_one_section() -> None:
    assert rules_for(sections="## Testing").sections == ("## Testing",)


def test_explicit_empty_sections_override_the_build_defaults() -> None:
    assert rules_for("project", "maven", []).sections == ()


def test_conforming_document_has_no_violations() -> None:
    assert check_claude_md(GOOD, rules_for(sections=["## Testing"])) == []


def test_empty_and_blank_documents() -> None:
    assert check_claude_md("", rules_for()) == ["CLAUDE.md is empty"]
    assert check_claude_md(" \n\t\n", rules_for()) == ["CLAUDE.md is empty"]


def test_every_violation_is_listed_in_order() -> None:
    text = "Intro\n\n## Build\n\n## Testing\n"
    assert check_claude_md(text, rules_for(sections=["## Build", "## Deploy"])) == [
        "CLAUDE.md must start with the '# CLAUDE.md' title heading",
        "CLAUDE.md has an empty section: ## Build",
        "CLAUDE.md is missing required section heading: ## Deploy",
        "CLAUDE.md must reference AGENTS.md as the source of truth",
    ]


@pytest.mark.parametrize(
    ("first", "ok"),
    [
        ("# CLAUDE.md", True),
        ("\n \n# CLAUDE.md", True),
        ("# CLAUDE.md ##", True),
        ("#   CLAUDE.md", True),
        ("\ufeff# CLAUDE.md", True),
        ("# CLAUDE.md-extended", False),
        ("## CLAUDE.md", False),
        ("<!-- c -->", False),
    ],
)
def test_title_must_be_the_first_non_blank_line(first: str, ok: bool) -> None:
    violations = check_claude_md(f"{first}\n\nAGENTS.md\n", rules_for())
    assert (violations == []) is ok


def test_section_only_in_a_fence_comment_or_indented_sample_is_missing() -> None:
    rules = rules_for(sections=["## Testing"])
    for hidden in ("```\n## Testing\n```", "<!--\n## Testing\n-->", "    ## Testing"):
        text = f"# CLAUDE.md\n\nAGENTS.md\n\n{hidden}\n"
        assert check_claude_md(text, rules) == [
            "CLAUDE.md is missing required section heading: ## Testing"
        ]


def test_reference_only_in_code_or_comment_does_not_count() -> None:
    for hidden in ("```\nAGENTS.md\n```", "<!-- AGENTS.md -->", "\n    AGENTS.md"):
        assert check_claude_md(f"# CLAUDE.md\n\n{hidden}\n", rules_for()) == [
            "CLAUDE.md must reference AGENTS.md as the source of truth"
        ]


def test_crlf_document_is_checked_like_lf() -> None:
    assert check_claude_md(GOOD.replace("\n", "\r\n"), rules_for(sections=["## Testing"])) == []


def test_the_drafted_agents_md_has_every_section_still_to_be_written() -> None:
    text = agents_md_draft()
    assert check_agents_md(text) == [], "structurally complete"
    assert [(g.heading, g.problem) for g in unwritten_sections(text, AGENTS_MD_SECTIONS)] == [
        (section, "placeholder") for section in AGENTS_MD_SECTIONS
    ]


def test_unwritten_sections_are_named_with_why() -> None:
    text = (
        "# AGENTS.md\n\n## Project overview\n\nA tool.\n\n## Releasing\n\nTBD\n\n## Module layout\n"
    )
    sections = [
        "## Project overview",
        "## Releasing",
        "## Module layout",
        "## Build, test, and run",
    ]
    assert [(g.heading, g.problem, g.line) for g in unwritten_sections(text, sections)] == [
        ("## Releasing", "placeholder", 7),
        ("## Module layout", "empty", 11),
        ("## Build, test, and run", "missing", 0),
    ]


def test_anchor_style_agents_md_fails_with_named_sections() -> None:
    violations = check_agents_md("# Agent guide\n\nSee CLAUDE.md.\n")
    assert violations[0] == "AGENTS.md must start with the '# AGENTS.md' title heading"
    assert "AGENTS.md is missing required section heading: ## Project overview" in violations
    assert len(violations) == 1 + len(AGENTS_MD_SECTIONS)
