"""The committed checker script every guard runs, and the arguments it runs with.

Every guard (the Maven one through the exec plugin) runs the same file,
:data:`~agent_config_check.script.SCRIPT_PATH`, generated from the agent-config-check
package; the adopted repository needs only Python to run it (no package, no index).
"""

from __future__ import annotations

from pathlib import Path

from agent_config_check.rule_sets import RuleSet
from agent_config_check.script import MARKER, SCRIPT_PATH, script

from adopt_server.checkout_files import CheckoutFiles

SCRIPT = SCRIPT_PATH


def script_text() -> str:
    """The script the adoption commits: generated from the installed checker and carrying its
    version, so a release of adopt-server alone does not rewrite it in adopted repositories."""
    return script()


def checker_args(rules: RuleSet) -> list[str]:
    """The command-line arguments that apply ``rules`` (the same in every guard)."""
    args = ["--rules", rules.name]
    for section in rules.sections:
        args += ["--section", section]
    return args


def script_is_installed(checkout: Path) -> bool:
    """Whether the checker script is there (any version the adoption wrote)."""
    return CheckoutFiles(checkout).is_file(SCRIPT)


def script_is_ours(checkout: Path) -> bool:
    """Whether the checker script is one an adoption wrote (it carries the marker), of this
    version or an earlier one."""
    if not script_is_installed(checkout):
        return False
    head = CheckoutFiles(checkout).read_text(SCRIPT, errors="replace").split("\n", 3)[:3]
    return any(MARKER in line for line in head)


def install_script(checkout: Path) -> bool:
    """Write the script when absent, or refresh one an older adoption wrote (it carries the
    marker); a file the project wrote itself is kept. Returns whether it was written."""
    files = CheckoutFiles(checkout)
    text = script_text()
    if files.create_text(SCRIPT, text):
        return True
    if not script_is_ours(checkout) or files.read_text(SCRIPT, errors="replace") == text:
        return False
    files.write_text(SCRIPT, text)
    return True
