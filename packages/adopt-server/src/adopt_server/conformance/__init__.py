"""The adoption's side of the guidance files: which rule set each build gets, and AGENTS.md as
the one source of truth. Checking and reshaping them is the agent-config-check package's."""

from adopt_server.conformance.agents_md import (
    agents_md_draft,
    agents_md_from_guidance,
    claude_md_importing_agents_md,
    imports_agents_md,
    with_agents_md_import,
)
from adopt_server.conformance.rules import rules_for

__all__ = [
    "agents_md_draft",
    "agents_md_from_guidance",
    "claude_md_importing_agents_md",
    "imports_agents_md",
    "rules_for",
    "with_agents_md_import",
]
