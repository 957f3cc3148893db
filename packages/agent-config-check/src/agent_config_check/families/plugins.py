"""Plugins and marketplaces as Claude Code installs them (``pluginComponents``,
``marketplaceFormat``).

Grounded in Claude Code's plugins reference: a manifest's component path fields (``commands``,
``agents``, ``skills``, ``hooks``, ``mcpServers``, ``outputStyles``, ``lspServers``) are paths
relative to the plugin root starting with ``./``; ``agents`` takes Markdown files, never a
directory (``claude plugin install`` then fails with "agents: Invalid input"); and in its
plugin-marketplaces reference: ``.claude-plugin/marketplace.json`` names the marketplace and
its owner and lists plugins, each with a ``name`` and a ``source``.
"""

from __future__ import annotations

import re
from typing import Any

from agent_config_check.collection import collect
from agent_config_check.family import (
    PLUGIN_JSON,
    Found,
    Options,
    Rule,
    RuleFamily,
    json_object,
    line_of,
)
from agent_config_check.tree import ProjectTree, join

_PATH_FIELDS = ("commands", "agents", "skills", "hooks", "mcpServers", "outputStyles", "lspServers")
_INLINE_FIELDS = ("hooks", "mcpServers", "lspServers")  # may hold the configuration itself
_PLUGIN_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def plugin_components(tree: ProjectTree, options: Options) -> list[Found]:
    """``pluginComponents``: every component path of every plugin manifest is a string (or
    a list of strings) starting with ``./`` that exists inside the plugin; ``agents`` names
    Markdown files, not a directory."""
    found: list[Found] = []
    for root in collect(tree).plugins:
        path = join(root, PLUGIN_JSON)
        manifest, _ = json_object(tree, path, "plugin.json")
        if manifest is not None:
            found += _components(tree, root, path, manifest)
    return found


def _components(tree: ProjectTree, root: str, path: str, manifest: dict[str, Any]) -> list[Found]:
    found: list[Found] = []
    for field in _PATH_FIELDS:
        if field not in manifest:
            continue
        value = manifest[field]
        line = line_of(tree, path, field)
        if field in _INLINE_FIELDS and isinstance(value, dict):
            continue
        entries = value if isinstance(value, list) else [value]
        if not entries or not all(isinstance(entry, str) for entry in entries):
            found.append(
                Found(path, line, f"plugin.json '{field}' must be a path or a list of paths")
            )
            continue
        for entry in entries:
            problem = _component_problem(tree, root, field, entry)
            if problem:
                found.append(Found(path, line_of(tree, path, entry) or line, problem))
    return found


def _component_problem(tree: ProjectTree, root: str, field: str, entry: str) -> str:
    if not entry.startswith("./"):
        return f"plugin.json '{field}' path '{entry}' must be relative and start with './'"
    target = tree.resolve(root, entry)
    if target is None:
        return f"plugin.json '{field}' path '{entry}' leads out of the plugin"
    if not (tree.root / target).exists():
        return f"plugin.json '{field}' path '{entry}' does not exist"
    if field == "agents" and tree.is_dir(target):
        return (
            f"plugin.json 'agents' path '{entry}' is a directory; Claude Code takes only "
            "agent files there (list each .md file, or drop the field: agents/ is read "
            "by default), and refuses to install the plugin"
        )
    if field == "agents" and not entry.endswith(".md"):
        return f"plugin.json 'agents' path '{entry}' is not a Markdown agent file"
    return ""


def marketplace_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``marketplaceFormat``: every ``.claude-plugin/marketplace.json`` is a JSON object with
    a kebab-case ``name``, an ``owner`` with a ``name``, and a ``plugins`` list whose entries
    each have a unique kebab-case ``name`` and a ``source``: a ``./`` path to a folder inside
    the project, or an object naming where the plugin comes from."""
    found: list[Found] = []
    for path in collect(tree).marketplaces:
        catalogue, problems = json_object(tree, path, "marketplace.json")
        found += problems
        if catalogue is not None:
            found += _marketplace(tree, path, catalogue)
    return found


def _marketplace(tree: ProjectTree, path: str, catalogue: dict[str, Any]) -> list[Found]:
    found: list[Found] = []

    def add(key: str, problem: str) -> None:
        found.append(Found(path, line_of(tree, path, key) or 1, f"marketplace.json {problem}"))

    name = catalogue.get("name")
    if not isinstance(name, str) or not _PLUGIN_NAME.fullmatch(name):
        add("name", f"'name' must be a kebab-case string, not {name!r}")
    owner = catalogue.get("owner")
    if not isinstance(owner, dict) or not isinstance(owner.get("name"), str):
        add("owner", "'owner' must be an object with a 'name'")
    plugins = catalogue.get("plugins")
    if not isinstance(plugins, list):
        add("plugins", "'plugins' must be a list of plugin entries")
        return found
    root = path.rpartition("/")[0].rpartition("/")[0]
    metadata = catalogue.get("metadata")
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) else None
    base = tree.resolve(root, plugin_root) if isinstance(plugin_root, str) else root
    seen: set[str] = set()
    for index, entry in enumerate(plugins, start=1):
        if not isinstance(entry, dict):
            add("plugins", f"plugin entry {index} must be an object")
            continue
        plugin = entry.get("name")
        if not isinstance(plugin, str) or not _PLUGIN_NAME.fullmatch(plugin):
            add("plugins", f"plugin entry {index} needs a kebab-case 'name', not {plugin!r}")
            continue
        if plugin in seen:
            add(plugin, f"lists the plugin '{plugin}' more than once")
        seen.add(plugin)
        problem = _source_problem(tree, base, entry.get("source"))
        if problem:
            add(plugin, f"plugin '{plugin}' {problem}")
    return found


def _source_problem(tree: ProjectTree, base: str | None, source: object) -> str:
    if isinstance(source, str):
        if source.startswith(("https://", "http://", "git@")):
            return ""
        relative = source if source.startswith("./") else "./" + source
        target = tree.resolve(base, relative) if base is not None else None
        if target is None:
            return f"has a 'source' that leads out of the project: {source}"
        if not tree.is_dir(target):
            return f"has a 'source' folder that does not exist: {source}"
        return ""
    if isinstance(source, dict):
        kind = source.get("source")
        if not isinstance(kind, str) or not kind.strip():
            return "has a 'source' object without its kind ('source': github, url, ...)"
        return ""
    return "needs a 'source': a ./path or an object"


def _any_plugin(tree: ProjectTree, options: Options) -> bool:
    return bool(collect(tree).plugins)


def _has_marketplaces(tree: ProjectTree, options: Options) -> bool:
    return bool(collect(tree).marketplaces)


PLUGIN_RULES = RuleFamily(
    "plugins",
    (
        Rule(
            "pluginComponents",
            "plugin manifests' component paths start with ./ and exist; agents are files",
            plugin_components,
            {},
            _any_plugin,
        ),
        Rule(
            "marketplaceFormat",
            "marketplace.json names itself and its owner and lists installable plugins",
            marketplace_format,
            {},
            _has_marketplaces,
        ),
    ),
)
"""Plugins and marketplaces."""
