"""The ``claude-md-check`` / ``agent-config-check`` command line (standard library only, so
the same code runs as the installed command and as the script a guard commits)."""

from __future__ import annotations

import json
import os
import secrets
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_config_check.findings import Baseline, Violation, render_json, render_sarif, render_text
from agent_config_check.registry import (
    DESCRIPTIONS,
    CheckConfig,
    ConfigError,
    build_config,
    check_project,
)
from agent_config_check.reshape import reshape
from agent_config_check.rule_sets import RuleSet
from agent_config_check.tree import MAX_READ_BYTES, ProjectTree
from agent_config_check.usage import (
    ADOPTION_PROFILE,
    DEFAULT_CONFIG,
    EXIT_USAGE,
    RULE_SET_NAMES,
    command_parser,
    installed_version,
    invoked_name,
)

EXIT_OK = 0
EXIT_VIOLATIONS = 1


def main(
    argv: Sequence[str] | None = None, *, prog: str | None = None, version: str | None = None
) -> int:
    """Run the command; returns the exit status (0 ok, 1 violations, 2 usage error).

    ``prog`` defaults to the name it was invoked by (``agent-config-check`` or its old name
    ``claude-md-check``), ``version`` to the installed package's.
    """
    if prog is None:
        prog = invoked_name()
    parser = command_parser(prog, version)
    try:
        options = parser.parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE

    def usage(message: str) -> int:
        parser.print_usage(sys.stderr)
        sys.stderr.write(f"{prog}: error: {message}\n")
        return EXIT_USAGE

    rule_set = None if options.rules is None else options.rules.strip().lower() or "project"
    if rule_set is not None and rule_set not in RULE_SET_NAMES:
        return usage(f"Unknown rule set '{options.rules}'. Use one of {', '.join(RULE_SET_NAMES)}")
    targets = options.paths or ["."]
    for name in targets:
        if not Path(name).exists():
            return usage(f"{name} does not exist")
    if options.write_baseline and len(targets) > 1:
        return usage("--write-baseline takes one project")
    violations: list[Violation] = []
    checked: list[str] = []
    suppressed = 0
    for name in targets:
        target = Path(name)
        try:
            outcome = run_check(
                target,
                profile=options.profile,
                rule_set=rule_set,
                sections=options.section,
                config_file=options.config,
                baseline_file=None if options.write_baseline else options.baseline,
                fix=options.fix,
            )
            if options.write_baseline:
                path = options.baseline or _configured_baseline(target, options.config)
                if not path:
                    raise ConfigError("--write-baseline needs a baseline file: --baseline FILE")
                write_baseline(target, outcome, path)
                sys.stderr.write(
                    f"Recorded {len(outcome.violations)} violation(s) in the baseline {path}\n"
                )
                return EXIT_OK
        except ConfigError as error:
            return usage(str(error))
        if outcome.stale:
            sys.stderr.write(
                f"{len(outcome.stale)} baseline entries no longer match anything and can be "
                "removed\n"
            )
        display = "" if name in (".", "./") or not target.is_dir() else name.rstrip("/") + "/"
        violations += [
            Violation(v.rule, display + v.path if v.path else name, v.line, v.message, v.severity)
            for v in outcome.violations
        ]
        checked += [rule for rule in outcome.checked if rule not in checked]
        suppressed += outcome.suppressed
    report = {
        "text": lambda: render_text(violations),
        "json": lambda: render_json(violations, checked, suppressed),
        "sarif": lambda: render_sarif(
            violations, checked, version or installed_version(), DESCRIPTIONS
        ),
    }[options.format]()
    if options.output:
        with open(options.output, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(report)
    else:
        sys.stdout.write(report)
    errors = [v for v in violations if v.severity == "error"]
    return EXIT_VIOLATIONS if errors else EXIT_OK


@dataclass(frozen=True)
class CheckOutcome:
    """One project's verdict: violations left after the baseline, the rules that ran, how
    many violations the baseline accepted, and its entries that match nothing any more."""

    violations: tuple[Violation, ...]
    checked: tuple[str, ...]
    suppressed: int = 0
    stale: tuple[str, ...] = ()


def run_check(
    target: Path,
    *,
    profile: str | None = None,
    rule_set: str | None = None,
    sections: Sequence[str] = (),
    config_file: str | None = None,
    baseline_file: str | None = None,
    fix: bool = False,
) -> CheckOutcome:
    """Check one project directory (or one CLAUDE.md / AGENTS.md file) the way the command
    does: its configuration file, then the arguments, then its baseline. Writes nothing but
    the reshaped documents when ``fix``. Raises ``ConfigError`` for a bad configuration.

    ``profile`` is ``default`` or ``adoption``; when ``None`` it is ``adoption`` if a
    ``rule_set`` (``project`` | ``minimal``) or ``sections`` are given (the adoption's guards
    pass them), else the configuration's ``profile``, else ``default``.
    """
    root = target if target.is_dir() else target.parent
    tree = ProjectTree(root)
    settings = _settings(tree, config_file)
    if profile is None and (rule_set is not None or sections):
        profile = ADOPTION_PROFILE
    if sections:
        settings["claudeMdSections"] = list(sections)
    if baseline_file:
        settings["baselineFile"] = baseline_file
    only: tuple[str, ...] = ()
    if not target.is_dir():
        rules = settings.setdefault("rules", {})
        if target.name == "AGENTS.md":
            only = ("agentsMdFormat",)
            rules.setdefault("agentsMdFormat", {})["agentsMdFile"] = target.name
        else:
            only = ("claudeMdFormat",)
            rules.setdefault("claudeMdFormat", {})["claudeMdFile"] = target.name
    elif rule_set == "minimal":
        only = ("claudeMdFormat",)
    config = build_config(settings, only=only, profile=profile)
    if fix:
        _fix(tree, config)
        tree = ProjectTree(root)  # read again: the reshape changed what the first tree cached
    result = check_project(tree, config)
    if not config.baseline_file:
        return CheckOutcome(result.violations, result.checked)
    baseline = _baseline(tree, config.baseline_file)
    kept = tuple(v for v in result.violations if not baseline.accepts(v))
    return CheckOutcome(
        kept,
        result.checked,
        len(result.violations) - len(kept),
        tuple(baseline.stale(result.violations)),
    )


def _baseline(tree: ProjectTree, path: str) -> Baseline:
    real = tree.real(path)
    if real is None or not real.is_file():
        return Baseline([], str(tree.root))
    with real.open(encoding="utf-8", errors="replace") as handle:
        return Baseline.parse(handle.read(MAX_READ_BYTES), str(tree.root))


def write_baseline(target: Path, outcome: CheckOutcome, path: str) -> None:
    """Record every violation of ``outcome`` as accepted, in ``path`` under the project.

    The path may come from the repository's own configuration, so the file is never written
    through: an existing symbolic link, a file with other hard links (one of its names may lie
    outside the project) or anything but a regular file is refused with a ``ConfigError``. The
    text goes to a new file beside it (created exclusively, never following a link), which
    then replaces the old one in one rename.
    """
    root = target if target.is_dir() else target.parent
    tree = ProjectTree(root)
    if tree.real(path) is None:
        raise ConfigError(f"the baseline {path} must be inside the project")
    file = tree.root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    directory = tree.real(str(file.parent.relative_to(tree.root)))
    if directory is None or not file.name or file.name in (".", ".."):
        raise ConfigError(f"the baseline {path} must be a file inside the project")
    final = directory / file.name
    try:
        existing = os.lstat(final)
    except FileNotFoundError:
        existing = None
    refusal = ""
    if existing is not None and stat.S_ISLNK(existing.st_mode):
        refusal = "is a symbolic link"
    elif existing is not None and not stat.S_ISREG(existing.st_mode):
        refusal = "is not a regular file"
    elif existing is not None and existing.st_nlink > 1:
        refusal = "has other hard links"
    if refusal:
        raise ConfigError(
            f"the baseline {path} {refusal}; --write-baseline never writes through one "
            "(remove it, or name another file)"
        )
    text = Baseline([], str(tree.root)).render(outcome.violations).encode("utf-8")
    temporary = directory / f".{file.name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    descriptor = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(text)
        os.replace(temporary, final)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _configured_baseline(target: Path, config: str | None) -> str:
    root = target if target.is_dir() else target.parent
    value = _settings(ProjectTree(root), config).get("baselineFile", "")
    return value if isinstance(value, str) else ""


def _settings(tree: ProjectTree, config: str | None) -> dict[str, Any]:
    """The JSON configuration (``--config`` or the default file when present)."""
    if config is None:
        if not tree.is_file(DEFAULT_CONFIG):
            return {}
        read = tree.read(DEFAULT_CONFIG)
        source, text = DEFAULT_CONFIG, read.text
        if text is None:
            raise ConfigError(read.problem or f"{DEFAULT_CONFIG} cannot be read")
    else:
        source = config
        try:
            with open(config, encoding="utf-8") as handle:
                text = handle.read(MAX_READ_BYTES)
        except (OSError, UnicodeDecodeError) as error:
            raise ConfigError(f"cannot read the configuration {config}: {error}") from None
    try:
        settings = json.loads(text)
    except json.JSONDecodeError as error:
        raise ConfigError(f"{source} line {error.lineno}: not valid JSON ({error.msg})") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid JSON (nested too deeply)") from None
    if not isinstance(settings, dict):
        raise ConfigError(f"{source} must hold a JSON object")
    return settings


def _fix(tree: ProjectTree, config: CheckConfig) -> None:
    """Reshape CLAUDE.md and AGENTS.md in place to the shape the configuration asks of them
    (nothing under the default profile, which asks for no shape). Only regular, UTF-8 files
    inside the project and within the read bound are touched; a symbolic link is never
    written through (a repository's ``AGENTS.md -> CLAUDE.md`` would get both files' shapes),
    it is refused with a message."""
    claude = config.options["claudeMdFormat"]
    agents = config.options["agentsMdFormat"]
    targets: list[tuple[str, RuleSet]] = []
    if not config.only or "claudeMdFormat" in config.only:
        targets.append(
            (
                claude["claudeMdFile"],
                RuleSet(
                    "project",
                    "github-actions",
                    tuple(claude["requiredSections"]),
                    title=claude["titleHeading"],
                    reference=claude["requiredReference"],
                ),
            )
        )
    if not config.only or "agentsMdFormat" in config.only:
        targets.append(
            (
                agents["agentsMdFile"],
                RuleSet(
                    "agents",
                    "github-actions",
                    tuple(agents["requiredSections"]),
                    title=agents["titleHeading"],
                    reference="",
                ),
            )
        )
    for path, rules in targets:
        if not (rules.title or rules.sections or rules.reference):
            continue
        if (tree.root / path).is_symlink():
            sys.stderr.write(
                f"{path}: not reshaped: it is a symbolic link, and --fix never writes through "
                "one (edit the file it points to)\n"
            )
            continue
        real = tree.real(path)
        if real is None or not real.is_file():
            continue
        if real.stat().st_nlink > 1:  # its other names may lie outside the project
            sys.stderr.write(
                f"{path}: not reshaped: it has other hard links, and --fix never writes "
                "through one (edit the file itself)\n"
            )
            continue
        with real.open("rb") as handle:
            data = handle.read(MAX_READ_BYTES + 1)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue  # the check reports it; nothing here can repair an encoding
        fixed = reshape(text, rules)
        if fixed != text and len(data) <= MAX_READ_BYTES:
            with real.open("w", encoding="utf-8", newline="") as handle:
                handle.write(fixed)
            sys.stderr.write(f"{path}: reshaped\n")
