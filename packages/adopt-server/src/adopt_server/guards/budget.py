"""What the guards hold the guidance files to beyond their sections: a size budget.

AGENTS.md and CLAUDE.md are read into every session of every coding agent (Codex stops at
32 KiB of instruction files in total), and generated guidance that is long or generic lowers
agents' task success: so the guards keep each file under a byte and a line budget, and the
adoption asks ``claude`` to stay within them.
"""

from __future__ import annotations

MAX_LINES = 300
"""The line budget of an always-loaded guidance file."""
MAX_BYTES = 32 * 1024
"""The byte budget of an always-loaded guidance file."""
