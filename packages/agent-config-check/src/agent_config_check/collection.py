"""Where a project keeps its agent configuration, found by one walk of the tree per run.

Claude Code reads definitions from more places than ``.claude/``: plugins carry their own
``agents/``, ``commands/`` and ``skills/`` beside ``.claude-plugin/plugin.json``, a marketplace
lists plugins in ``.claude-plugin/marketplace.json``, nested directories have their own
``CLAUDE.md``, and repositories that publish definitions keep collections of them (a
``skills/`` tree of ``SKILL.md`` files, an ``agents/`` or ``commands/`` folder of Markdown
definitions). The walk skips dependency, build and VCS folders and never follows a symbolic
link to a directory; it stops after :data:`MAX_WALKED` entries and says so.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from agent_config_check.front_matter import FrontMatter, FrontMatterError, read_front_matter
from agent_config_check.tree import ProjectTree, join

SKIPPED_DIRECTORIES = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "bower_components",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".gradle",
        ".idea",
        ".next",
        ".terraform",
        "target",
        "dist",
        "build",
        "vendor",
    }
)
"""Folders whose contents are dependencies, builds or version control, never configuration."""
MAX_WALKED = 200_000
"""The most directory entries one run looks at."""
MEMORY_FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md")
# Other agents' definition formats that live in agents/ folders too (GitHub Copilot's).
_FOREIGN_SUFFIXES = (".agent.md", ".prompt.md", ".chatmode.md", ".instructions.md")
_COLLECTION_DEPTH = 2  # catalogues file definitions by category below their agents/ folder
_DEFINITION_KEYS = {
    "agent": ("name", "description"),
    "command": ("description", "allowed-tools", "argument-hint"),
}


@dataclass(frozen=True)
class Definition:
    """One sub-agent, slash command or skill definition.

    ``scope`` is the folder holding the ``agents``/``commands``/``skills`` folder it sits in
    (a ``.claude`` folder, a plugin root, a collection): names are unique within a scope.
    ``name`` is the name its location gives it (file name, or the skill's folder).
    """

    path: str
    kind: str
    scope: str
    name: str


@dataclass(frozen=True)
class Collection:
    """The project's agent configuration files, by what they are (paths relative, sorted)."""

    memory: tuple[str, ...]
    agents: tuple[Definition, ...]
    commands: tuple[Definition, ...]
    skills: tuple[Definition, ...]
    skill_folders_without_skill: tuple[str, ...]
    plugins: tuple[str, ...]
    marketplaces: tuple[str, ...]
    truncated: bool


def collect(tree: ProjectTree) -> Collection:
    """The :class:`Collection` of ``tree`` (walked once per run, then remembered)."""
    key = ("collection", "")
    if key not in tree.derived:
        tree.derived[key] = _collect(tree)
    found = tree.derived[key]
    assert isinstance(found, Collection)
    return found


def front_matter_of(tree: ProjectTree, path: str) -> FrontMatter | FrontMatterError | None:
    """The front matter of ``path`` (read and parsed once per run, shared by every rule);
    ``None`` when the file cannot be read or opens no ``---`` block."""
    key = ("front-matter", path)
    if key not in tree.derived:
        text = tree.read(path).text
        try:
            tree.derived[key] = None if text is None else read_front_matter(text)
        except FrontMatterError as error:
            tree.derived[key] = error
    found = tree.derived[key]
    assert found is None or isinstance(found, FrontMatter | FrontMatterError)
    return found


def _collect(tree: ProjectTree) -> Collection:
    memory: list[str] = []
    markdown_by_folder: dict[str, list[str]] = {}
    skill_files: list[str] = []
    plugins: list[str] = []
    marketplaces: list[str] = []
    folders: list[str] = []
    walked = 0
    truncated = False
    for current, directories, names in os.walk(tree.root, followlinks=False):
        directories[:] = sorted(d for d in directories if d not in SKIPPED_DIRECTORIES)
        base = os.path.relpath(current, tree.root).replace(os.sep, "/")
        base = "" if base == "." else base
        walked += len(directories) + len(names)
        if walked > MAX_WALKED:
            truncated = True
            break
        folders.append(base)
        for name in sorted(names):
            path = join(base, name)
            if name in MEMORY_FILES:
                memory.append(path)
            elif name == "SKILL.md":
                skill_files.append(path)
            elif base.endswith(".claude-plugin") and name == "plugin.json":
                plugins.append(base.rpartition("/")[0])
            elif base.endswith(".claude-plugin") and name == "marketplace.json":
                marketplaces.append(path)
            if name.endswith(".md"):
                markdown_by_folder.setdefault(base, []).append(path)
            if name.endswith(".md") and (base + "/").startswith(".claude/rules/"):
                memory.append(path)
    plugin_roots = set(plugins)
    agents = _collected_definitions(tree, markdown_by_folder, "agents", "agent", plugin_roots)
    commands = _collected_definitions(tree, markdown_by_folder, "commands", "command", plugin_roots)
    for root in sorted(plugin_roots):
        agents += _manifest_files(tree, root, "agents", "agent", agents)
        commands += _manifest_files(tree, root, "commands", "command", commands)
    skills = [
        Definition(path, "skill", _scope(path.rpartition("/")[0]), _leaf(path.rpartition("/")[0]))
        for path in skill_files
    ]
    with_skill = {path.rpartition("/")[0] for path in skill_files}
    skill_roots = [".claude/skills"] + [join(root, "skills") for root in sorted(plugin_roots)]
    lacking = [
        folder
        for root in skill_roots
        for folder in tree.subdirectories(root)
        if folder not in with_skill and not tree.is_file(join(folder, "SKILL.md"))
    ]
    return Collection(
        tuple(memory),
        tuple(agents),
        tuple(commands),
        tuple(skills),
        tuple(lacking),
        tuple(sorted(plugin_roots)),
        tuple(marketplaces),
        truncated,
    )


def _leaf(path: str) -> str:
    return path.rpartition("/")[2]


def _scope(folder: str) -> str:
    """The scope of a definition in ``folder/<file>``: the folder above its kind folder."""
    parent = folder.rpartition("/")[0]
    return parent.rpartition("/")[0] if parent.endswith(("/skills", "skills")) else parent


def _collected_definitions(
    tree: ProjectTree,
    markdown_by_folder: dict[str, list[str]],
    folder_name: str,
    kind: str,
    plugin_roots: set[str],
) -> list[Definition]:
    """Definitions of ``kind``: every Markdown file under ``.claude/<folder_name>/`` and in a
    plugin's ``<folder_name>/``; elsewhere, Markdown files in (or up to two folders below) a
    ``<folder_name>`` folder whose front matter declares what a definition declares (a README
    or a docs page does not): the collections that catalogues publish, by category."""
    claude = f".claude/{folder_name}"
    found: list[Definition] = []
    for folder, paths in markdown_by_folder.items():
        in_claude = f"/{claude}/" in f"/{folder}/"
        parts = folder.split("/")
        positions = [i for i, part in enumerate(parts) if part == folder_name]
        if not in_claude and not (
            positions and len(parts) - 1 - positions[-1] <= _COLLECTION_DEPTH
        ):
            continue
        if in_claude:
            scope = folder[: folder.index(claude)] + ".claude"
            declared = True
        else:
            scope = "/".join(parts[: positions[-1]])
            declared = scope in plugin_roots and positions[-1] == len(parts) - 1
        for path in paths:
            name = _leaf(path)
            if name.endswith(_FOREIGN_SUFFIXES) or name in MEMORY_FILES:
                continue
            if not declared and not _declares(tree, path, _DEFINITION_KEYS[kind]):
                continue
            found.append(Definition(path, kind, scope, name.removesuffix(".md")))
    return sorted(found, key=lambda definition: definition.path)


def _manifest_files(
    tree: ProjectTree, root: str, field: str, kind: str, known: list[Definition]
) -> list[Definition]:
    """The Markdown files a plugin manifest's ``field`` names (a plugin may keep its
    definitions anywhere and list them), beyond those already found."""
    manifest = tree.read(join(root, ".claude-plugin/plugin.json")).text
    try:
        value = json.loads(manifest) if manifest else None
    except (ValueError, RecursionError):
        return []
    entries = value.get(field) if isinstance(value, dict) else None
    paths = entries if isinstance(entries, list) else [entries]
    seen = {definition.path for definition in known}
    found: list[Definition] = []
    for entry in paths:
        if not isinstance(entry, str) or not entry.endswith(".md") or not entry.startswith("./"):
            continue
        path = os.path.normpath(join(root, entry[2:])).replace(os.sep, "/")
        if path.startswith("..") or path in seen or not tree.is_file(path):
            continue
        seen.add(path)
        found.append(Definition(path, kind, root, _leaf(path).removesuffix(".md")))
    return found


def _declares(tree: ProjectTree, path: str, keys: tuple[str, ...]) -> bool:
    front = front_matter_of(tree, path)
    if isinstance(front, FrontMatterError):
        return True  # a broken definition is still one: its rule reports it
    return front is not None and any(front.has_key(key) for key in keys)
