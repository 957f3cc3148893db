"""Hooks: how ``.claude/settings.json`` wires them and the scripts they run
(``hookCommandsValid``, ``hooksFormat``)."""

from __future__ import annotations

import os
import re
from typing import Any

from agent_config_check.family import (
    HOOKS_DIR,
    SETTINGS_JSON,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_dir,
    has_file,
    json_object,
    line_of,
)
from agent_config_check.tree import MAX_READ_BYTES, ProjectTree

_SEGMENT_SPLIT = re.compile(r"&&|\|\||[;&|\n]")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\S*")
_WRAPPERS = ("exec", "command", "nohup", "time", "env", "builtin")
_INTERPRETERS = (
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "python",
    "python3",
    "node",
    "ruby",
    "perl",
    "pwsh",
    "deno",
    "bun",
)
_PROJECT_DIR = re.compile(r"\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR(?![A-Za-z0-9_])")


def script_candidates(command: str) -> list[str]:
    """The words of a hook command that name a script: each segment's program, and the file
    an interpreter among them is handed (an ordinary argument is not one)."""
    found: list[str] = []
    for segment in _SEGMENT_SPLIT.split(command):
        words = [w.strip("\"'") for w in segment.split()]
        while words and (_ASSIGNMENT.fullmatch(words[0]) or words[0] in _WRAPPERS):
            words.pop(0)
        if not words:
            continue
        program = words[0]
        found.append(program)
        if program.rpartition("/")[2] in _INTERPRETERS:
            script = next((w for w in words[1:] if not w.startswith("-")), None)
            if script is not None:
                found.append(script)
    return list(dict.fromkeys(found))


def hook_scripts(command: str) -> list[str]:
    """Project-relative paths of the scripts a hook command runs: ``$CLAUDE_PROJECT_DIR/…``
    references and relative paths with a directory; ``..`` that climbs out is kept so the
    caller can report it."""
    scripts = []
    for word in script_candidates(command):
        if _PROJECT_DIR.search(word):
            relative = _PROJECT_DIR.sub("", word).lstrip("/")
        elif "/" in word[1:] and "$" not in word and not word.startswith(("~", "-", "/")):
            relative = word
        else:
            continue
        scripts.append(os.path.normpath(relative).replace(os.sep, "/"))
    return scripts


def _hook_commands(settings: dict[str, Any]) -> list[str]:
    hooks = settings.get("hooks")
    if not isinstance(hooks, dict):
        return []
    commands = []
    for groups in hooks.values():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if isinstance(entry, dict) and str(entry.get("type", "")).strip() == "command":
                    commands.append(str(entry.get("command", "")).strip())
    return commands


def hook_commands_valid(tree: ProjectTree, options: Options) -> list[Found]:
    """``hookCommandsValid``: ``settings.json`` hooks are arrays of groups holding a ``hooks``
    array of objects with a ``type``; a command hook names a command whose scripts exist."""
    path = options["settingsFile"]
    settings, found = json_object(tree, path, "settings.json")
    if settings is None or "hooks" not in settings:
        return found
    hooks = settings["hooks"]
    if not isinstance(hooks, dict):
        return [
            Found(path, line_of(tree, path, "hooks"), "settings.json 'hooks' must be a JSON object")
        ]

    def add(event: str, problem: str) -> None:
        found.append(Found(path, line_of(tree, path, event), f"hook event '{event}' {problem}"))

    for event, groups in hooks.items():
        if options["allowedEvents"] and event not in options["allowedEvents"]:
            add(event, "is not an allowed event")
        if not isinstance(groups, list):
            add(event, "must be a JSON array")
            continue
        for group in groups:
            if not isinstance(group, dict):
                add(event, "has an entry that is not a JSON object")
                continue
            if not isinstance(group.get("hooks"), list):
                add(event, "entry is missing a 'hooks' array")
                continue
            for entry in group["hooks"]:
                if not isinstance(entry, dict):
                    add(event, "has a hook that is not a JSON object")
                    continue
                if "type" in entry and not isinstance(entry["type"], str):
                    add(event, "has a hook whose 'type' is not a string")
                    continue
                kind = str(entry.get("type", "")).strip()
                if not kind:
                    add(event, "has a hook missing 'type'")
                    continue
                if kind != "command":
                    continue
                if "command" in entry and not isinstance(entry["command"], str):
                    add(event, "has a command hook whose 'command' is not a string")
                    continue
                command = str(entry.get("command", "")).strip()
                if not command:
                    add(event, "has a command hook with an empty 'command'")
                    continue
                if not options["validateScriptReferences"]:
                    continue
                for script in hook_scripts(command):
                    if script.startswith("..") or tree.escapes(script):
                        add(event, f"references a script outside the project: {script}")
                    elif not (tree.real(script) and (tree.root / script).exists()):
                        add(event, f"references a missing script: {script}")
    return found


def hooks_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``hooksFormat``: every ``.claude/hooks`` script is a non-empty text file starting with a
    ``#!`` line (no byte-order mark before it), executable, with an allowed extension; scripts
    settings.json hooks reference there exist (and, optionally, every script is referenced)."""
    directory = options["hooksDir"]
    scripts = tree.walk(directory, "")
    found: list[Found] = []
    for script in scripts:
        real = tree.real(script)
        if real is None:
            found.append(Found(script, 0, f"hook script leads out of the project: {script}"))
            continue
        try:
            with real.open("rb") as handle:
                head = handle.read(MAX_READ_BYTES + 1)
        except OSError as error:
            found.append(
                Found(script, 0, f"hook script cannot be read ({error.strerror}): {script}")
            )
            continue
        if b"\x00" in head:
            found.append(Found(script, 0, f"hook script cannot be read as a text script: {script}"))
            continue
        bom = head.startswith(b"\xef\xbb\xbf")
        body = head[3:] if bom else head
        if not body.strip():
            found.append(Found(script, 0, f"hook script is empty: {script}"))
            continue
        if options["requireShebang"]:
            if not body.startswith(b"#!"):
                found.append(
                    Found(script, 1, f"hook script must start with a '#!' shebang line: {script}")
                )
            elif bom:
                found.append(
                    Found(
                        script,
                        1,
                        "hook script has a byte-order mark before its '#!' "
                        f"shebang line, so it cannot be run: {script}",
                    )
                )
        if options["requireExecutable"] and not os.access(real, os.X_OK):
            found.append(Found(script, 0, f"hook script is not executable: {script}"))
        name = script.rpartition("/")[2]
        extension = name.rpartition(".")[2] if "." in name else ""
        if options["allowedExtensions"] and extension not in options["allowedExtensions"]:
            found.append(Found(script, 0, f"hook script has a disallowed extension: {script}"))
    settings_path = options["settingsFile"]
    if not tree.is_file(settings_path):
        return found
    settings, problems = json_object(tree, settings_path, "settings.json")
    if settings is None:
        return found + problems
    referenced: set[str] = set()
    prefix = directory.rstrip("/") + "/"
    for command in _hook_commands(settings):
        for script in hook_scripts(command):
            if not script.startswith(prefix):
                continue
            referenced.add(script)
            if not (tree.real(script) and (tree.root / script).exists()):
                found.append(
                    Found(
                        settings_path,
                        line_of(tree, settings_path, script.rpartition("/")[2]),
                        f"settings.json references a missing hook script: {script}",
                    )
                )
    if options["reportUnreferencedScripts"]:
        found += [
            Found(script, 0, f"hook script is not referenced by any settings.json hook: {script}")
            for script in scripts
            if script not in referenced
        ]
    return found


HOOK_RULES = RuleFamily(
    "hooks",
    (
        Rule(
            "hookCommandsValid",
            ".claude/settings.json hooks are well formed and the scripts they run exist",
            hook_commands_valid,
            {"settingsFile": SETTINGS_JSON, "allowedEvents": [], "validateScriptReferences": True},
            has_file("settingsFile"),
        ),
        Rule(
            "hooksFormat",
            ".claude/hooks scripts have a shebang, are executable, and the wired ones exist",
            hooks_format,
            {
                "hooksDir": HOOKS_DIR,
                "settingsFile": SETTINGS_JSON,
                "allowedExtensions": [],
                "requireShebang": True,
                "requireExecutable": True,
                "reportUnreferencedScripts": False,
            },
            has_dir("hooksDir"),
        ),
    ),
)
"""Hooks: how settings.json wires them and the scripts they run."""
