"""The AGENTS.md an adoption writes when the repository has none."""

from __future__ import annotations

from adopt_server.conformance.rules import AGENTS_MD_SECTIONS, AGENTS_MD_TITLE

# Each section points at CLAUDE.md rather than staying empty, so the file passes the
# agentsMdFormat part of the default ``project`` rules (the anchor's "# Agent guide" did not).
_BODIES = {
    "## Project overview": "What this repository is for is described in CLAUDE.md.",
    "## Module layout": "CLAUDE.md lists the modules and where the code lives.",
    "## Environment & toolchain": "CLAUDE.md names the language versions and tools to install.",
    "## Build, test, and run": "The build, test and run commands are listed in CLAUDE.md.",
    "## Code style & conventions": "CLAUDE.md records the conventions the code follows.",
    "## Releasing": "How releases are cut is up to the maintainers; see CLAUDE.md.",
    "## Pull requests & commits": "Keep pull requests focused; CLAUDE.md holds any extra rules.",
}


def agents_md_text() -> str:
    """The companion AGENTS.md; it passes :func:`check_agents_md`."""
    parts = [
        AGENTS_MD_TITLE,
        "",
        "[CLAUDE.md](CLAUDE.md) holds this repository's agent instructions and is the source of "
        "truth. This file exists for tools that follow the AGENTS.md convention.",
    ]
    for section in AGENTS_MD_SECTIONS:
        parts += ["", section, "", _BODIES[section]]
    return "\n".join(parts) + "\n"
