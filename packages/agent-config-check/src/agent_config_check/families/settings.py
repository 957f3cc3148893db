"""``.claude/settings.json`` and its permission entries (``settingsJsonValid``,
``permissionsFormat``)."""

from __future__ import annotations

import re
from typing import Any

from agent_config_check.budget import BudgetSpentError, over_budget
from agent_config_check.family import (
    SETTINGS_JSON,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_file,
    json_object,
    line_of,
)
from agent_config_check.linear_regex import compile_pattern
from agent_config_check.tree import ProjectTree

_PERMISSION_LISTS = ("allow", "deny", "ask")
_PERMISSION_TOOL = re.compile(r"mcp__[A-Za-z0-9_-]+|[A-Za-z][A-Za-z0-9_]*")


def _well_formed_entry(entry: str) -> bool:
    """``Tool`` or ``Tool(specifier)`` (a specifier of one character or more, on one line),
    split by hand: one regex over the whole entry would backtrack on a hostile one."""
    tool, opened, rest = entry.partition("(")
    if _PERMISSION_TOOL.fullmatch(tool) is None:
        return False
    return not opened or (rest.endswith(")") and len(rest) > 1 and "\n" not in rest)


def _permission_entries(permissions: dict[str, Any], key: str) -> list[str]:
    entries = permissions.get(key)
    if not isinstance(entries, list):
        return []
    return list(dict.fromkeys(e for e in entries if isinstance(e, str)))


def _permissions(tree: ProjectTree, path: str, found: list[Found]) -> dict[str, Any] | None:
    settings, problems = json_object(tree, path, "settings.json")
    found += problems
    if settings is None or "permissions" not in settings:
        return None
    if not isinstance(settings["permissions"], dict):
        found.append(
            Found(
                path,
                line_of(tree, path, "permissions"),
                "settings.json 'permissions' must be a JSON object",
            )
        )
        return None
    permissions: dict[str, Any] = settings["permissions"]
    return permissions


def settings_json_valid(tree: ProjectTree, options: Options) -> list[Found]:
    """``settingsJsonValid``: ``.claude/settings.json`` is a JSON object whose ``allow`` list
    holds the required permissions and none of the forbidden ones."""
    path = options["settingsFile"]
    found: list[Found] = []
    settings, problems = json_object(tree, path, "settings.json")
    found += problems
    if settings is None:
        return found
    permissions = settings.get("permissions")
    allow = _permission_entries(permissions, "allow") if isinstance(permissions, dict) else []
    found += [
        Found(path, 0, f"settings.json is missing required permission: {entry}")
        for entry in options["requiredPermissions"]
        if entry not in allow
    ]
    found += [
        Found(
            path,
            line_of(tree, path, entry),
            f"settings.json contains forbidden permission: {entry}",
        )
        for entry in options["forbiddenPermissions"]
        if entry in allow
    ]
    return found


def permissions_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``permissionsFormat``: ``allow``/``deny``/``ask`` are lists of ``Tool`` or
    ``Tool(specifier)`` entries, without duplicates, contradictions, unknown tools (when
    ``allowedTools`` is set) or entries matching a ``forbiddenEntryPatterns`` pattern."""
    path = options["settingsFile"]
    found: list[Found] = []
    permissions = _permissions(tree, path, found)
    if permissions is None:
        return found

    def add(key: str, problem: str, entry: str = "") -> None:
        line = line_of(tree, path, entry) if entry else line_of(tree, path, key)
        found.append(Found(path, line, f"settings.json 'permissions.{key}' {problem}"))

    for key in _PERMISSION_LISTS:
        if key not in permissions:
            continue
        entries = permissions[key]
        if not isinstance(entries, list):
            add(key, "must be an array")
            continue
        seen: set[str] = set()
        for index, entry in enumerate(entries, start=1):
            if not isinstance(entry, str):
                add(key, f"entry {index} must be a string")
                continue
            if not entry.strip():
                add(key, "contains a blank entry")
            elif not _well_formed_entry(entry):
                add(key, f"entry '{entry}' is not of the form Tool or Tool(specifier)", entry)
            elif "(" in entry and not entry[entry.index("(") + 1 : -1].strip():
                add(key, f"entry '{entry}' has a blank specifier", entry)
            if entry in seen:
                add(key, f"lists '{entry}' more than once", entry)
            seen.add(entry)
            tool = entry.split("(", 1)[0]
            allowed_tools = options["allowedTools"]
            if (
                allowed_tools
                and entry.strip()
                and not tool.startswith("mcp__")
                and (tool not in allowed_tools)
            ):
                add(key, f"entry '{entry}' references unknown tool '{tool}'", entry)
    denied = set(_permission_entries(permissions, "deny"))
    found += [
        Found(
            path,
            line_of(tree, path, entry),
            f"settings.json permission '{entry}' appears in both 'allow' and 'deny'",
        )
        for entry in _permission_entries(permissions, "allow")
        if entry in denied
    ]
    for pattern in options["forbiddenEntryPatterns"]:
        # From the repository: linear-time matching only, on the run's budget.
        compiled = compile_pattern(pattern, 0, tree.budget)
        try:
            for entry in _permission_entries(permissions, "allow"):
                if compiled.fullmatch(entry):
                    add("allow", f"entry '{entry}' matches forbidden pattern '{pattern}'", entry)
        except BudgetSpentError as error:
            what = f"forbidden pattern '{pattern}'"
            found.append(Found(path, 0, over_budget(what, f"the allow entries of {path}", error)))
    return found


SETTINGS_RULES = RuleFamily(
    "settings",
    (
        Rule(
            "settingsJsonValid",
            ".claude/settings.json is valid JSON with the required and none of the forbidden "
            "permissions",
            settings_json_valid,
            {"settingsFile": SETTINGS_JSON, "requiredPermissions": [], "forbiddenPermissions": []},
            has_file("settingsFile"),
        ),
        Rule(
            "permissionsFormat",
            ".claude/settings.json permission entries are well formed and consistent",
            permissions_format,
            {"settingsFile": SETTINGS_JSON, "allowedTools": [], "forbiddenEntryPatterns": []},
            has_file("settingsFile"),
        ),
    ),
)
"""``.claude/settings.json`` and its permissions."""
