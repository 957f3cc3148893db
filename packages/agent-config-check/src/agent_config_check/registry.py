"""The whole-project check (the anchor's ``claudeCodeProject``): which rules run, with which
options, and what their violations mean.

One configuration, keyed by the anchor's names, drives every rule: the composite's own keys
(``claudeMdSections``, ``claudeMdReference``, ``claudeMdBudgetBytes``, ``skippedRules``,
``severity``, ``baselineFile``) plus a ``rules`` object holding any rule's own parameters and
its ``severity``. A rule runs only when the project has what it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_config_check.families.consistency import CONSISTENCY_RULES
from agent_config_check.families.definitions import DEFINITION_RULES
from agent_config_check.families.documents import DOCUMENT_RULES
from agent_config_check.families.gitignore import GITIGNORE_RULES
from agent_config_check.families.hooks import HOOK_RULES
from agent_config_check.families.imports import IMPORT_RULES
from agent_config_check.families.mcp import MCP_RULES
from agent_config_check.families.okf import OKF_RULES
from agent_config_check.families.plugins import PLUGIN_RULES
from agent_config_check.families.secrets import SECRET_RULES
from agent_config_check.families.settings import SETTINGS_RULES
from agent_config_check.families.skills import SKILL_RULES
from agent_config_check.families.tools import TOOL_RULES
from agent_config_check.family import Found, Options, Rule, RuleFamily
from agent_config_check.findings import Violation, parse_severity
from agent_config_check.linear_regex import PatternError, compile_pattern
from agent_config_check.rule_sets import canonical_sections
from agent_config_check.tree import ProjectTree
from agent_config_check.usage import ADOPTION_PROFILE, DEFAULT_PROFILE, PROFILES, RULE_NAMES

FAMILIES: tuple[RuleFamily, ...] = (
    DOCUMENT_RULES,
    IMPORT_RULES,
    CONSISTENCY_RULES,
    DEFINITION_RULES,
    SKILL_RULES,
    TOOL_RULES,
    PLUGIN_RULES,
    SETTINGS_RULES,
    HOOK_RULES,
    GITIGNORE_RULES,
    MCP_RULES,
    OKF_RULES,
    SECRET_RULES,
)
"""Every rule family, one line each; the catalogue runs in this order."""
RULES: tuple[Rule, ...] = tuple(rule for family in FAMILIES for rule in family.rules)


class ConfigError(ValueError):
    """The configuration names an unknown rule or key, or a value of the wrong kind."""


DESCRIPTIONS = {spec.name: spec.description for spec in RULES}
_TOP_LEVEL = {
    "profile": str,
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
    profile: str = DEFAULT_PROFILE
    enabled: tuple[str, ...] = ()
    """The rules the profile runs (a policy rule only under ``adoption`` or when named)."""


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


def build_config(
    settings: dict[str, Any], *, only: tuple[str, ...] = (), profile: str | None = None
) -> CheckConfig:
    """Validate ``settings`` (the parsed configuration) into a :class:`CheckConfig`.

    ``profile`` (given on the command line) wins over the configuration's ``profile``, which
    defaults to ``default``. Raises :class:`ConfigError` naming the offending key.
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
    chosen = profile if profile is not None else settings.get("profile", DEFAULT_PROFILE)
    if chosen not in PROFILES:
        raise ConfigError(f"'profile' must be one of {', '.join(PROFILES)}, not {chosen!r}")
    adoption = chosen == ADOPTION_PROFILE
    default_severity = (
        _severity(settings["severity"], "'severity'") if "severity" in settings else None
    )
    skipped = frozenset(str(n).strip().lower() for n in settings.get("skippedRules", []))
    composite = _composite(settings)
    per_rule = settings.get("rules", {})
    options: dict[str, Options] = {}
    severities: dict[str, str] = {}
    enabled: list[str] = []
    for name in per_rule:
        if name not in RULE_NAMES:
            raise ConfigError(f"unknown rule '{name}'; known rules: {', '.join(RULE_NAMES)}")
    for spec in RULES:
        profile_defaults = {**spec.defaults, **(spec.adoption if adoption else {})}
        resolved = {**profile_defaults, **composite.get(spec.name, {})}
        overrides = per_rule.get(spec.name, {})
        if not isinstance(overrides, dict):
            raise ConfigError(f"rules.{spec.name} must be an object, not {overrides!r}")
        severity = default_severity or spec.severity
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
        if not spec.policy or adoption or spec.name in per_rule:
            enabled.append(spec.name)
    return CheckConfig(
        options,
        severities,
        skipped,
        str(settings.get("baselineFile", "")),
        only,
        chosen,
        tuple(enabled),
    )


def _composite(settings: dict[str, Any]) -> dict[str, Options]:
    """The composite's top-level keys, as the options of the rules they set (only the keys the
    configuration gives: the others keep the profile's defaults)."""
    composite: dict[str, Options] = {"claudeMdFormat": {}, "agentsMdFormat": {}}
    if "claudeMdSections" in settings:
        composite["claudeMdFormat"]["requiredSections"] = _sections(
            settings["claudeMdSections"], "claudeMdSections"
        )
    if "claudeMdReference" in settings:
        composite["claudeMdFormat"]["requiredReference"] = settings["claudeMdReference"].strip()
    if "requireClaudeMd" in settings:
        composite["claudeMdFormat"]["requireClaudeMd"] = settings["requireClaudeMd"]
    if "agentsMdSections" in settings:
        composite["agentsMdFormat"]["requiredSections"] = _sections(
            settings["agentsMdSections"], "agentsMdSections"
        )
    if "claudeMdBudgetBytes" in settings:
        composite["contextBudget"] = {"maxBytes": settings["claudeMdBudgetBytes"]}
    return composite


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


def _check_patterns(rule: str, options: Options) -> None:
    """Refuse, before any file is read, a pattern the linear-time matcher cannot run."""
    for key, value in options.items():
        if not key.endswith("Patterns") or not isinstance(value, list):
            continue
        for pattern in value:
            try:
                compiled = compile_pattern(pattern)
            except PatternError as error:
                raise ConfigError(
                    f"rules.{rule}.{key}: '{pattern}' cannot be used: {error}. Patterns from "
                    "the configuration run on a linear-time matcher (re syntax without "
                    "backreferences and lookaround)"
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
        if spec.name not in config.enabled or spec.name.lower() in config.skipped:
            continue
        if not spec.applies(tree, options):
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
