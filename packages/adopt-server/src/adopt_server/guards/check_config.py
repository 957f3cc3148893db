"""The checker configuration an adoption commits: the adoption profile and the guidance
files' line budget.

Every guard runs the committed checker script, which reads ``.claude/agent-config-check.json``;
the adoption writes one holding the adoption profile and its line budget (its
``max_lines``, by default
:data:`~adopt_server.guards.budget.DEFAULT_MAX_LINES`; the byte budget is the checker's
default) when the project has none, and never rewrites one the project has: a project
configuration without a budget is reported instead.
"""

from __future__ import annotations

import json
from pathlib import Path

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.budget import DEFAULT_MAX_LINES

CONFIG = ".claude/agent-config-check.json"


def ensure_budget(checkout: Path, max_lines: int = DEFAULT_MAX_LINES) -> list[str]:
    """Write the configuration when the project has none; returns the paths written."""
    files = CheckoutFiles(checkout)
    if files.exists(CONFIG):
        return []
    # The adoption profile, so the checker run by hand applies the same policy as the guard
    # (which passes --rules); the budget covers only the always-loaded files: a skill or
    # sub-agent definition has budgets of its own.
    budget = {
        "profile": "adoption",
        "rules": {"contextBudget": {"maxLines": max_lines, "directories": []}},
    }
    files.write_text(CONFIG, json.dumps(budget, indent=2) + "\n", mode="create")
    return [CONFIG]


def notes(checkout: Path, max_lines: int = DEFAULT_MAX_LINES) -> list[str]:
    """A warning when the project's own configuration sets no line budget."""
    files = CheckoutFiles(checkout)
    if not files.is_file(CONFIG):
        return []
    try:
        settings = json.loads(files.read_text(CONFIG, errors="replace"))
        budget = settings["rules"]["contextBudget"]["maxLines"]
    except (ValueError, KeyError, TypeError):
        budget = None
    if isinstance(budget, int) and not isinstance(budget, bool) and budget > 0:
        return []
    return [
        f"{CONFIG} is the project's own and sets no line budget for CLAUDE.md and AGENTS.md: "
        f'add "rules": {{"contextBudget": {{"maxLines": {max_lines}}}}} to keep them short.'
    ]
