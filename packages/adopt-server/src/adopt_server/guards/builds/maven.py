"""The Maven guard, spliced into ``pom.xml``: the enforcer plugin running the Java CLAUDE.md
rule, and the committed checker script every other guard runs (through the exec plugin), so a
Maven build rejects exactly what ``claude-md-check`` rejects (placeholder sections, the line
budget) on top of what the Java rule checks."""

from __future__ import annotations

import re
from pathlib import Path

from agent_config_check.rule_sets import RuleSet

from adopt_server.checkout_files import CheckoutFiles
from adopt_server.guards.checker_script import (
    SCRIPT,
    checker_args,
    install_script,
    script_is_installed,
)
from adopt_server.guards.commands import BuildCommand
from adopt_server.guards.guard import BuildTool
from adopt_server.guards.pom_xml import (
    Element,
    Node,
    PomError,
    append_child,
    indent_unit,
    parse,
)

POM = "pom.xml"
ENFORCER_PLUGIN = "maven-enforcer-plugin"
ENFORCER_PLUGIN_VERSION = "3.6.2"
MINIMUM_ENFORCER = (3, 1, 0)
RULE_GROUP = "io.github.adamw7"
RULE_ARTIFACT = "tools.claude-code-enforcer"
# The released claude-code-enforcer the guard pins when the caller names none.
DEFAULT_RULE_VERSION = "1.2.0"
EXECUTION_ID = "enforce-claude-md"
GUARD_RULES = ("claudeMdFormat", "claudeCodeProject")
EXEC_GROUP = "org.codehaus.mojo"
EXEC_PLUGIN = "exec-maven-plugin"
EXEC_PLUGIN_VERSION = "3.5.0"
CHECK_EXECUTION_ID = "agent-config-check"
_VERSION_PARTS = re.compile(r"[.-]")
JAVA_SECTIONS = (
    "## Project",
    "## Java version",
    "## Maven",
    "## Principles for Java Development",
    "## Testing",
    "## Dependencies",
)
"""The CLAUDE.md sections the Java rule requires, the Maven guard's default sections."""


def checked_rule_version(rule_version: str | None) -> str:
    """The rule version to pin: ``rule_version`` or the default; blank or SNAPSHOT refused.

    A SNAPSHOT would make every build of the adopted project depend on an unreleased artifact.
    """
    if rule_version is None:
        return DEFAULT_RULE_VERSION
    version = rule_version.strip()
    if not version:
        raise ValueError("ruleVersion must not be blank")
    if version.upper().endswith("-SNAPSHOT") or not re.fullmatch(r"[\w.+-]+", version):
        raise ValueError(
            f"ruleVersion must be a released version of {RULE_ARTIFACT}, not '{rule_version}'"
        )
    return version


class MavenGuard:
    """The guard of a project built with Maven (``pom.xml``): spliced into the POM."""

    name = "maven"
    description = "Maven (pom.xml)"
    summary = (
        "in the validate phase, the Maven enforcer plugin runs the Java CLAUDE.md rule and "
        f"the exec plugin runs {SCRIPT}, which fails while a required section of CLAUDE.md or "
        "AGENTS.md is missing or holds placeholder text"
    )
    paths = (POM, SCRIPT)
    sections = JAVA_SECTIONS
    tool = BuildTool(
        wrapper="mvnw",
        program="mvn",
        verify_args=("-q", "-N", "validate"),
        download_advice="mvnw could not fetch the Maven distribution named by distributionUrl "
        "in .mvn/wrapper/maven-wrapper.properties (no network?). Run it once where it can "
        "download so Maven is cached under ~/.m2/wrapper/dists, or point distributionUrl at a "
        "mirror this machine reaches, then adopt again.",
    )

    def applies_to(self, files: CheckoutFiles) -> bool:
        """A ``pom.xml`` file at the root (a directory of that name does not count)."""
        return files.is_file(POM)

    def build_command(self, files: CheckoutFiles) -> BuildCommand:
        """``verify`` through the project's wrapper when it has one."""
        if files.is_file("mvnw"):
            return BuildCommand("./mvnw verify", ("./mvnw", "mvnw", "mvn"))
        return BuildCommand("mvn verify", ("mvn", "./mvnw"))

    def missing(self, checkout: Path) -> list[str]:
        """What the POM's ordinary build does not run, and a missing checker script. An
        adoption made before the Maven guard ran the checker too wired in the enforcer's
        rule alone: the checker's execution and script are what it lacks."""
        files = CheckoutFiles(checkout)
        if not files.is_file(POM):
            return [f"there is no {POM} to wire the guard into"]
        source = _read(files)
        root = parse(source, POM)
        gaps = []
        if not _guarded(root, source):
            gaps.append(
                f"{POM} runs no CLAUDE.md rule ({' or '.join(GUARD_RULES)} of the "
                f"{ENFORCER_PLUGIN} in build/plugins, not skipped)"
            )
        if not _runs_checker(root, source):
            gaps.append(
                f"{POM} does not run the checker {SCRIPT} (the {EXEC_PLUGIN} execution "
                f"'{CHECK_EXECUTION_ID}' in the validate phase, which adoptions before the "
                "Maven guard ran the checker did not add)"
            )
        if not script_is_installed(checkout):
            gaps.append(f"the checker script {SCRIPT} is missing")
        return gaps

    def notes(self, checkout: Path) -> list[str]:
        """An enforcer version behind a property this POM does not define (so it cannot be
        checked here to be 3.1.0 or later)."""
        files = CheckoutFiles(checkout)
        if not files.is_file(POM):
            return []
        source = _read(files)
        root = parse(source, POM)
        build, _, enforcer = _locate(root, source)
        declared, where = _declared_version(source, enforcer, build) if enforcer else (None, "")
        if declared is None:
            return []
        literal = declared.text(source)
        value, name = _resolved(literal, root, source)
        if name is None or value != literal:
            return []
        return [
            f"The {ENFORCER_PLUGIN} in {where} takes its version from ${{{name}}}, which {POM} "
            "does not define (a parent POM or the command line must): make sure it resolves to "
            "3.1.0 or later, or the CLAUDE.md rule cannot load."
        ]

    def install(self, checkout: Path, rules: RuleSet, rule_version: str | None) -> list[str]:
        """Splice the guard into ``pom.xml`` and write the checker script it runs.

        Raises ``ValueError`` for an unreadable POM, an enforcer plugin older than 3.1.0, a
        switched-off enforcer or exec plugin, or a blank or SNAPSHOT ``rule_version``.
        """
        version = checked_rule_version(rule_version)
        files = CheckoutFiles(checkout)
        if not files.is_file(POM):
            raise ValueError(f"Could not read POM: {POM} is not a file")
        source = _read(files)
        edited = splice_guard(source, rules, version)
        written = [] if edited == source else [POM]
        if written:
            files.write_text(POM, edited)
        return written + ([SCRIPT] if install_script(checkout) else [])


GUARD = MavenGuard()


def _read(files: CheckoutFiles) -> str:
    try:
        return files.read_text(POM)
    except UnicodeDecodeError:
        # Re-encoding another charset could not keep every other byte as it was.
        raise PomError(f"Could not read POM: {POM} is not UTF-8") from None


def splice_guard(source: str, rules: RuleSet, rule_version: str) -> str:
    """``source`` with the guard added: the enforcer's CLAUDE.md rule and the checker's
    execution, each only when missing (unchanged when both are there)."""
    return _splice_checker(_splice_enforcer(source, rules, rule_version), rules)


def _splice_enforcer(source: str, rules: RuleSet, rule_version: str) -> str:
    root = parse(source)
    if _guarded(root, source):
        return source
    unit = indent_unit(source, root)
    dependency = Node(
        "dependency",
        children=(
            Node("groupId", RULE_GROUP),
            Node("artifactId", RULE_ARTIFACT),
            Node("version", rule_version),
        ),
    )
    execution = _enforcer_execution(rules)
    build, plugins, enforcer = _locate(root, source)
    if enforcer is None:
        plugin = Node(
            "plugin",
            children=(
                Node("groupId", "org.apache.maven.plugins"),
                Node("artifactId", ENFORCER_PLUGIN),
                Node("version", ENFORCER_PLUGIN_VERSION),
                Node("dependencies", children=(dependency,)),
                Node("executions", children=(execution,)),
            ),
        )
        if plugins is not None:
            return append_child(source, plugins, plugin, unit)
        if build is not None:
            return append_child(source, build, Node("plugins", children=(plugin,)), unit)
        return append_child(
            source, root, Node("build", children=(Node("plugins", children=(plugin,)),)), unit
        )
    _refuse_old_enforcer(source, enforcer, build, root)
    skipped = _skip_reason(root, source, enforcer.child("configuration"), None, "enforcer.skip")
    if skipped:
        raise PomError(
            f"The {ENFORCER_PLUGIN} in build/plugins is switched off ({skipped}), so a "
            "CLAUDE.md rule added to it would never run. Remove the skip (or move it into a "
            "profile), then adopt again."
        )
    executions = enforcer.child("executions")
    if executions is not None and any(
        (identifier := execution.child("id")) is not None
        and identifier.text(source) == EXECUTION_ID
        for execution in executions.children
    ):
        raise PomError(
            f"The {ENFORCER_PLUGIN} already has an execution '{EXECUTION_ID}', but it does not "
            "run the CLAUDE.md rule (it is skipped or configured differently). Remove or fix "
            "it, then adopt again."
        )
    if not _depends_on_rules(source, enforcer):
        source = _append_under(source, enforcer, "dependencies", dependency, unit)
        # Re-read: the splice moved every offset after it.
        enforcer = _locate(parse(source), source)[2] or enforcer
    return _append_under(source, enforcer, "executions", execution, unit)


def _splice_checker(source: str, rules: RuleSet) -> str:
    """Add the execution that runs the committed checker script in the validate phase (to the
    project's exec plugin when it has one), unless one is there."""
    root = parse(source)
    if _runs_checker(root, source):
        return source
    unit = indent_unit(source, root)
    arguments = (SCRIPT, *checker_args(rules))
    execution = Node(
        "execution",
        children=(
            Node("id", CHECK_EXECUTION_ID),
            Node("phase", "validate"),
            Node("inherited", "false"),
            Node("goals", children=(Node("goal", "exec"),)),
            Node(
                "configuration",
                children=(
                    Node("executable", "python3"),
                    Node("workingDirectory", "${project.basedir}"),
                    Node("arguments", children=tuple(Node("argument", a) for a in arguments)),
                ),
            ),
        ),
    )
    _, plugins, _ = _locate(root, source)
    if plugins is None:  # the enforcer splice made build/plugins
        raise PomError(f"Could not read POM: {POM} has no build/plugins after the splice")
    plugin = _plugin(plugins, source, EXEC_PLUGIN)
    if plugin is None:
        node = Node(
            "plugin",
            children=(
                Node("groupId", EXEC_GROUP),
                Node("artifactId", EXEC_PLUGIN),
                Node("version", EXEC_PLUGIN_VERSION),
                Node("executions", children=(execution,)),
            ),
        )
        return append_child(source, plugins, node, unit)
    skipped = _skip_reason(root, source, plugin.child("configuration"), None, "exec.skip")
    if skipped:
        raise PomError(
            f"The {EXEC_PLUGIN} in build/plugins is switched off ({skipped}), so the "
            f"CLAUDE.md checker ({SCRIPT}) added to it would never run. Remove the skip (or "
            "move it into a profile), then adopt again."
        )
    if _execution(plugin, source, CHECK_EXECUTION_ID) is not None:
        raise PomError(
            f"The {EXEC_PLUGIN} already has an execution '{CHECK_EXECUTION_ID}', but it is "
            "skipped. Remove or fix it, then adopt again."
        )
    return _append_under(source, plugin, "executions", execution, unit)


def _runs_checker(root: Element, source: str) -> bool:
    """Whether the exec plugin of build/plugins has the checker's execution, not skipped."""
    build = root.child("build")
    plugins = build.child("plugins") if build else None
    plugin = _plugin(plugins, source, EXEC_PLUGIN) if plugins else None
    execution = _execution(plugin, source, CHECK_EXECUTION_ID) if plugin else None
    return execution is not None and not _skip_reason(
        root,
        source,
        plugin.child("configuration") if plugin else None,
        execution.child("configuration"),
        "exec.skip",
    )


def _execution(plugin: Element, source: str, identifier: str) -> Element | None:
    executions = plugin.child("executions")
    return next(
        (
            execution
            for execution in (executions.children if executions else [])
            if (name := execution.child("id")) is not None and name.text(source) == identifier
        ),
        None,
    )


def _locate(root: Element, source: str) -> tuple[Element | None, Element | None, Element | None]:
    build = root.child("build")
    plugins = build.child("plugins") if build else None
    return build, plugins, _plugin(plugins, source, ENFORCER_PLUGIN) if plugins else None


def _append_under(source: str, plugin: Element, container: str, node: Node, unit: str) -> str:
    existing = plugin.child(container)
    if existing is not None:
        return append_child(source, existing, node, unit)
    return append_child(source, plugin, Node(container, children=(node,)), unit)


def _list(name: str, item: str, values: tuple[str, ...]) -> tuple[Node, ...]:
    return (Node(name, children=tuple(Node(item, v) for v in values)),) if values else ()


def _rules(rules: RuleSet) -> tuple[Node, ...]:
    """The enforcer rule of the guard: the Java CLAUDE.md rule (the composite project rule,
    or the CLAUDE.md format alone under ``minimal``). Placeholders and the line budget are the
    checker script's, as in every guard."""
    if rules.name == "minimal":
        return (
            Node(
                "claudeMdFormat",
                children=(
                    Node("claudeMdFile", "${project.basedir}/CLAUDE.md"),
                    *_list("requiredSections", "requiredSection", rules.sections),
                ),
            ),
        )
    return (
        Node(
            "claudeCodeProject",
            children=(
                Node("projectDir", "${project.basedir}"),
                *_list("claudeMdSections", "claudeMdSection", rules.sections),
            ),
        ),
    )


def _enforcer_execution(rules: RuleSet) -> Node:
    return Node(
        "execution",
        children=(
            Node("id", EXECUTION_ID),
            Node("phase", "validate"),
            Node("inherited", "false"),
            Node("goals", children=(Node("goal", "enforce"),)),
            Node("configuration", children=(Node("rules", children=_rules(rules)),)),
        ),
    )


def _guarded(root: Element, source: str) -> bool:
    # Only build/plugins runs on an ordinary build: pluginManagement, profiles and reporting
    # declarations do not count, and neither does a rule whose execution is skipped.
    build = root.child("build")
    plugins = build.child("plugins") if build else None
    if plugins is None:
        return False
    for plugin in plugins.children:
        if plugin.name != "plugin":
            continue
        for element in plugin.descendants():
            rules = element.parent
            if element.name not in GUARD_RULES or rules is None or rules.name != "rules":
                continue
            configuration = rules.parent
            execution = configuration.parent if configuration else None
            if execution is not None and execution.name == "execution":
                if not _skip_reason(
                    root, source, plugin.child("configuration"), configuration, "enforcer.skip"
                ):
                    return True
            elif not _skip_reason(root, source, configuration, None, "enforcer.skip"):
                return True
    return False


def _property(root: Element, source: str, name: str) -> str | None:
    properties = root.child("properties")
    element = properties.child(name) if properties else None
    return element.text(source) if element else None


def _resolved(literal: str, root: Element, source: str) -> tuple[str, str | None]:
    """A ``${name}`` literal resolved from the POM's own ``<properties>`` (unchanged when
    it is not defined there), and the property's name (``None`` for a plain literal)."""
    match = re.fullmatch(r"\$\{([\w.-]+)\}", literal.strip())
    if match is None:
        return literal, None
    value = _property(root, source, match[1])
    return (literal if value is None else value), match[1]


def _skip_reason(
    root: Element,
    source: str,
    plugin_configuration: Element | None,
    execution: Element | None,
    skip_property: str,
) -> str | None:
    """Why a plugin skips (an execution's ``<skip>`` wins over the plugin's, which wins over
    its ``skip_property`` such as ``enforcer.skip``), or ``None`` when it runs."""
    for configuration in (execution, plugin_configuration):
        skip = configuration.child("skip") if configuration else None
        if skip is None:
            continue
        literal = skip.text(source)
        value, name = _resolved(literal, root, source)
        if value.strip().lower() != "true":
            return None
        return f"<skip>{literal}</skip>" + (f" with {name}=true" if name else "")
    if (_property(root, source, skip_property) or "").strip().lower() == "true":
        return f"the property {skip_property}=true"
    return None


def _plugin(plugins: Element, source: str, artifact: str) -> Element | None:
    return next(
        (
            plugin
            for plugin in plugins.children
            if plugin.name == "plugin" and _artifact(plugin, source) == artifact
        ),
        None,
    )


def _artifact(element: Element, source: str) -> str:
    artifact = element.child("artifactId")
    return artifact.text(source) if artifact else ""


def _depends_on_rules(source: str, enforcer: Element) -> bool:
    dependencies = enforcer.child("dependencies")
    return dependencies is not None and any(
        _artifact(d, source) == RULE_ARTIFACT for d in dependencies.children
    )


def _declared_version(
    source: str, enforcer: Element, build: Element | None
) -> tuple[Element | None, str]:
    declared = enforcer.child("version")
    if declared is not None or build is None:
        return declared, "build/plugins"
    management = build.child("pluginManagement")
    managed_plugins = management.child("plugins") if management else None
    managed = _plugin(managed_plugins, source, ENFORCER_PLUGIN) if managed_plugins else None
    return (managed.child("version") if managed else None), "build/pluginManagement"


def _refuse_old_enforcer(
    source: str, enforcer: Element, build: Element | None, root: Element
) -> None:
    declared, where = _declared_version(source, enforcer, build)
    if declared is None:
        return
    literal = declared.text(source)
    value, name = _resolved(literal, root, source)
    if is_below(value, MINIMUM_ENFORCER):
        shown = f"{value} (from ${{{name}}})" if name else value
        raise ValueError(
            f"The {ENFORCER_PLUGIN} in {where} is version {shown}, but the CLAUDE.md rule "
            "needs 3.1.0 or later. Raise it to 3.1.0 or later, then adopt again."
        )


def is_below(literal: str, minimum: tuple[int, ...]) -> bool:
    """Whether a version literal is numerically below ``minimum`` (qualifiers ignored;
    a literal that does not start with a number, such as ``${v}``, is never below)."""
    numbers: list[int] = []
    for part in _VERSION_PARTS.split(literal.strip()):
        if not part.isdigit():
            break
        numbers.append(int(part))
    if not numbers:
        return False
    padded = numbers + [0] * (len(minimum) - len(numbers))
    return tuple(padded[: len(minimum)]) < minimum
