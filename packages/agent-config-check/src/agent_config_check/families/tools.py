"""The tool names definitions grant or deny (``definitionTools``).

A sub-agent's ``tools`` and ``disallowedTools``, and a skill's or command's ``allowed-tools``,
name Claude Code tools exactly as its tools reference spells them; a name Claude Code does not
have (a typo, a tool it removed such as ``MultiEdit``, another agent's tool such as GitHub
Copilot's ``editFiles``) silently grants nothing.
"""

from __future__ import annotations

from agent_config_check.collection import Definition, collect, front_matter_of
from agent_config_check.family import Found, Options, Rule, RuleFamily
from agent_config_check.front_matter import FrontMatter
from agent_config_check.tree import ProjectTree

CLAUDE_CODE_TOOLS = frozenset(
    {
        "Agent",
        "AskUserQuestion",
        "Bash",
        "CronCreate",
        "CronDelete",
        "CronList",
        "Edit",
        "EnterPlanMode",
        "EnterWorktree",
        "ExitPlanMode",
        "ExitWorktree",
        "Glob",
        "Grep",
        "ListMcpResourcesTool",
        "LSP",
        "Monitor",
        "NotebookEdit",
        "PowerShell",
        "Read",
        "ReadMcpResourceTool",
        "SendMessage",
        "Skill",
        "Task",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskOutput",
        "TaskStop",
        "TaskUpdate",
        "TeamCreate",
        "TeamDelete",
        "TodoWrite",
        "ToolSearch",
        "WebFetch",
        "WebSearch",
        # Anthropic's own plugins grant it (claude-plugins-official's claude-security)
        "Workflow",
        "Write",
    }
)
"""Claude Code's tools (its tools reference), with ``Task``, the older name of ``Agent``."""
REMOVED_TOOLS = {
    "MultiEdit": "Edit",
    "LS": "Glob or Bash",
    "NotebookRead": "Read",
    "BashOutput": "TaskOutput",
    "KillShell": "TaskStop",
    "SlashCommand": "Skill",
}
"""Tools Claude Code no longer has, and what replaced them."""
_TOOL_KEYS = {"agent": ("tools", "disallowedTools"), "skill": ("allowed-tools",)}
_TOOL_KEYS["command"] = _TOOL_KEYS["skill"]


def tool_names(value: str) -> list[str]:
    """The tool names of a ``tools``-like value as the front matter reader folds it: a
    comma-separated string (``Read, Grep``), a flow list (``Read, Bash(git *)``) or a block
    list (``- Read - Grep``); a specifier in parentheses belongs to its tool."""
    names: list[str] = []
    current: list[str] = []
    depth = 0
    for char in value:
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(depth - 1, 0)
        if depth == 0 and (char == "," or char.isspace()):
            names.append("".join(current))
            current = []
        else:
            current.append(char)
    names.append("".join(current))
    cleaned = (name.strip().strip("'\"[]") for name in names)
    return [name for name in cleaned if name and name != "-"]


def definition_tools(tree: ProjectTree, options: Options) -> list[Found]:
    """``definitionTools``: every tool a definition names is one Claude Code has (or an MCP
    tool, ``mcp__<server>__<tool>``, or one of ``allowedTools``)."""
    collection = collect(tree)
    found: list[Found] = []
    allowed = set(options["allowedTools"])
    for definition in (*collection.agents, *collection.commands, *collection.skills):
        front = front_matter_of(tree, definition.path)
        if isinstance(front, FrontMatter):
            found += _unknown_tools(definition, front, allowed)
    return found


def _unknown_tools(definition: Definition, front: FrontMatter, allowed: set[str]) -> list[Found]:
    found: list[Found] = []
    for key in _TOOL_KEYS[definition.kind]:
        value = front.value(key)
        if value is None:
            continue
        # One finding a tool: 'Workflow, Workflow(scan)' names one tool twice.
        for tool in dict.fromkeys(entry.split("(", 1)[0] for entry in tool_names(value)):
            if tool in CLAUDE_CODE_TOOLS or tool in allowed or tool.startswith("mcp__"):
                continue
            if tool in REMOVED_TOOLS:
                problem = (
                    f"names '{tool}' in '{key}', a tool Claude Code removed (use "
                    f"{REMOVED_TOOLS[tool]})"
                )
            else:
                problem = f"names '{tool}' in '{key}', which is not a Claude Code tool"
            found.append(Found(definition.path, front.line_of(key), f"{definition.path} {problem}"))
    return found


def _any_definition(tree: ProjectTree, options: Options) -> bool:
    collection = collect(tree)
    return bool(collection.agents or collection.commands or collection.skills)


TOOL_RULES = RuleFamily(
    "tools",
    (
        Rule(
            "definitionTools",
            "sub-agents, skills and commands name only tools Claude Code has",
            definition_tools,
            {"allowedTools": []},
            _any_definition,
        ),
    ),
)
"""The tools definitions name."""
