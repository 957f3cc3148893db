"""Starter Claude Code assets, each written only where the project has nothing yet."""

from __future__ import annotations

import json
from pathlib import Path

from adopt_server.checkout_files import CheckoutFiles

SESSION_START_HOOK = ".claude/hooks/session-start.sh"

_SETTINGS = {
    "permissions": {
        "deny": ["Read(./.env)", "Read(./.env.*)", "Read(./**/*.pem)", "Read(./**/id_rsa)"]
    },
    "hooks": {
        "SessionStart": [
            {
                "hooks": [
                    {
                        "type": "command",
                        # quoted, as Claude Code's hooks guide writes it: a path may hold spaces
                        "command": '"$CLAUDE_PROJECT_DIR"/' + SESSION_START_HOOK,
                    }
                ]
            }
        ]
    },
}

_SESSION_START = """\
#!/bin/sh
# Run by Claude Code when a session starts (wired in .claude/settings.json).
# Put the project's environment setup here: tool versions, dependencies, services.
exit 0
"""

_CLAUDE_WORKFLOW = """\
# Runs Claude Code when an issue or review comment mentions @claude.
# Needs the ANTHROPIC_API_KEY repository secret.
name: Claude Code
on:
  issue_comment:
    types: [created]
  pull_request_review_comment:
    types: [created]
jobs:
  claude:
    if: contains(github.event.comment.body, '@claude')
    runs-on: ubuntu-latest
    # GitHub's default is six hours; a session stuck on a hostile issue stops well before.
    timeout-minutes: 30
    permissions:
      contents: write
      pull-requests: write
      issues: write
      id-token: write
    steps:
      - uses: actions/checkout@v4
      - uses: anthropics/claude-code-action@v1
        with:
          anthropic_api_key: ${{ secrets.ANTHROPIC_API_KEY }}
"""


def asset_texts() -> dict[str, str]:
    """Each starter asset's relative path and content."""
    return {
        ".claude/settings.json": json.dumps(_SETTINGS, indent=2) + "\n",
        SESSION_START_HOOK: _SESSION_START,
        ".mcp.json": json.dumps({"mcpServers": {}}, indent=2) + "\n",
        ".github/workflows/claude.yml": _CLAUDE_WORKFLOW,
    }


def install_assets(checkout: Path) -> list[str]:
    """Write each asset whose path does not exist yet; return the relative paths written.

    An existing file (or directory, or dangling symlink) at an asset's path is left alone.
    """
    files = CheckoutFiles(checkout)
    return [
        relative
        for relative, text in asset_texts().items()
        if files.create_text(relative, text, executable=relative == SESSION_START_HOOK)
    ]
