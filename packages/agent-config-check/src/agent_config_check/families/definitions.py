"""Sub-agents, slash commands, skills and the plugin manifest (``skillFilesExist``,
``subAgentFormat``, ``commandFormat``, ``pluginFormat``, ``uniqueNames``,
``uniqueDescriptions``)."""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence

from agent_config_check.collection import Definition, collect, front_matter_of
from agent_config_check.family import (
    AGENTS_DIR,
    COMMANDS_DIR,
    PLUGIN_JSON,
    SKILL_FILE,
    SKILLS_DIR,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_file,
    json_object,
)
from agent_config_check.front_matter import FrontMatter, FrontMatterError
from agent_config_check.tree import ProjectTree, join

_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME_LENGTH = 64


def name_findings(name: str, expected: str, where: str, line: int) -> list[Found]:
    """The naming convention: non-empty, at most 64 characters, kebab-case, as expected."""
    if not name.strip():
        return [Found(where, line, f"name must not be empty in {where}")]
    found = []
    if len(name) > MAX_NAME_LENGTH:
        found.append(
            Found(where, line, f"name '{name}' exceeds {MAX_NAME_LENGTH} characters in {where}")
        )
    if not _KEBAB.fullmatch(name):
        found.append(Found(where, line, f"name '{name}' must be lower-case kebab-case in {where}"))
    if name != expected:
        found.append(Found(where, line, f"name '{name}' must match '{expected}' in {where}"))
    return found


def _definition_text(tree: ProjectTree, path: str, label: str) -> tuple[str | None, list[Found]]:
    read = tree.read(path)
    if read.text is None:
        return None, [Found(path, 0, f"{label} cannot be read as text: {read.problem}")]
    if not read.text.strip():
        return None, [Found(path, 0, f"{label} is empty: {path}")]
    return read.text, []


def _front_matter(
    tree: ProjectTree, text: str, path: str, label: str, required: bool
) -> tuple[FrontMatter | None, list[Found]]:
    front = front_matter_of(tree, path)
    if isinstance(front, FrontMatterError):
        error = front
        return None, [
            Found(path, error.line, f"{label} has malformed YAML front matter ({error}): {path}")
        ]
    if front is None and required:
        return None, [
            Found(
                path,
                1,
                f"{label} must start with a YAML front matter block delimited by '---' that a "
                f"YAML loader can read: {path}",
            )
        ]
    return front, []


def _front_matter_checks(
    front: FrontMatter,
    path: str,
    label: str,
    options: Options,
    *,
    expected_name: str | None,
    max_description: int,
) -> list[Found]:
    found = [
        Found(path, 1, f"{label} front matter is missing '{key}:' in: {path}")
        for key in options.get("requiredKeys", [])
        if not front.has_key(key)
    ]
    found += [
        Found(
            path,
            front.line_of(key),
            f"{label} front matter declares '{key}:' more than once in: {path}",
        )
        for key in front.duplicate_keys()
    ]
    allowed = options.get("allowedFrontMatterKeys") or []
    if allowed:
        found += [
            Found(
                path,
                front.line_of(key),
                f"{label} front matter has unknown key '{key}:' in: {path}",
            )
            for key in dict.fromkeys(front.keys())
            if key not in allowed
        ]
    name = front.value("name")
    if expected_name is not None and name is not None:
        found += name_findings(name, expected_name, path, front.line_of("name"))
    description = front.value("description")
    if description is not None:
        line = front.line_of("description")
        if not description.strip():
            found.append(Found(path, line, f"{label} description must not be empty in: {path}"))
        elif max_description > 0 and len(description) > max_description:
            found.append(
                Found(
                    path,
                    line,
                    f"{label} description exceeds {max_description} characters in: {path}",
                )
            )
    allowed_models = options.get("allowedModels") or []
    model = front.value("model")
    if allowed_models and model is not None and model not in allowed_models:
        found.append(
            Found(
                path,
                front.line_of("model"),
                f"{label} declares unsupported model '{model}' in: {path}",
            )
        )
    elif not allowed_models and model is not None and not _known_model(model):
        found.append(
            Found(
                path,
                front.line_of("model"),
                f"{label} declares model '{model}', which Claude Code does not know (use "
                f"{', '.join(MODEL_ALIASES)} or a full claude-* model ID) in: {path}",
            )
        )
    return found


MODEL_ALIASES = ("inherit", "default", "best", "sonnet", "opus", "haiku", "fable", "opusplan")
"""The model aliases a Claude Code definition's ``model:`` accepts (model configuration;
``inherit`` from sub-agents), beside full model IDs; a ``[1m]`` suffix asks for the long
context window."""


def _known_model(model: str) -> bool:
    base = model.strip().removesuffix("[1m]")
    return base in MODEL_ALIASES or (base.startswith("claude-") and " " not in base)


def skill_files_exist(tree: ProjectTree, options: Options) -> list[Found]:
    """``skillFilesExist``: every skill folder of ``.claude/skills`` and of a plugin has a
    SKILL.md, and every SKILL.md in the tree (Claude Code's locations, plugins, collections)
    has front matter with the required keys, a ``name`` that is the folder's (lower-case
    kebab-case, at most 64 characters: the Agent Skills specification) and a description
    within the length limit. Where Claude Code loads skills from (``.claude/skills``, a
    plugin's skills) its skills documentation rules instead (``claudeSkillsNameOptional``,
    off under the adoption profile, as in the anchor): ``name`` may be left out or differ
    from the folder, and is checked for its form only."""
    collection = collect(tree)
    lacking = [*collection.skill_folders_without_skill]
    lacking += [
        folder
        for folder in tree.subdirectories(options["skillsDir"])
        if folder not in lacking
        and not tree.is_file(join(folder, SKILL_FILE))
        and not tree.escapes(join(folder, SKILL_FILE))
    ]
    # In folder order, as a reader walks the tree: a missing SKILL.md beside the others' findings.
    folders: list[tuple[str, Definition | None]] = [(folder, None) for folder in lacking]
    folders += [(skill.path.rpartition("/")[0], skill) for skill in collection.skills]
    found: list[Found] = []
    plugins = set(collection.plugins)
    for folder, skill in sorted(folders, key=lambda item: item[0]):
        if skill is None:
            found.append(Found(folder, 0, f"Missing {SKILL_FILE} in skill directory: {folder}"))
            continue
        path = skill.path
        text, problems = _definition_text(tree, path, SKILL_FILE)
        found += problems
        if text is None:
            continue
        front, problems = _front_matter(tree, text, path, SKILL_FILE, required=True)
        found += problems
        if front is None:
            continue
        checked, expected = options, skill.name
        loaded = f"/{path}".find("/.claude/skills/") >= 0 or skill.scope in plugins
        if options["claudeSkillsNameOptional"] and loaded:
            # Where Claude Code loads skills from: 'name' is optional (the folder's name
            # stands in) and, when given, names the skill's command, so it may differ.
            required = [key for key in options["requiredKeys"] if key != "name"]
            checked, expected = {**options, "requiredKeys": required}, front.value("name") or ""
        found += _front_matter_checks(
            front,
            path,
            SKILL_FILE,
            checked,
            expected_name=expected,
            max_description=options["maxDescriptionLength"],
        )
    return found


def sub_agent_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``subAgentFormat``: every sub-agent definition (``.claude/agents``, a plugin's
    ``agents/``, a collection of them) has front matter with the required keys, ``name`` =
    file name (kebab-case), a description, a model Claude Code knows (or an allowed one)."""
    found: list[Found] = []
    for path in _paths(tree, collect(tree).agents, options["agentsDir"]):
        text, problems = _definition_text(tree, path, "Sub-agent definition")
        found += problems
        if text is None:
            continue
        front, problems = _front_matter(tree, text, path, "Sub-agent definition", required=True)
        found += problems
        if front is not None:
            found += _front_matter_checks(
                front,
                path,
                "Sub-agent",
                options,
                expected_name=(
                    path.rpartition("/")[2].removesuffix(".md")
                    if options["nameMatchesFile"]
                    else None
                ),
                max_description=0,
            )
    return found


def command_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``commandFormat``: every slash command (``.claude/commands``, a plugin's
    ``commands/``, a collection of them) is named in kebab-case; its optional front matter is
    well formed, with allowed keys, a description and a model Claude Code knows."""
    found: list[Found] = []
    for path in _paths(tree, collect(tree).commands, options["commandsDir"]):
        base = path.rpartition("/")[2].removesuffix(".md")
        text, problems = _definition_text(tree, path, "Command definition")
        found += problems
        if text is None:
            continue
        if options["kebabCaseNames"]:
            found += name_findings(base, base, path, 0)
        front, problems = _front_matter(tree, text, path, "Command definition", required=False)
        found += problems
        if front is not None:
            found += _front_matter_checks(
                front, path, "Command", options, expected_name=None, max_description=0
            )
    return found


def _paths(tree: ProjectTree, found: Sequence[Definition], directory: str) -> list[str]:
    """The definition files found, and those of a configured ``directory`` besides."""
    return list(dict.fromkeys([*(d.path for d in found), *tree.files(directory, ".md")]))


def _definitions(tree: ProjectTree, options: Options) -> list[tuple[str, str, str, str, str]]:
    """``(definition file, source, name, scope, kind)`` for every command, sub-agent and
    skill."""
    collection = collect(tree)
    found = [
        (d.path, d.path, d.name, d.scope, d.kind)
        for d in (*collection.commands, *collection.agents)
    ]
    found += [
        (d.path, d.path.rpartition("/")[0], d.name, d.scope, d.kind) for d in collection.skills
    ]
    known = {path for path, *_ in found}
    for directory, kind in ((options["commandsDir"], "command"), (options["agentsDir"], "agent")):
        for path in tree.files(directory, ".md"):
            if path not in known:
                name = path.rpartition("/")[2].removesuffix(".md")
                found.append((path, path, name, directory, kind))
    return found


def _duplicates(claims: Sequence[tuple[Hashable, str, str]], what: str) -> list[Found]:
    by_key: dict[Hashable, tuple[str, list[str]]] = {}
    for key, value, source in claims:
        by_key.setdefault(key, (value, []))[1].append(source)
    return [
        Found(
            sources[0],
            0,
            f"{what} '{value}' is used by {len(sources)} definitions: " + ", ".join(sources),
        )
        for value, sources in by_key.values()
        if len(sources) > 1
    ]


def unique_names(tree: ProjectTree, options: Options) -> list[Found]:
    """``uniqueNames``: no two definitions of one scope (a ``.claude`` folder, a plugin, a
    collection) share a name where Claude Code would take one for the other: a command and a
    skill share the ``/name`` namespace (the skill wins), sub-agents have their own
    (``separateAgentNames``; off under the adoption profile, as in the anchor, which counts
    all three together)."""
    apart = options["separateAgentNames"]
    claims = [
        ((scope, name, apart and kind == "agent"), name, source)
        for _, source, name, scope, kind in _definitions(tree, options)
    ]
    return _duplicates(claims, "name")


def unique_descriptions(tree: ProjectTree, options: Options) -> list[Found]:
    """``uniqueDescriptions``: no two definitions share a description (case and spacing
    ignored), since Claude picks a definition by its description."""
    claims = []
    for path, source, _, scope, _ in _definitions(tree, options):
        front = front_matter_of(tree, path) if tree.is_file(path) else None
        value = front.value("description") if isinstance(front, FrontMatter) else None
        if value and value.strip():
            claims.append(((scope, " ".join(value.lower().split())), value, source))
    return _duplicates(claims, "description")


_PLUGIN_VERSION = re.compile(r"\d+(\.\d+){0,2}(-[A-Za-z0-9.-]+)?(\+[A-Za-z0-9.-]+)?")


def plugin_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``pluginFormat``: every plugin manifest (``pluginFile`` and each
    ``.claude-plugin/plugin.json`` in the tree) has the required keys, a kebab-case name, a
    dotted version and a non-empty description."""
    paths = [options["pluginFile"]] if has_file("pluginFile")(tree, options) else []
    paths += [join(root, PLUGIN_JSON) for root in collect(tree).plugins]
    found: list[Found] = []
    for path in dict.fromkeys(paths):
        found += _plugin_manifest(tree, path, options)
    return found


def _plugin_manifest(tree: ProjectTree, path: str, options: Options) -> list[Found]:
    manifest, found = json_object(tree, path, "plugin.json")
    if manifest is None:
        return found
    found += [
        Found(path, 0, f"plugin.json is missing required key '{key}' in: {path}")
        for key in options["requiredKeys"]
        if key not in manifest
    ]
    if options["allowedKeys"]:
        found += [
            Found(path, 0, f"plugin.json has unknown key '{key}' in: {path}")
            for key in manifest
            if key not in options["allowedKeys"]
        ]
    for key in ("name", "version", "description"):
        if key in manifest and not isinstance(manifest[key], str):
            found.append(Found(path, 0, f"plugin.json '{key}' must be a string in: {path}"))
    name, version, description = (manifest.get(k) for k in ("name", "version", "description"))
    if isinstance(name, str):
        found += name_findings(name, name, path, 0)
    if isinstance(version, str) and not _PLUGIN_VERSION.fullmatch(version):
        found.append(
            Found(
                path,
                0,
                f"plugin.json version '{version}' is not a dotted version number in: {path}",
            )
        )
    if isinstance(description, str) and not description.strip():
        found.append(Found(path, 0, f"plugin.json description must not be empty in: {path}"))
    return found


def _has_definitions(tree: ProjectTree, options: Options) -> bool:
    collection = collect(tree)
    return bool(collection.commands or collection.agents or collection.skills) or any(
        tree.is_dir(options[k]) for k in ("commandsDir", "agentsDir", "skillsDir")
    )


def _has_skills(tree: ProjectTree, options: Options) -> bool:
    collection = collect(tree)
    return bool(collection.skills or collection.skill_folders_without_skill) or tree.is_dir(
        options["skillsDir"]
    )


def _has_agents(tree: ProjectTree, options: Options) -> bool:
    return bool(collect(tree).agents) or tree.is_dir(options["agentsDir"])


def _has_commands(tree: ProjectTree, options: Options) -> bool:
    return bool(collect(tree).commands) or tree.is_dir(options["commandsDir"])


def _has_plugins(tree: ProjectTree, options: Options) -> bool:
    return bool(collect(tree).plugins) or has_file("pluginFile")(tree, options)


_DEFINITION_DIR_DEFAULTS: Options = {
    "commandsDir": COMMANDS_DIR,
    "agentsDir": AGENTS_DIR,
    "skillsDir": SKILLS_DIR,
}

DEFINITION_RULES = RuleFamily(
    "definitions",
    (
        Rule(
            "skillFilesExist",
            "every skill directory has a SKILL.md with well-formed front matter",
            skill_files_exist,
            {
                "skillsDir": SKILLS_DIR,
                "requiredKeys": ["name", "description"],
                "allowedFrontMatterKeys": [],
                "maxDescriptionLength": 1024,
                "claudeSkillsNameOptional": True,
            },
            _has_skills,
            adoption={"claudeSkillsNameOptional": False},
        ),
        Rule(
            "subAgentFormat",
            "sub-agent definitions have front matter, the required keys, a known model",
            sub_agent_format,
            {
                "agentsDir": AGENTS_DIR,
                "requiredKeys": ["name", "description"],
                "allowedModels": [],
                "nameMatchesFile": False,
            },
            _has_agents,
            adoption={"nameMatchesFile": True},
        ),
        Rule(
            "commandFormat",
            "slash commands have well-formed optional front matter (and kebab-case names)",
            command_format,
            {
                "commandsDir": COMMANDS_DIR,
                "allowedFrontMatterKeys": [],
                "allowedModels": [],
                "kebabCaseNames": False,
            },
            _has_commands,
            adoption={"kebabCaseNames": True},
        ),
        Rule(
            "pluginFormat",
            "the plugin manifest has a kebab-case name, a dotted version and a description",
            plugin_format,
            {"pluginFile": PLUGIN_JSON, "requiredKeys": ["name"], "allowedKeys": []},
            _has_plugins,
        ),
        Rule(
            "uniqueNames",
            "no two commands, sub-agents or skills share a name",
            unique_names,
            {**_DEFINITION_DIR_DEFAULTS, "separateAgentNames": True},
            _has_definitions,
            adoption={"separateAgentNames": False},
        ),
        Rule(
            "uniqueDescriptions",
            "no two commands, sub-agents or skills share a description",
            unique_descriptions,
            dict(_DEFINITION_DIR_DEFAULTS),
            _has_definitions,
        ),
    ),
)
"""Sub-agents, slash commands, skills and the plugin manifest."""
