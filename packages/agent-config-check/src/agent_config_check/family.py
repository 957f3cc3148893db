"""The rule-family interface: what a rule is, what it finds, and what every family shares.

A rule family is one module of :mod:`agent_config_check.families` defining one
:class:`RuleFamily` (its rules, in catalogue order); :mod:`agent_config_check.registry` lists
the families, one line each. A rule takes the project (a :class:`ProjectTree`) and its resolved
options (the anchor's parameter names) and returns :class:`Found` items; it never raises on bad
input: a file that cannot be read, malformed front matter or invalid JSON is itself a finding
with a line.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_config_check.tree import ProjectTree

CLAUDE_MD = "CLAUDE.md"
AGENTS_MD = "AGENTS.md"
README = "README.md"
MCP_JSON = ".mcp.json"
SETTINGS_JSON = ".claude/settings.json"
SKILLS_DIR = ".claude/skills"
AGENTS_DIR = ".claude/agents"
COMMANDS_DIR = ".claude/commands"
HOOKS_DIR = ".claude/hooks"
PLUGIN_JSON = ".claude-plugin/plugin.json"
OKF_DIR = "okf"
SKILL_FILE = "SKILL.md"
DEFINITION_DIRS = [AGENTS_DIR, COMMANDS_DIR, SKILLS_DIR]

Options = dict[str, Any]


@dataclass(frozen=True)
class Found:
    """One finding of one rule: file (project-relative), line (0 = whole file), message."""

    path: str
    line: int
    message: str


RuleFunction = Callable[[ProjectTree, Options], list[Found]]
Applies = Callable[[ProjectTree, Options], bool]


@dataclass(frozen=True)
class Rule:
    """One rule: its name, what it checks, its parameters' defaults, when it applies.

    ``adoption`` overrides ``defaults`` under the adoption profile; a ``policy`` rule runs only
    under that profile (or when the configuration names it); ``severity`` is the rule's own
    default (``warn`` for budgets and recommendations, which do not fail a run).
    """

    name: str
    description: str
    run: RuleFunction
    defaults: Options
    applies: Applies
    adoption: Options = field(default_factory=dict)
    policy: bool = False
    severity: str = "error"


@dataclass(frozen=True)
class RuleFamily:
    """The rules of one family (documents, imports, definitions, ...), in catalogue order."""

    name: str
    rules: tuple[Rule, ...]


def has_file(key: str) -> Applies:
    """Applies when the file named by option ``key`` exists (or leads out of the project,
    which the rule then reports)."""
    return lambda tree, options: tree.is_file(options[key]) or tree.escapes(options[key])


def has_dir(key: str) -> Applies:
    """Applies when the directory named by option ``key`` exists inside the project."""
    return lambda tree, options: tree.is_dir(options[key])


def json_object(
    tree: ProjectTree, path: str, label: str
) -> tuple[dict[str, Any] | None, list[Found]]:
    """The JSON object in ``path``, or ``None`` and the finding that says why there is none."""
    read = tree.read(path)
    if read.text is None:
        return None, [Found(path, 0, read.problem or f"{label} cannot be read")]
    try:
        value = json.loads(read.text)
    except json.JSONDecodeError as error:
        return None, [Found(path, error.lineno, f"{label} is not valid JSON: {error.msg}")]
    except RecursionError:
        return None, [Found(path, 0, f"{label} is not valid JSON: nested too deeply")]
    if not isinstance(value, dict):
        return None, [Found(path, 1, f"{label} is not valid JSON: expected a JSON object")]
    return value, []


def line_of(tree: ProjectTree, path: str, key: str) -> int:
    """The first line that mentions ``"key"`` (JSON keeps no positions; good enough to land a
    reader on the entry)."""
    text = tree.read(path).text or ""
    needle = json.dumps(key)
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 0
