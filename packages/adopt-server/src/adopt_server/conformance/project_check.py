"""The whole-project check (the anchor's ``claudeCodeProject``): which rules run, with which
options, and what their violations mean.

One configuration, keyed by the anchor's names, drives every rule: the composite's own keys
(``claudeMdSections``, ``claudeMdReference``, ``claudeMdBudgetBytes``, ``skippedRules``,
``severity``, ``baselineFile``) plus a ``rules`` object holding any rule's own parameters and
its ``severity``. A rule runs only when the project has what it reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from adopt_server.conformance.findings import Violation, parse_severity
from adopt_server.conformance.project_files import ProjectTree
from adopt_server.conformance.project_rules import (
    AGENTS_DIR,
    AGENTS_MD,
    CLAUDE_MD,
    COMMANDS_DIR,
    HOOKS_DIR,
    LOCAL_SETTINGS,
    MCP_JSON,
    OKF_DIR,
    PLUGIN_JSON,
    README,
    SETTINGS_JSON,
    SKILLS_DIR,
    Found,
    Options,
    RuleFunction,
    agents_md_format,
    claude_md_format,
    command_format,
    context_budget,
    cross_doc_consistency,
    declares_modules,
    hook_commands_valid,
    hooks_format,
    local_settings_ignored,
    mcp_config_format,
    mcp_servers_valid,
    memory_imports,
    module_map_consistency,
    no_secrets,
    okf_bundle_format,
    permissions_format,
    plugin_format,
    readme_consistency,
    settings_json_valid,
    skill_files_exist,
    sub_agent_format,
    unique_descriptions,
    unique_names,
)
from adopt_server.conformance.rules import AGENTS_MD_SECTIONS, canonical_sections

DEFAULT_BUDGET_BYTES = 32768
"""32 KiB: CLAUDE.md (and what it imports) is loaded into every session."""

_DEFINITION_DIRS = [AGENTS_DIR, COMMANDS_DIR, SKILLS_DIR]
_FORMAT_DEFAULTS: Options = {
    "titleHeading": "",
    "rejectPlaceholders": True,
    "validateFileReferences": True,
    "enforceSectionOrder": False,
    "forbiddenTokens": [],
    "maxLineLength": 0,
}
_IMPORT_DEFAULTS: Options = {
    "claudeMdFile": CLAUDE_MD,
    "maxDepth": 5,
    "ignoredImports": [],
    "importExtensions": ["md", "markdown", "txt"],
}


class ConfigError(ValueError):
    """The configuration names an unknown rule or key, or a value of the wrong kind."""


@dataclass(frozen=True)
class RuleSpec:
    """One rule: its name, what it checks, its parameters' defaults, when it applies."""

    name: str
    description: str
    run: RuleFunction
    defaults: Options
    applies: Callable[[ProjectTree, Options], bool]


def _has_file(key: str) -> Callable[[ProjectTree, Options], bool]:
    return lambda tree, options: tree.is_file(options[key]) or tree.escapes(options[key])


def _has_dir(key: str) -> Callable[[ProjectTree, Options], bool]:
    return lambda tree, options: tree.is_dir(options[key])


def _has_definitions(tree: ProjectTree, options: Options) -> bool:
    return any(tree.is_dir(options[k]) for k in ("commandsDir", "agentsDir", "skillsDir"))


def _patterns_and(key: str, other: str) -> Callable[[ProjectTree, Options], bool]:
    return lambda tree, options: (
        bool(options["consistentPatterns"])
        and all(tree.is_file(options[k]) for k in (key, other) if options[k])
    )


RULES: tuple[RuleSpec, ...] = (
    RuleSpec(
        "claudeMdFormat",
        "CLAUDE.md has its title, required sections with real content, the reference to "
        "AGENTS.md and links that resolve",
        claude_md_format,
        {
            "claudeMdFile": CLAUDE_MD,
            "requiredSections": [],
            "requiredReference": "AGENTS.md",
            "requireClaudeMd": True,
            **_FORMAT_DEFAULTS,
        },
        lambda tree, options: options["requireClaudeMd"] or tree.is_file(options["claudeMdFile"]),
    ),
    RuleSpec(
        "agentsMdFormat",
        "AGENTS.md has its title and the guide sections, with real content",
        agents_md_format,
        {
            "agentsMdFile": AGENTS_MD,
            "requiredSections": list(AGENTS_MD_SECTIONS),
            **_FORMAT_DEFAULTS,
        },
        _has_file("agentsMdFile"),
    ),
    RuleSpec(
        "memoryImports",
        "@path imports resolve inside the project, without cycles, within five hops",
        memory_imports,
        dict(_IMPORT_DEFAULTS),
        _has_file("claudeMdFile"),
    ),
    RuleSpec(
        "contextBudget",
        "always-loaded files and .claude definitions fit the byte, line and token budgets",
        context_budget,
        {
            **_IMPORT_DEFAULTS,
            "maxBytes": DEFAULT_BUDGET_BYTES,
            "maxLines": 0,
            "maxTokens": 0,
            "files": [],
            "directories": list(_DEFINITION_DIRS),
        },
        lambda tree, options: (
            (options["maxBytes"] or options["maxLines"] or options["maxTokens"]) > 0
        ),
    ),
    RuleSpec(
        "moduleMapConsistency",
        "every module of an aggregator pom.xml is named in the agent documents",
        module_map_consistency,
        {
            **_IMPORT_DEFAULTS,
            "pomFile": "pom.xml",
            "docFiles": [CLAUDE_MD, AGENTS_MD],
            "ignoredModules": [],
        },
        lambda tree, options: declares_modules(tree, options["pomFile"]),
    ),
    RuleSpec(
        "crossDocConsistency",
        "facts pinned by a pattern agree between CLAUDE.md and AGENTS.md",
        cross_doc_consistency,
        {"claudeMdFile": CLAUDE_MD, "agentsMdFile": AGENTS_MD, "consistentPatterns": []},
        _patterns_and("claudeMdFile", "agentsMdFile"),
    ),
    RuleSpec(
        "readmeConsistency",
        "facts pinned by a pattern agree between the README and the agent guide",
        readme_consistency,
        {"readmeFile": README, "agentDocFile": "", "consistentPatterns": []},
        _patterns_and("readmeFile", "agentDocFile"),
    ),
    RuleSpec(
        "skillFilesExist",
        "every skill directory has a SKILL.md with well-formed front matter",
        skill_files_exist,
        {
            "skillsDir": SKILLS_DIR,
            "requiredKeys": ["name", "description"],
            "allowedFrontMatterKeys": [],
            "maxDescriptionLength": 1024,
        },
        _has_dir("skillsDir"),
    ),
    RuleSpec(
        "subAgentFormat",
        "sub-agent definitions have front matter, required keys, name = file name",
        sub_agent_format,
        {"agentsDir": AGENTS_DIR, "requiredKeys": ["name", "description"], "allowedModels": []},
        _has_dir("agentsDir"),
    ),
    RuleSpec(
        "commandFormat",
        "slash commands are kebab-case with well-formed optional front matter",
        command_format,
        {"commandsDir": COMMANDS_DIR, "allowedFrontMatterKeys": [], "allowedModels": []},
        _has_dir("commandsDir"),
    ),
    RuleSpec(
        "pluginFormat",
        "the plugin manifest has a kebab-case name, a dotted version and a description",
        plugin_format,
        {"pluginFile": PLUGIN_JSON, "requiredKeys": ["name"], "allowedKeys": []},
        _has_file("pluginFile"),
    ),
    RuleSpec(
        "uniqueNames",
        "no two commands, sub-agents or skills share a name",
        unique_names,
        {"commandsDir": COMMANDS_DIR, "agentsDir": AGENTS_DIR, "skillsDir": SKILLS_DIR},
        _has_definitions,
    ),
    RuleSpec(
        "uniqueDescriptions",
        "no two commands, sub-agents or skills share a description",
        unique_descriptions,
        {"commandsDir": COMMANDS_DIR, "agentsDir": AGENTS_DIR, "skillsDir": SKILLS_DIR},
        _has_definitions,
    ),
    RuleSpec(
        "settingsJsonValid",
        ".claude/settings.json is valid JSON with the required and none of the forbidden "
        "permissions",
        settings_json_valid,
        {"settingsFile": SETTINGS_JSON, "requiredPermissions": [], "forbiddenPermissions": []},
        _has_file("settingsFile"),
    ),
    RuleSpec(
        "permissionsFormat",
        ".claude/settings.json permission entries are well formed and consistent",
        permissions_format,
        {"settingsFile": SETTINGS_JSON, "allowedTools": [], "forbiddenEntryPatterns": []},
        _has_file("settingsFile"),
    ),
    RuleSpec(
        "hookCommandsValid",
        ".claude/settings.json hooks are well formed and the scripts they run exist",
        hook_commands_valid,
        {"settingsFile": SETTINGS_JSON, "allowedEvents": [], "validateScriptReferences": True},
        _has_file("settingsFile"),
    ),
    RuleSpec(
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
        _has_dir("hooksDir"),
    ),
    RuleSpec(
        "localSettingsIgnored",
        ".gitignore keeps .claude/settings.local.json out of the repository",
        local_settings_ignored,
        {"gitignoreFile": ".gitignore", "ignoredPaths": [LOCAL_SETTINGS]},
        _has_file("gitignoreFile"),
    ),
    RuleSpec(
        "mcpServersValid",
        ".mcp.json servers are well formed for their transport; required/forbidden servers",
        mcp_servers_valid,
        {"mcpFile": MCP_JSON, "requiredServers": [], "forbiddenServers": [], "allowedTypes": []},
        _has_file("mcpFile"),
    ),
    RuleSpec(
        "mcpConfigFormat",
        ".mcp.json args, env, headers and url are well formed",
        mcp_config_format,
        {"mcpFile": MCP_JSON, "requireHttps": False},
        _has_file("mcpFile"),
    ),
    RuleSpec(
        "okfBundleFormat",
        "the okf/ knowledge bundle follows the OKF format",
        okf_bundle_format,
        {"bundleDir": OKF_DIR, "okfVersion": "", "requiredKeys": [], "requireIndex": False},
        _has_dir("bundleDir"),
    ),
    RuleSpec(
        "noSecrets",
        "no credential-shaped text in agent documents, settings, .mcp.json or definitions",
        no_secrets,
        {
            "files": [CLAUDE_MD, AGENTS_MD, SETTINGS_JSON, MCP_JSON],
            "directories": [HOOKS_DIR, *_DEFINITION_DIRS],
            "secretPatterns": [],
            "useDefaultPatterns": True,
        },
        lambda tree, options: (
            any(tree.is_file(p) for p in options["files"])
            or any(tree.is_dir(d) for d in options["directories"])
        ),
    ),
)
RULE_NAMES = tuple(spec.name for spec in RULES)
DESCRIPTIONS = {spec.name: spec.description for spec in RULES}
_TOP_LEVEL = {
    "claudeMdSections": list,
    "claudeMdReference": str,
    "claudeMdBudgetBytes": int,
    "agentsMdSections": list,
    "requireClaudeMd": bool,
    "skippedRules": list,
    "severity": str,
    "baselineFile": str,
    "rules": dict,
}


@dataclass(frozen=True)
class CheckConfig:
    """A validated configuration: per rule, its severity and resolved options."""

    options: dict[str, Options]
    severities: dict[str, str]
    skipped: frozenset[str]
    baseline_file: str
    only: tuple[str, ...] = ()


def _kind(value: object, default: object, where: str) -> object:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, not {value!r}")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{where} must be a whole number of at least 0, not {value!r}")
    elif isinstance(default, list):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of strings, not {value!r}")
    elif isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{where} must be a string, not {value!r}")
    return value


def build_config(settings: dict[str, Any], *, only: tuple[str, ...] = ()) -> CheckConfig:
    """Validate ``settings`` (the parsed configuration) into a :class:`CheckConfig`.

    Raises :class:`ConfigError` naming the offending key.
    """
    for key, value in settings.items():
        if key not in _TOP_LEVEL:
            raise ConfigError(
                f"unknown configuration key '{key}'; known keys: {', '.join(_TOP_LEVEL)}"
            )
        if not isinstance(value, _TOP_LEVEL[key]) or (
            _TOP_LEVEL[key] is int and isinstance(value, bool)
        ):
            raise ConfigError(f"'{key}' must be a {_TOP_LEVEL[key].__name__}, not {value!r}")
    default_severity = _severity(settings.get("severity", "error"), "'severity'")
    skipped = frozenset(str(n).strip().lower() for n in settings.get("skippedRules", []))
    composite: dict[str, Options] = {
        "claudeMdFormat": {
            "requiredSections": _sections(settings.get("claudeMdSections", []), "claudeMdSections"),
            "requiredReference": settings.get("claudeMdReference", "AGENTS.md").strip(),
            "requireClaudeMd": settings.get("requireClaudeMd", True),
        },
        "agentsMdFormat": {
            "requiredSections": _sections(
                settings.get("agentsMdSections", list(AGENTS_MD_SECTIONS)), "agentsMdSections"
            )
        },
        "contextBudget": {"maxBytes": settings.get("claudeMdBudgetBytes", DEFAULT_BUDGET_BYTES)},
    }
    per_rule = settings.get("rules", {})
    options: dict[str, Options] = {}
    severities: dict[str, str] = {}
    for name in per_rule:
        if name not in RULE_NAMES:
            raise ConfigError(f"unknown rule '{name}'; known rules: {', '.join(RULE_NAMES)}")
    for spec in RULES:
        resolved = {**spec.defaults, **composite.get(spec.name, {})}
        overrides = per_rule.get(spec.name, {})
        if not isinstance(overrides, dict):
            raise ConfigError(f"rules.{spec.name} must be an object, not {overrides!r}")
        severity = default_severity
        for key, value in overrides.items():
            where = f"rules.{spec.name}.{key}"
            if key == "severity":
                severity = _severity(value, where)
            elif key not in spec.defaults:
                raise ConfigError(
                    f"unknown key '{key}' for rule {spec.name}; known keys: "
                    f"severity, {', '.join(spec.defaults)}"
                )
            else:
                resolved[key] = _kind(value, spec.defaults[key], where)
        if spec.name == "claudeMdFormat":
            resolved["requiredSections"] = _sections(
                resolved["requiredSections"], "requiredSections"
            )
        _check_patterns(spec.name, resolved)
        options[spec.name] = resolved
        severities[spec.name] = severity
    return CheckConfig(options, severities, skipped, str(settings.get("baselineFile", "")), only)


def _severity(value: object, where: str) -> str:
    try:
        return parse_severity(value, where)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def _sections(value: object, key: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"'{key}' must be a list of headings, not {value!r}")
    try:
        return list(canonical_sections(value))
    except ValueError as error:
        raise ConfigError(f"'{key}': {error}") from None


# A quantified group that itself holds a quantifier, such as (a+)+ or (\w*)*: the shape that
# backtracks catastrophically. Python's re has no step budget (the anchor bounds its matcher), and
# a configuration comes from the repository being checked, so such a pattern is refused.
_NESTED_QUANTIFIER = re.compile(r"\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)(?:[+*]|\{\d*,)")


def _check_patterns(rule: str, options: Options) -> None:
    for key in ("consistentPatterns", "secretPatterns", "forbiddenEntryPatterns"):
        for pattern in options.get(key, []):
            if _NESTED_QUANTIFIER.search(pattern):
                raise ConfigError(
                    f"rules.{rule}.{key}: '{pattern}' repeats a repeated group, which can take "
                    "exponential time; rewrite it without the nested quantifier"
                )
            try:
                compiled = re.compile(pattern)
            except re.error as error:
                raise ConfigError(
                    f"rules.{rule}.{key}: '{pattern}' is not a regex ({error})"
                ) from None
            if key == "consistentPatterns" and compiled.groups < 1:
                raise ConfigError(f"rules.{rule}.{key}: '{pattern}' must declare a capturing group")


@dataclass(frozen=True)
class CheckResult:
    """What one run found: the rules that ran, and every violation (baseline not applied)."""

    checked: tuple[str, ...]
    violations: tuple[Violation, ...]


def check_project(tree: ProjectTree, config: CheckConfig) -> CheckResult:
    """Run every rule that applies to ``tree`` and is not skipped, in the catalogue's order.

    A rule that fails unexpectedly is reported as a violation of its own, so one rule's
    problem never hides the others' verdicts.
    """
    checked: list[str] = []
    violations: list[Violation] = []
    for spec in RULES:
        if config.only and spec.name not in config.only:
            continue
        options = config.options[spec.name]
        if spec.name.lower() in config.skipped or not spec.applies(tree, options):
            continue
        checked.append(spec.name)
        try:
            found = spec.run(tree, options)
        except Exception as error:
            found = [Found("", 0, f"could not be checked: {type(error).__name__}: {error}")]
        severity = config.severities[spec.name]
        violations += [
            Violation(spec.name, item.path, item.line, item.message, severity) for item in found
        ]
    return CheckResult(tuple(checked), tuple(violations))
