"""AGENTS.md as the one source of truth: guidance moved there, CLAUDE.md importing it."""

from __future__ import annotations

import pytest
from adopt_server.conformance import (
    agents_md_from_guidance,
    claude_md_importing_agents_md,
    imports_agents_md,
    with_agents_md_import,
)
from agent_config_check.document_format import check_agents_md
from agent_config_check.rule_sets import AGENTS_MD_SECTIONS

GUIDE = "".join(f"\n{s}\n\nText about {s[3:].lower()}.\n" for s in AGENTS_MD_SECTIONS)


def test_generated_guidance_becomes_a_conforming_agents_md() -> None:
    agents = agents_md_from_guidance("# CLAUDE.md\n\nThis file guides Claude Code.\n" + GUIDE)
    assert agents.startswith("# AGENTS.md\n\nThis file guides Claude Code.\n")
    assert check_agents_md(agents) == []


def test_near_miss_headings_are_renamed_and_missing_sections_get_the_stub() -> None:
    agents = agents_md_from_guidance("# Notes\n\n## Project Overview Details\n\nA tool.\n")
    assert "## Project overview\n\nA tool." in agents
    assert "## Releasing\n\n_Not documented yet" in agents


def test_the_import_stub_imports_agents_md() -> None:
    stub = claude_md_importing_agents_md()
    assert stub.startswith("# CLAUDE.md\n")
    assert imports_agents_md(stub)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("# CLAUDE.md\n\nOurs.\n", "# CLAUDE.md\n\n@AGENTS.md\n\nOurs.\n"),
        ("# CLAUDE.md\nOurs.\n", "# CLAUDE.md\n\n@AGENTS.md\n\nOurs.\n"),
        ("Ours.\n", "@AGENTS.md\n\nOurs.\n"),
        (
            "\ufeff# CLAUDE.md\r\n\r\nOurs.\r\n",
            "\ufeff# CLAUDE.md\r\n\r\n@AGENTS.md\r\n\r\nOurs.\r\n",
        ),
        (
            "# CLAUDE.md\n\n```\n@AGENTS.md\n```\n",
            "# CLAUDE.md\n\n@AGENTS.md\n\n```\n@AGENTS.md\n```\n",
        ),
        ("# CLAUDE.md\n\nSee @AGENTS.md first.\n", "# CLAUDE.md\n\nSee @AGENTS.md first.\n"),
    ],
)
def test_claude_md_gains_the_import_only_where_it_lacks_one(before: str, after: str) -> None:
    assert with_agents_md_import(before) == after
    assert with_agents_md_import(after) == after
