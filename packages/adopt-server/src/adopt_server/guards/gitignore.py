"""Keep personal Claude Code settings out of the repository (the ``localSettingsIgnored``
rule every guard runs): ``.claude/settings.local.json`` is added to an existing
``.gitignore`` that does not cover it yet."""

from __future__ import annotations

from pathlib import Path

from agent_config_check.budget import BudgetSpentError
from agent_config_check.families.gitignore import LOCAL_SETTINGS, Gitignore

from adopt_server.checkout_files import CheckoutFiles

GITIGNORE = ".gitignore"
MARKER = "Added by claude-code-adopt"


def ensure_local_settings_ignored(checkout: Path) -> list[str]:
    """Append the entry to ``.gitignore`` when it exists and lacks it; returns the paths
    changed. A project without a ``.gitignore`` is left alone (the rule does not apply)."""
    files = CheckoutFiles(checkout)
    if not files.is_file(GITIGNORE):
        return []
    text = files.read_text(GITIGNORE, errors="replace")
    try:
        if Gitignore(text).covers(LOCAL_SETTINGS):
            return []
    except BudgetSpentError:
        pass  # globs too heavy to match: the appended line (the last one wins) settles it
    newline = "\r\n" if "\r\n" in text else "\n"
    lead = "" if not text or text.endswith("\n") else newline
    addition = f"{lead}# {MARKER}: personal Claude Code settings{newline}/{LOCAL_SETTINGS}{newline}"
    files.write_text(GITIGNORE, addition, mode="append")
    return [GITIGNORE]
