"""Hooks: how ``.claude/settings.json`` wires them and the scripts they run
(``hookCommandsValid``, ``hooksFormat``)."""

from __future__ import annotations

import os
import re
import shlex
from typing import Any

from agent_config_check.collection import collect
from agent_config_check.family import (
    HOOKS_DIR,
    SETTINGS_JSON,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_dir,
    json_object,
    line_of,
)
from agent_config_check.tree import MAX_READ_BYTES, ProjectTree, join

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
_PLUGIN_ROOT = re.compile(r"\$\{CLAUDE_PLUGIN_ROOT\}|\$CLAUDE_PLUGIN_ROOT(?![A-Za-z0-9_])")
_PATH_VARIABLES = ("CLAUDE_PROJECT_DIR", "CLAUDE_PLUGIN_ROOT")
PLUGIN_HOOKS = "hooks/hooks.json"
"""Where a plugin keeps its hooks, relative to its root."""


def _segments(command: str) -> list[list[str]]:
    """The words of each simple command in ``command``, as the shell splits and unquotes them
    (``"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh`` is one word, the form Claude Code's hooks
    guide recommends); a line whose quotes do not close is split on blanks instead."""
    segments: list[list[str]] = []
    for line in command.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        try:
            tokens = list(lexer)
        except ValueError:
            tokens = [
                part for piece in _SEGMENT_SPLIT.split(line) for part in [*piece.split(), ";"]
            ]
        current: list[str] = []
        for token in tokens:
            if token and all(char in ";&|" for char in token):
                segments.append(current)
                current = []
            else:
                current.append(token)
        segments.append(current)
    return [words for words in segments if words]


def script_candidates(command: str, *, programs_only: bool = False) -> list[str]:
    """The words of a hook command that name a script: each segment's program, and the file
    an interpreter among them is handed (an ordinary argument is not one); with
    ``programs_only``, only the programs (the scripts the shell runs itself)."""
    found: list[str] = []
    for words in _segments(command):
        while words and (_ASSIGNMENT.fullmatch(words[0]) or words[0] in _WRAPPERS):
            words.pop(0)
        if not words:
            continue
        program = words[0]
        found.append(program)
        if program.rpartition("/")[2] in _INTERPRETERS and not programs_only:
            script = next((w for w in words[1:] if not w.startswith("-")), None)
            if script is not None:
                found.append(script)
    return list(dict.fromkeys(found))


def hook_scripts(
    command: str, plugin_root: str | None = None, *, programs_only: bool = False
) -> list[str]:
    """Project-relative paths of the scripts a hook command runs: ``$CLAUDE_PROJECT_DIR/…``
    references, ``${CLAUDE_PLUGIN_ROOT}/…`` ones in a plugin's hooks (``plugin_root``), and
    relative paths with a directory; ``..`` that climbs out is kept so the caller can report
    it."""
    scripts = []
    for word in script_candidates(command, programs_only=programs_only):
        if _PROJECT_DIR.search(word):
            relative = _PROJECT_DIR.sub("", word).lstrip("/")
        elif plugin_root is not None and _PLUGIN_ROOT.search(word):
            relative = join(plugin_root, _PLUGIN_ROOT.sub("", word).lstrip("/"))
        elif "/" in word[1:] and "$" not in word and not word.startswith(("~", "-", "/")):
            relative = word
        else:
            continue
        scripts.append(os.path.normpath(relative).replace(os.sep, "/"))
    return scripts


def unquoted_variables(command: str) -> list[str]:
    """The path variables (``$CLAUDE_PROJECT_DIR``, ``${CLAUDE_PLUGIN_ROOT}``) a hook command
    expands outside double quotes, where the shell splits a path holding a space."""
    found: list[str] = []
    quote = ""
    index = 0
    while index < len(command):
        char = command[index]
        if char == "\\" and quote != "'":
            index += 2
            continue
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "$":
            rest = command[index + 1 :].lstrip("{")
            for name in _PATH_VARIABLES:
                if rest.startswith(name) and name not in found:
                    found.append(name)
        index += 1
    return found


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


def hook_configurations(tree: ProjectTree, options: Options) -> list[tuple[str, str | None]]:
    """``(file, plugin root)`` of every hooks configuration: ``settings.json`` (root ``None``)
    and each plugin's ``hooks/hooks.json``."""
    found: list[tuple[str, str | None]] = []
    if tree.is_file(options["settingsFile"]) or tree.escapes(options["settingsFile"]):
        found.append((options["settingsFile"], None))
    for root in collect(tree).plugins:
        if tree.is_file(join(root, PLUGIN_HOOKS)):
            found.append((join(root, PLUGIN_HOOKS), root))
    return found


def hook_commands_valid(tree: ProjectTree, options: Options) -> list[Found]:
    """``hookCommandsValid``: the hooks of ``settings.json`` and of every plugin's
    ``hooks/hooks.json`` are arrays of groups holding a ``hooks`` array of objects with a
    ``type``; a command hook names a command whose scripts exist (``$CLAUDE_PROJECT_DIR``
    and, in a plugin, ``${CLAUDE_PLUGIN_ROOT}`` resolved)."""
    found: list[Found] = []
    for path, plugin_root in hook_configurations(tree, options):
        label = path.rpartition("/")[2]
        configuration, problems = json_object(tree, path, label)
        found += problems
        if configuration is not None and "hooks" in configuration:
            found += _hook_findings(tree, path, label, configuration["hooks"], options, plugin_root)
    return found


def _stripped_text(
    entry: dict[str, Any], key: str, hook: str, when_empty: str
) -> tuple[str, str | None]:
    """``entry[key]`` stripped (an absent key reads as empty) and the problem with it, if any:
    not a string, or empty (``when_empty`` says how, after ``has {hook}``)."""
    value = entry.get(key, "")
    if not isinstance(value, str):
        return "", f"has {hook} whose '{key}' is not a string"
    value = value.strip()
    return value, None if value else f"has {hook} {when_empty}"


def _hook_findings(
    tree: ProjectTree,
    path: str,
    label: str,
    hooks: object,
    options: Options,
    plugin_root: str | None,
) -> list[Found]:
    if not isinstance(hooks, dict):
        return [Found(path, line_of(tree, path, "hooks"), f"{label} 'hooks' must be a JSON object")]
    found: list[Found] = []

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
                kind, problem = _stripped_text(entry, "type", "a hook", "missing 'type'")
                if problem is not None:
                    add(event, problem)
                    continue
                if kind != "command":
                    continue
                command, problem = _stripped_text(
                    entry, "command", "a command hook", "with an empty 'command'"
                )
                if problem is not None:
                    add(event, problem)
                    continue
                if not options["validateScriptReferences"]:
                    continue
                # Reported at the command's own line, not the event's.
                line = line_of(tree, path, command) or line_of(tree, path, event)
                for script in hook_scripts(command, plugin_root):
                    if script.startswith("..") or tree.escapes(script):
                        problem = f"references a script outside the project: {script}"
                    elif not (tree.real(script) and (tree.root / script).exists()):
                        problem = f"references a missing script: {script}"
                    else:
                        continue
                    found.append(Found(path, line, f"hook event '{event}' {problem}"))
    return found


def hook_quoting(tree: ProjectTree, options: Options) -> list[Found]:
    """``hookQuoting``: a command hook expands ``$CLAUDE_PROJECT_DIR`` or
    ``${CLAUDE_PLUGIN_ROOT}`` inside double quotes, as Claude Code's hooks guide writes it
    (unquoted, a project path with a space splits into several words)."""
    found: list[Found] = []
    for path, _ in hook_configurations(tree, options):
        configuration, _ = json_object(tree, path, path.rpartition("/")[2])
        for command in _hook_commands(configuration or {}):
            for name in unquoted_variables(command):
                found.append(
                    Found(
                        path,
                        line_of(tree, path, command),
                        f"{path} hook command expands ${name} outside double quotes, so a path "
                        f'with a space splits: write "${name}"/...',
                    )
                )
    return found


def hooks_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``hooksFormat``: every ``.claude/hooks`` script a hook runs as its program (every one,
    as in the anchor, under the adoption profile) is a non-empty text file starting with a
    ``#!`` line (no byte-order mark before it), executable, with an allowed extension; scripts
    settings.json hooks reference there exist (and, optionally, every script is referenced)."""
    directory = options["hooksDir"]
    scripts = tree.walk(directory, "")
    found: list[Found] = []
    settings_path = options["settingsFile"]
    settings, problems = (
        json_object(tree, settings_path, "settings.json")
        if tree.is_file(settings_path)
        else (None, [])
    )
    # Scripts the shell runs itself need '#!' and the executable bit; one an interpreter is
    # handed (python3 x.py) or that no hook runs needs neither (onlyDirectlyRun).
    direct = {
        script
        for command in _hook_commands(settings or {})
        for script in hook_scripts(command, programs_only=True)
    }
    for script in scripts:
        if options["onlyDirectlyRun"] and script not in direct:
            continue
        real = tree.real(script)
        if real is None:
            found.append(Found(script, 0, f"hook script leads out of the project: {script}"))
            continue
        if not real.is_file():  # a FIFO would block the read forever
            found.append(Found(script, 0, f"hook script is not a regular file: {script}"))
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
                        line_of(tree, settings_path, command)
                        or line_of(tree, settings_path, script.rpartition("/")[2]),
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


def _any_hooks(tree: ProjectTree, options: Options) -> bool:
    return bool(hook_configurations(tree, options))


HOOK_RULES = RuleFamily(
    "hooks",
    (
        Rule(
            "hookCommandsValid",
            ".claude/settings.json hooks are well formed and the scripts they run exist",
            hook_commands_valid,
            {"settingsFile": SETTINGS_JSON, "allowedEvents": [], "validateScriptReferences": True},
            _any_hooks,
        ),
        Rule(
            "hookQuoting",
            "hook commands quote $CLAUDE_PROJECT_DIR and ${CLAUDE_PLUGIN_ROOT}",
            hook_quoting,
            {"settingsFile": SETTINGS_JSON},
            _any_hooks,
            severity="warn",
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
                "onlyDirectlyRun": True,
            },
            has_dir("hooksDir"),
            adoption={"onlyDirectlyRun": False},
        ),
    ),
)
"""Hooks: how settings.json wires them and the scripts they run."""
