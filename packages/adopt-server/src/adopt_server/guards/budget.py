"""What the guards hold the guidance files to beyond their sections: a size budget.

AGENTS.md and CLAUDE.md are read into every session of every coding agent (Codex stops at
32 KiB of instruction files in total), and generated guidance that is long or generic lowers
agents' task success: so the guards keep each file under a byte and a line budget, and the
adoption asks ``claude`` to stay within them.
"""

from __future__ import annotations

DEFAULT_MAX_LINES = 300
"""The line budget of an always-loaded guidance file, unless the adoption names another."""
LINE_BUDGET_RANGE = (30, 2000)
"""The line budgets an adoption accepts: a file with the guide's seven sections, a title and
blank lines between them needs about 30, and more than 2000 is no longer a budget."""
MAX_BYTES = 32 * 1024
"""The byte budget of an always-loaded guidance file."""
