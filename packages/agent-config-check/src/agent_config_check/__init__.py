"""agent-config-check: checks a project's AI agent configuration against what Claude Code and
the AGENTS.md convention require.

Standard library only (see the package README): the same modules run as the installed
``agent-config-check`` command and as the one-file script the adoption guards commit.
"""

DISTRIBUTION = "mcp-tools-agent-config-check"
"""The name this package is installed under (its version is looked up by it)."""
