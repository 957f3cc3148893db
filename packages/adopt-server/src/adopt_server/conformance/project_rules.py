"""The agent-configuration rules, one function per rule of the anchor's catalogue.

Each rule takes the project (a :class:`ProjectTree`) and its resolved options (the anchor's
parameter names) and returns :class:`Found` items; it never raises on bad input — a file that
cannot be read, malformed front matter or invalid JSON is itself a finding with a line.
"""

from __future__ import annotations

import json
import os
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from adopt_server.conformance.checker import FormatOptions, format_findings, without_code_spans
from adopt_server.conformance.front_matter import FrontMatter, FrontMatterError, read_front_matter
from adopt_server.conformance.markdown_reader import MarkdownDocument
from adopt_server.conformance.project_files import MAX_READ_BYTES, FileText, ProjectTree, join
from adopt_server.conformance.rules import AGENTS_MD_RULES, RuleSet

CLAUDE_MD = "CLAUDE.md"
AGENTS_MD = "AGENTS.md"
README = "README.md"
MCP_JSON = ".mcp.json"
SETTINGS_JSON = ".claude/settings.json"
SKILLS_DIR = ".claude/skills"
AGENTS_DIR = ".claude/agents"
COMMANDS_DIR = ".claude/commands"
HOOKS_DIR = ".claude/hooks"
PLUGIN_JSON = ".claude-plugin/plugin.json"
OKF_DIR = "okf"
SKILL_FILE = "SKILL.md"

Options = dict[str, Any]


@dataclass(frozen=True)
class Found:
    """One finding of one rule: file (project-relative), line (0 = whole file), message."""

    path: str
    line: int
    message: str


# ---------------------------------------------------------------- documents


def claude_md_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``claudeMdFormat``: title, required sections with real content, the reference to the
    companion document, and (optionally) order, tokens, line length, local links."""
    path = options["claudeMdFile"]
    if not tree.is_file(path) and not tree.escapes(path):
        return [Found(path, 0, "CLAUDE.md is missing")]
    rules = RuleSet(
        "project",
        "github-actions",
        tuple(options["requiredSections"]),
        title=options["titleHeading"] or "# CLAUDE.md",
        reference=options["requiredReference"],
    )
    return _markdown_format(tree, path, rules, options, "CLAUDE.md")


def agents_md_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``agentsMdFormat``: the AGENTS.md title and guide sections, with real content."""
    rules = RuleSet(
        "project",
        "github-actions",
        tuple(options["requiredSections"]),
        title=options["titleHeading"] or AGENTS_MD_RULES.title,
        reference="",
    )
    return _markdown_format(tree, options["agentsMdFile"], rules, options, "AGENTS.md")


def _markdown_format(
    tree: ProjectTree, path: str, rules: RuleSet, options: Options, label: str
) -> list[Found]:
    read = tree.read(path)
    if read.text is None:
        return [Found(path, 0, (read.problem or "").replace(path, label, 1))]
    format_options = FormatOptions(
        reject_placeholders=options["rejectPlaceholders"],
        enforce_section_order=options["enforceSectionOrder"],
        forbidden_tokens=tuple(options["forbiddenTokens"]),
        max_line_length=options["maxLineLength"],
    )
    found = [
        Found(path, line, message)
        for line, message in format_findings(label, read.text, rules, format_options)
    ]
    if options["validateFileReferences"]:
        found += _link_findings(tree, path, read.text, label)
    return found


_MARKDOWN_LINK = re.compile(r"\[[^\]]*\]\(((?:[^()]|\([^()]*\))+)\)")
_EXTERNAL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:.*")


def _link_findings(tree: ProjectTree, path: str, text: str, label: str) -> list[Found]:
    """Relative links that do not resolve to a file or directory inside the project."""
    document = MarkdownDocument.read(text)
    base = path.rpartition("/")[0]
    found: list[Found] = []
    for number, line in enumerate(document.lines, start=1):
        if not line.kind.structural:
            continue
        for match in _MARKDOWN_LINK.finditer(without_code_spans(line.visible)):
            target = match.group(1).strip().split()[0] if match.group(1).strip() else ""
            target = target.strip("<>")
            if not target or target.startswith("#") or _EXTERNAL.fullmatch(target):
                continue
            local = re.split(r"[#?]", target, maxsplit=1)[0]
            if not local:
                continue
            relative = local.lstrip("/") if local.startswith("/") else join(base, local)
            decoded = _percent_decoded(relative)
            if not any(
                tree.real(candidate) is not None and (tree.root / candidate).exists()
                for candidate in (relative, decoded)
            ):
                found.append(Found(path, number, f"{label} references a missing file: {local}"))
    return found


def _percent_decoded(text: str) -> str:
    return re.sub(
        r"%([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]).decode("latin-1"), text
    )


# ---------------------------------------------------------------- memory imports


_IMPORT = re.compile(r"(?:(?<=\s)|^)@([A-Za-z0-9_./~-]+)")
_PATH_PREFIXES = ("./", "../", "/", "~/")


@dataclass(frozen=True)
class Import:
    """One ``@path`` import: the text written, the line, the project path it resolves to
    (``None`` when it leads out of the project)."""

    text: str
    line: int
    target: str | None


def imports_in(tree: ProjectTree, path: str, options: Options) -> list[Import]:
    """The imports Claude Code would follow in ``path``: not in code blocks, code spans or
    HTML comments; home-relative (``~``) and ignored ones left out."""
    read = tree.read(path)
    if read.text is None:
        return []
    extensions = {e.lower().lstrip(".") for e in options["importExtensions"]}
    ignored = set(options["ignoredImports"])
    base = path.rpartition("/")[0]
    found: list[Import] = []
    document = MarkdownDocument.read(read.text)
    for number, line in enumerate(document.lines, start=1):
        if not line.kind.structural:
            continue
        for match in _IMPORT.finditer(without_code_spans(line.visible)):
            text = match.group(1).rstrip(".")
            name = text.rpartition("/")[2]
            known = "." in name and name.rpartition(".")[2].lower() in extensions
            if not (text.startswith(_PATH_PREFIXES) or known):
                continue
            if text.startswith("~") or text in ignored:
                continue
            found.append(Import(text, number, _resolve(tree, base, text)))
    return found


def _resolve(tree: ProjectTree, base: str, text: str) -> str | None:
    if text.startswith("/"):
        return None
    parts: list[str] = [p for p in base.split("/") if p]
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(part)
    relative = "/".join(parts)
    return relative if tree.real(relative) is not None else None


def import_hops(tree: ProjectTree, root: str, options: Options) -> dict[str, int]:
    """Shortest number of hops from ``root`` to every file it imports, transitively."""
    hops = {root: 0}
    queue = deque([root])
    while queue:
        current = queue.popleft()
        for found in imports_in(tree, current, options):
            target = found.target
            if target is not None and target not in hops and tree.is_file(target):
                hops[target] = hops[current] + 1
                queue.append(target)
    return hops


def memory_imports(tree: ProjectTree, options: Options) -> list[Found]:
    """``memoryImports``: every ``@path`` import resolves, no cycles, within ``maxDepth`` hops
    on the shortest chain; never reads outside the project."""
    root = options["claudeMdFile"]
    if not tree.is_file(root):
        return []
    hops = import_hops(tree, root, options)
    max_depth = options["maxDepth"]
    found: list[Found] = []
    scanned: set[str] = set()

    def scan(path: str, chain: list[str]) -> None:
        scanned.add(path)
        chain.append(path)
        for item in imports_in(tree, path, options):
            target = item.target
            if target is None:
                found.append(
                    Found(
                        path,
                        item.line,
                        f"{path} imports @{item.text}, which leads out of the project; "
                        "it was not read",
                    )
                )
            elif target in chain:
                found.append(Found(path, item.line, f"{path} has a circular import: @{item.text}"))
            elif not tree.is_file(target):
                found.append(
                    Found(
                        path,
                        item.line,
                        f"{path} imports a missing file: @{item.text} (resolved to {target})",
                    )
                )
            elif hops.get(target, max_depth + 1) > max_depth:
                found.append(
                    Found(
                        path,
                        item.line,
                        f"{path} import @{item.text} is nested deeper than {max_depth} hops "
                        "and will not be loaded",
                    )
                )
            elif target not in scanned:
                problem = tree.read(target).problem
                if problem is not None:
                    found.append(Found(target, 0, problem))
                else:
                    scan(target, chain)
        chain.pop()

    scan(root, [])
    return found


# ---------------------------------------------------------------- context budget


def always_loaded(tree: ProjectTree, options: Options) -> list[str]:
    """CLAUDE.md and every file it imports within the loader's depth: what each session loads."""
    root = options["claudeMdFile"]
    if not tree.is_file(root):
        return []
    hops = import_hops(tree, root, options)
    return [path for path, depth in hops.items() if depth <= options["maxDepth"]]


def context_budget(tree: ProjectTree, options: Options) -> list[Found]:
    """``contextBudget``: bytes, lines and estimated tokens (4 characters each) of every
    always-loaded file and every ``.claude/**`` definition, against the configured budgets."""
    paths = list(
        dict.fromkeys(
            [
                *always_loaded(tree, options),
                *(p for p in options["files"] if tree.is_file(p)),
                *(p for directory in options["directories"] for p in tree.walk(directory, ".md")),
            ]
        )
    )
    max_bytes, max_lines, max_tokens = (
        options["maxBytes"],
        options["maxLines"],
        options["maxTokens"],
    )
    found: list[Found] = []
    for path in paths:
        if not tree.is_file(path):
            continue
        size = tree.size(path)
        if max_bytes > 0 and size > max_bytes:
            found.append(
                Found(path, 0, f"{path} is {size} bytes, over the {max_bytes}-byte budget")
            )
        if max_lines <= 0 and max_tokens <= 0:
            continue
        read = tree.read(path)
        if read.text is None:
            found.append(
                Found(
                    path,
                    0,
                    f"{path} cannot be read as text, so its line and token budgets "
                    "cannot be measured",
                )
            )
            continue
        lines = len(read.text.splitlines())
        if max_lines > 0 and lines > max_lines:
            found.append(
                Found(
                    path,
                    max_lines + 1,
                    f"{path} has {lines} lines, over the {max_lines}-line budget",
                )
            )
        tokens = (len(read.text) + 3) // 4
        if max_tokens > 0 and tokens > max_tokens:
            found.append(
                Found(
                    path,
                    0,
                    f"{path} is an estimated {tokens} tokens, over the {max_tokens}-token budget",
                )
            )
    return found


# ---------------------------------------------------------------- consistency


def cross_doc_consistency(tree: ProjectTree, options: Options) -> list[Found]:
    """``crossDocConsistency``: each pinned fact (a pattern's first group) is the same in
    CLAUDE.md and AGENTS.md, and present in both."""
    return _consistency(tree, options["claudeMdFile"], options["agentsMdFile"], options, True)


def readme_consistency(tree: ProjectTree, options: Options) -> list[Found]:
    """``readmeConsistency``: each pinned fact the README states agrees with the agent doc."""
    agent_doc = options["agentDocFile"] or (AGENTS_MD if tree.is_file(AGENTS_MD) else CLAUDE_MD)
    return _consistency(tree, options["readmeFile"], agent_doc, options, False)


def _consistency(
    tree: ProjectTree, first: str, second: str, options: Options, require_in_both: bool
) -> list[Found]:
    texts: list[FileText] = [tree.read(first), tree.read(second)]
    unreadable = [Found(t.path, 0, t.problem or "") for t in texts if t.text is None]
    if unreadable:
        return unreadable
    found: list[Found] = []
    for pattern in options["consistentPatterns"]:
        compiled = re.compile(pattern)
        values = []
        for text in texts:
            match = compiled.search(text.text or "")
            values.append(match.group(1) if match else None)
        if values[0] == values[1] or (not require_in_both and None in values):
            continue
        shown = [
            f"{name.rpartition('/')[2]}=" + ("<absent>" if value is None else f"'{value}'")
            for name, value in zip((first, second), values, strict=True)
        ]
        found.append(Found(first, 0, f"pattern '{pattern}' captured {shown[0]} but {shown[1]}"))
    return found


# ---------------------------------------------------------------- module map


_XML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_MODULE = re.compile(r"<module>\s*([^<]+?)\s*</module>")


def declares_modules(tree: ProjectTree, pom: str) -> bool:
    """Whether ``pom`` is an aggregator (names a ``<module>``), so there is a module map."""
    text = tree.read(pom).text if tree.is_file(pom) else None
    return bool(text and _MODULE.search(_XML_COMMENT.sub("", text)))


def module_map_consistency(tree: ProjectTree, options: Options) -> list[Found]:
    """``moduleMapConsistency``: every module the aggregator POM declares is named in each
    agent document (counting what it imports, so a CLAUDE.md importing AGENTS.md is covered
    by AGENTS.md's module map)."""
    pom = options["pomFile"]
    read = tree.read(pom)
    if read.text is None:
        return [Found(pom, 0, read.problem or f"{pom} cannot be read")]
    modules = [m.rpartition("/")[2] for m in _MODULE.findall(_XML_COMMENT.sub("", read.text))]
    found: list[Found] = []
    for doc in (d for d in options["docFiles"] if tree.is_file(d)):
        loaded = import_hops(tree, doc, {**options, "ignoredImports": []})
        content = "\n".join(tree.read(path).text or "" for path in loaded)
        for name in dict.fromkeys(modules):
            if name in options["ignoredModules"]:
                continue
            if not re.search(rf"(?<![A-Za-z0-9_-]){re.escape(name)}(?![A-Za-z0-9_-])", content):
                found.append(
                    Found(doc, 0, f"{doc} does not mention module '{name}' declared in {pom}")
                )
    return found


# ---------------------------------------------------------------- definitions


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


def parsed_front_matter(
    tree: ProjectTree, path: str, text: str
) -> FrontMatter | FrontMatterError | None:
    """The front matter of ``path`` (read once per run, shared by every rule that asks)."""
    key = ("front-matter", path)
    if key not in tree.derived:
        try:
            tree.derived[key] = read_front_matter(text)
        except FrontMatterError as error:
            tree.derived[key] = error
    found = tree.derived[key]
    assert found is None or isinstance(found, FrontMatter | FrontMatterError)
    return found


def _front_matter(
    tree: ProjectTree, text: str, path: str, label: str, required: bool
) -> tuple[FrontMatter | None, list[Found]]:
    front = parsed_front_matter(tree, path, text)
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
    return found


def skill_files_exist(tree: ProjectTree, options: Options) -> list[Found]:
    """``skillFilesExist``: each skill directory has a SKILL.md with valid front matter
    (``name`` = directory name, kebab-case; a description within the length limit)."""
    found: list[Found] = []
    for directory in tree.subdirectories(options["skillsDir"]):
        path = join(directory, SKILL_FILE)
        if not tree.is_file(path) and not tree.escapes(path):
            found.append(
                Found(directory, 0, f"Missing {SKILL_FILE} in skill directory: {directory}")
            )
            continue
        text, problems = _definition_text(tree, path, SKILL_FILE)
        found += problems
        if text is None:
            continue
        front, problems = _front_matter(tree, text, path, SKILL_FILE, required=True)
        found += problems
        if front is not None:
            found += _front_matter_checks(
                front,
                path,
                SKILL_FILE,
                options,
                expected_name=directory.rpartition("/")[2],
                max_description=options["maxDescriptionLength"],
            )
    return found


def sub_agent_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``subAgentFormat``: each ``.claude/agents/*.md`` has front matter with the required
    keys, ``name`` = file name (kebab-case), a description, an allowed model."""
    found: list[Found] = []
    for path in tree.files(options["agentsDir"], ".md"):
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
                expected_name=path.rpartition("/")[2].removesuffix(".md"),
                max_description=0,
            )
    return found


def command_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``commandFormat``: each ``.claude/commands/*.md`` is named in kebab-case; its optional
    front matter is well formed, with allowed keys, a description and an allowed model."""
    found: list[Found] = []
    for path in tree.files(options["commandsDir"], ".md"):
        base = path.rpartition("/")[2].removesuffix(".md")
        text, problems = _definition_text(tree, path, "Command definition")
        found += problems
        if text is None:
            continue
        found += name_findings(base, base, path, 0)
        front, problems = _front_matter(tree, text, path, "Command definition", required=False)
        found += problems
        if front is not None:
            found += _front_matter_checks(
                front, path, "Command", options, expected_name=None, max_description=0
            )
    return found


def _definitions(tree: ProjectTree, options: Options) -> list[tuple[str, str, str]]:
    """``(definition file, source, name)`` for every command, sub-agent and skill."""
    found: list[tuple[str, str, str]] = []
    for directory in (options["commandsDir"], options["agentsDir"]):
        for path in tree.files(directory, ".md"):
            found.append((path, path, path.rpartition("/")[2].removesuffix(".md")))
    for directory in tree.subdirectories(options["skillsDir"]):
        found.append((join(directory, SKILL_FILE), directory, directory.rpartition("/")[2]))
    return found


def _duplicates(claims: Sequence[tuple[str, str, str]], what: str) -> list[Found]:
    by_key: dict[str, tuple[str, list[str]]] = {}
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
    """``uniqueNames``: no two commands, sub-agents or skills share a name."""
    return _duplicates([(n, n, s) for _, s, n in _definitions(tree, options)], "name")


def unique_descriptions(tree: ProjectTree, options: Options) -> list[Found]:
    """``uniqueDescriptions``: no two definitions share a description (case and spacing
    ignored), since Claude picks a definition by its description."""
    claims = []
    for path, source, _ in _definitions(tree, options):
        read = tree.read(path) if tree.is_file(path) else None
        if read is None or read.text is None:
            continue
        front = parsed_front_matter(tree, path, read.text)
        value = front.value("description") if isinstance(front, FrontMatter) else None
        if value and value.strip():
            claims.append((" ".join(value.lower().split()), value, source))
    return _duplicates(claims, "description")


_PLUGIN_VERSION = re.compile(r"\d+(\.\d+){0,2}(-[A-Za-z0-9.-]+)?(\+[A-Za-z0-9.-]+)?")


def plugin_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``pluginFormat``: ``.claude-plugin/plugin.json`` has the required keys, a kebab-case
    name, a dotted version and a non-empty description."""
    path = options["pluginFile"]
    manifest, found = _json_object(tree, path, "plugin.json")
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


# ---------------------------------------------------------------- .mcp.json


def _json_object(
    tree: ProjectTree, path: str, label: str
) -> tuple[dict[str, Any] | None, list[Found]]:
    read = tree.read(path)
    if read.text is None:
        return None, [Found(path, 0, read.problem or f"{label} cannot be read")]
    try:
        value = json.loads(read.text)
    except json.JSONDecodeError as error:
        return None, [Found(path, error.lineno, f"{label} is not valid JSON: {error.msg}")]
    except RecursionError:
        return None, [Found(path, 0, f"{label} is not valid JSON: nested too deeply")]
    if not isinstance(value, dict):
        return None, [Found(path, 1, f"{label} is not valid JSON: expected a JSON object")]
    return value, []


def _line_of(tree: ProjectTree, path: str, key: str) -> int:
    """The first line that mentions ``"key"`` (JSON keeps no positions; good enough to land a
    reader on the server)."""
    text = tree.read(path).text or ""
    needle = json.dumps(key)
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    return 0


def _servers(
    tree: ProjectTree, path: str, found: list[Found], *, required: bool
) -> dict[str, Any] | None:
    config, problems = _json_object(tree, path, "mcp.json")
    found += problems
    if config is None:
        return None
    if "mcpServers" not in config:
        if required:
            found.append(Found(path, 1, "mcp.json is missing the 'mcpServers' object"))
        return None
    servers = config["mcpServers"]
    if not isinstance(servers, dict):
        found.append(
            Found(
                path,
                _line_of(tree, path, "mcpServers"),
                "mcp.json 'mcpServers' must be a JSON object",
            )
        )
        return None
    return servers


def _server(tree: ProjectTree, path: str, name: str, problem: str) -> Found:
    return Found(path, _line_of(tree, path, name), f"mcp.json server '{name}' {problem}")


def mcp_servers_valid(tree: ProjectTree, options: Options) -> list[Found]:
    """``mcpServersValid``: each server is an object well formed for its transport (stdio
    needs a ``command``; sse/http a ``url``), an unknown ``type`` is reported, and the
    required/forbidden servers are honoured."""
    path = options["mcpFile"]
    found: list[Found] = []
    servers = _servers(tree, path, found, required=True)
    if servers is None:
        return found
    allowed = options["allowedTypes"] or ["stdio", "sse", "http"]
    for name, server in servers.items():
        if not isinstance(server, dict):
            found.append(_server(tree, path, name, "must be a JSON object"))
            continue
        if "type" in server and not isinstance(server["type"], str):
            found.append(_server(tree, path, name, "has a 'type' that is not a string"))
            continue
        kind = str(server.get("type", "")).strip()
        if not kind:
            if "command" in server:
                found += _command_problem(tree, path, name, server)
            else:
                found.append(
                    _server(
                        tree,
                        path,
                        name,
                        "must declare a 'command' (stdio) or a 'type' with a 'url' (sse/http)",
                    )
                )
        elif kind not in allowed:
            found.append(_server(tree, path, name, f"has an unsupported type: {kind}"))
        elif kind == "stdio":
            found += _command_problem(tree, path, name, server)
        elif "url" in server and not isinstance(server["url"], str):
            found.append(_server(tree, path, name, "has a 'url' that is not a string"))
        elif not str(server.get("url", "")).strip():
            found.append(_server(tree, path, name, f"({kind}) is missing a 'url'"))
    found += [
        Found(path, 1, f"mcp.json is missing required server: {name}")
        for name in options["requiredServers"]
        if name not in servers
    ]
    found += [
        Found(path, _line_of(tree, path, name), f"mcp.json contains forbidden server: {name}")
        for name in options["forbiddenServers"]
        if name in servers
    ]
    return found


def _command_problem(
    tree: ProjectTree, path: str, name: str, server: dict[str, Any]
) -> list[Found]:
    if "command" in server and not isinstance(server["command"], str):
        return [_server(tree, path, name, "has a 'command' that is not a string")]
    if not str(server.get("command", "")).strip():
        return [_server(tree, path, name, "(stdio) is missing a 'command'")]
    return []


_EXPANSION = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*")
_URL = re.compile(r"(?i)(https?)://([^/?#\s]+)[^\s]*")


def mcp_config_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``mcpConfigFormat``: not both ``command`` and ``url``; ``args`` a list of strings;
    ``env``/``headers`` maps of strings; a well-formed (optionally https) ``url``."""
    path = options["mcpFile"]
    found: list[Found] = []
    servers = _servers(tree, path, found, required=False)
    if servers is None:
        return found
    for name, server in servers.items():
        if not isinstance(server, dict):
            continue
        if "command" in server and "url" in server:
            found.append(_server(tree, path, name, "declares both a 'command' and a 'url'"))
        args = server.get("args")
        if "args" in server and not isinstance(args, list):
            found.append(_server(tree, path, name, "has an 'args' that is not an array"))
        elif isinstance(args, list):
            found += [
                _server(tree, path, name, "has a non-string entry in 'args'")
                for arg in args
                if not isinstance(arg, str)
            ]
        for key in ("env", "headers"):
            mapping = server.get(key)
            if key in server and not isinstance(mapping, dict):
                found.append(_server(tree, path, name, f"has a '{key}' that is not an object"))
            elif isinstance(mapping, dict):
                found += [
                    _server(tree, path, name, f"has a non-string value for '{key}.{field}'")
                    for field, value in mapping.items()
                    if not isinstance(value, str)
                ]
        if "url" in server and not isinstance(server["url"], str):
            found.append(_server(tree, path, name, "has a 'url' that is not a string"))
            continue
        url = server.get("url")
        if not isinstance(url, str) or _EXPANSION.search(url):
            continue
        match = _URL.fullmatch(url.strip())
        if match is None:
            found.append(_server(tree, path, name, f"has a malformed 'url': {url}"))
        elif options["requireHttps"] and match.group(1).lower() != "https":
            found.append(_server(tree, path, name, f"must use an https 'url': {url}"))
    return found


# ---------------------------------------------------------------- .claude/settings.json


_PERMISSION_LISTS = ("allow", "deny", "ask")
_PERMISSION_ENTRY = re.compile(r"(mcp__[A-Za-z0-9_-]+|[A-Za-z][A-Za-z0-9_]*)(\(.+\))?")


def _permission_entries(permissions: dict[str, Any], key: str) -> list[str]:
    entries = permissions.get(key)
    if not isinstance(entries, list):
        return []
    return list(dict.fromkeys(e for e in entries if isinstance(e, str)))


def _permissions(tree: ProjectTree, path: str, found: list[Found]) -> dict[str, Any] | None:
    settings, problems = _json_object(tree, path, "settings.json")
    found += problems
    if settings is None or "permissions" not in settings:
        return None
    if not isinstance(settings["permissions"], dict):
        found.append(
            Found(
                path,
                _line_of(tree, path, "permissions"),
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
    settings, problems = _json_object(tree, path, "settings.json")
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
            _line_of(tree, path, entry),
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
        line = _line_of(tree, path, entry) if entry else _line_of(tree, path, key)
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
            elif not _PERMISSION_ENTRY.fullmatch(entry):
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
            _line_of(tree, path, entry),
            f"settings.json permission '{entry}' appears in both 'allow' and 'deny'",
        )
        for entry in _permission_entries(permissions, "allow")
        if entry in denied
    ]
    for pattern in options["forbiddenEntryPatterns"]:
        compiled = re.compile(pattern)
        for entry in _permission_entries(permissions, "allow"):
            if compiled.fullmatch(entry):
                add("allow", f"entry '{entry}' matches forbidden pattern '{pattern}'", entry)
    return found


# ---------------------------------------------------------------- .gitignore


LOCAL_SETTINGS = ".claude/settings.local.json"


def _gitignore_regex(glob: str) -> re.Pattern[str]:
    anchored = "/" in glob
    body = glob.removeprefix("/")
    parts: list[str] = []
    index = 0
    while index < len(body):
        if body.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif body.startswith("**", index):
            parts.append(".*")
            index += 2
        else:
            char = body[index]
            parts.append("[^/]*" if char == "*" else "[^/]" if char == "?" else re.escape(char))
            index += 1
    return re.compile(("^" if anchored else "^(?:.*/)?") + "".join(parts) + "$")


def gitignore_covers(gitignore: str, path: str) -> bool:
    """Whether ``.gitignore`` text ignores ``path`` (``/``-separated, repository-relative), or
    one of its directories: comments, ``!`` negation, a trailing ``/`` for directories,
    anchoring by ``/``, and ``*``, ``?``, ``**`` globs; the last matching line wins."""
    rules = []
    for raw in gitignore.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        pattern = line[1:] if negated else line
        directory_only = pattern.endswith("/")
        rules.append((negated, directory_only, _gitignore_regex(pattern.rstrip("/"))))

    def ignored(candidate: str, is_directory: bool) -> bool:
        verdict = False
        for negated, directory_only, regex in rules:
            if (is_directory or not directory_only) and regex.match(candidate):
                verdict = not negated
        return verdict

    ancestors = [path[:i] for i, char in enumerate(path) if char == "/"]
    return ignored(path, False) or any(ignored(a, True) for a in ancestors)


def local_settings_ignored(tree: ProjectTree, options: Options) -> list[Found]:
    """``localSettingsIgnored``: ``.gitignore`` covers each personal settings path (by default
    ``.claude/settings.local.json``), so nobody commits their own permissions."""
    path = options["gitignoreFile"]
    read = tree.read(path)
    if read.text is None:
        return [Found(path, 0, read.problem or f"{path} cannot be read")]
    found = []
    for wanted in options["ignoredPaths"]:
        normal = wanted.replace("\\", "/").removeprefix("./").removeprefix("/")
        if not gitignore_covers(read.text, normal):
            found.append(Found(path, 0, f"{path} does not cover: {normal}"))
    return found


# ---------------------------------------------------------------- hooks


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
    settings, found = _json_object(tree, path, "settings.json")
    if settings is None or "hooks" not in settings:
        return found
    hooks = settings["hooks"]
    if not isinstance(hooks, dict):
        return [
            Found(
                path, _line_of(tree, path, "hooks"), "settings.json 'hooks' must be a JSON object"
            )
        ]

    def add(event: str, problem: str) -> None:
        found.append(Found(path, _line_of(tree, path, event), f"hook event '{event}' {problem}"))

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
    settings, problems = _json_object(tree, settings_path, "settings.json")
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
                        _line_of(tree, settings_path, script.rpartition("/")[2]),
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


# ---------------------------------------------------------------- OKF bundle


_OKF_STATUSES = ("draft", "stable", "deprecated")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_GENERATED_BY = re.compile(r"\bby\s*:\s*\S")
_LOG_HEADING = re.compile(r"##\s+(.*)")


def _is_date(value: str) -> bool:
    if not _ISO_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def okf_bundle_format(tree: ProjectTree, options: Options) -> list[Found]:
    """``okfBundleFormat``: concept documents declare a ``type`` (and valid status, dates,
    generator); ``index.md`` carries no front matter but the root's ``okf_version``;
    ``log.md`` headings are ISO dates; optionally every concept directory has an index."""
    bundle = options["bundleDir"]
    documents = tree.walk(bundle, ".md")
    found: list[Found] = []
    for path in documents:
        name = path[len(bundle) + 1 :]
        read = tree.read(path)
        if read.text is None:
            found.append(Found(path, 0, f"{name} could not be read as UTF-8 text ({read.problem})"))
            continue
        try:
            front = read_front_matter(read.text)
        except FrontMatterError as error:
            found.append(
                Found(path, error.line, f"{name} has malformed YAML frontmatter ({error})")
            )
            continue
        base = name.rpartition("/")[2]
        if base == "index.md":
            if front is None:
                continue
            if name != "index.md":
                found.append(
                    Found(
                        path,
                        1,
                        f"{name} carries frontmatter; only a bundle-root "
                        "index.md may declare 'okf_version'",
                    )
                )
                continue
            found += [
                Found(
                    path,
                    front.line_of(key),
                    f"{name} declares '{key}'; a bundle-root "
                    "index.md may declare only 'okf_version'",
                )
                for key in dict.fromkeys(front.keys())
                if key != "okf_version"
            ]
        elif base == "log.md":
            document = MarkdownDocument.read(read.text)
            for index in document.headings():
                match = _LOG_HEADING.fullmatch(document.lines[index].heading or "")
                if match and not _is_date(match.group(1).strip()):
                    found.append(
                        Found(
                            path,
                            index + 1,
                            f"{name} groups entries under "
                            f"'{match.group(1).strip()}', which is not an ISO 8601 date",
                        )
                    )
        else:
            found += _okf_concept(path, name, front, options)
    found += _okf_version(tree, bundle, documents, options)
    if options["requireIndex"]:
        indexed = {p.rpartition("/")[0] for p in documents if p.endswith("/index.md")}
        concept_dirs = dict.fromkeys(
            p.rpartition("/")[0]
            for p in documents
            if p.rpartition("/")[2] not in ("index.md", "log.md")
        )
        for directory in concept_dirs:
            if directory not in indexed:
                label = directory[len(bundle) + 1 :] or "The bundle root"
                found.append(Found(directory, 0, f"{label} holds concepts but no index.md"))
    return found


def _okf_concept(path: str, name: str, front: FrontMatter | None, options: Options) -> list[Found]:
    if front is None:
        return [Found(path, 1, f"{name} has no parseable YAML frontmatter block")]
    found = []
    if not (front.value("type") or "").strip():
        found.append(
            Found(path, 1, f"{name} declares no non-empty 'type', the one mandatory OKF field")
        )
    found += [
        Found(path, front.line_of(key), f"{name} declares '{key}' more than once")
        for key in front.duplicate_keys()
    ]
    found += [
        Found(path, 1, f"{name} declares no non-empty '{key}'")
        for key in options["requiredKeys"]
        if not (front.value(key) or "").strip()
    ]
    status = front.value("status")
    if status is not None and status.lower() not in _OKF_STATUSES:
        found.append(
            Found(
                path,
                front.line_of("status"),
                f"{name} declares an unknown 'status': "
                f"{status} (expected draft, stable or deprecated)",
            )
        )
    stale = front.value("stale_after")
    if stale is not None and not _is_date(stale):
        found.append(
            Found(
                path,
                front.line_of("stale_after"),
                f"{name} declares a 'stale_after' that is not an ISO 8601 date: {stale}",
            )
        )
    generated = front.value("generated")
    if generated is not None and not _GENERATED_BY.search(generated):
        found.append(
            Found(
                path,
                front.line_of("generated"),
                f"{name} declares a 'generated' without the actor that produced it: {generated}",
            )
        )
    return found


def _okf_version(
    tree: ProjectTree, bundle: str, documents: list[str], options: Options
) -> list[Found]:
    expected = (options["okfVersion"] or "").strip()
    if not expected:
        return []
    root = join(bundle, "index.md")
    if root not in documents:
        return [
            Found(
                bundle,
                0,
                "The bundle declares no index.md at its root, so it cannot "
                f"declare 'okf_version: {expected}'",
            )
        ]
    try:
        front = read_front_matter(tree.read(root).text or "")
    except FrontMatterError:
        front = None
    declared = (front.value("okf_version") if front else None) or ""
    if declared == expected:
        return []
    return [
        Found(
            root, 1, f"index.md declares 'okf_version: {declared}' but the build expects {expected}"
        )
    ]


# ---------------------------------------------------------------- secrets


CREDENTIAL_PATTERNS: tuple[tuple[str, re.Pattern[str], tuple[str, ...]], ...] = (
    # name, pattern, and literals one of which every match contains (a cheap first test)
    ("Anthropic API key", re.compile(r"sk-ant-[A-Za-z0-9_-]{16,}"), ("sk-ant-",)),
    (
        "AWS access key ID",
        re.compile(r"(?<![A-Z0-9])AKIA[0-9A-Z]{16}(?![A-Z0-9])"),
        ("AKIA",),
    ),
    (
        "GitHub token",
        re.compile(r"(?<![A-Za-z0-9])gh[pousr]_[A-Za-z0-9]{36,}"),
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
    ),
    ("GitHub fine-grained token", re.compile(r"github_pat_[A-Za-z0-9_]{22,}"), ("github_pat_",)),
    (
        "Slack token",
        re.compile(r"xox[abpr]-[A-Za-z0-9-]{10,}"),
        ("xoxa-", "xoxb-", "xoxp-", "xoxr-"),
    ),
    ("private key block", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"), ("PRIVATE KEY-----",)),
)


def no_secrets(tree: ProjectTree, options: Options) -> list[Found]:
    """``noSecrets``: no credential-shaped text in the agent documents, settings, ``.mcp.json``
    or definition and hook files (the match is shown masked)."""
    patterns = list(CREDENTIAL_PATTERNS) if options["useDefaultPatterns"] else []
    patterns += [(p, re.compile(p), ()) for p in options["secretPatterns"]]
    paths = [p for p in options["files"] if tree.is_file(p) or tree.escapes(p)]
    for directory in options["directories"]:
        paths += tree.walk(directory, "")
    found: list[Found] = []
    for path in dict.fromkeys(paths):
        read = tree.read(path)
        if read.text is None:
            if read.problem and "binary" not in read.problem:
                found.append(Found(path, 0, f"{read.problem}, so it was not scanned for secrets"))
            continue
        # Most files hold no secret: one search over the whole text rules a pattern out.
        text = read.text
        present = [
            (label, pattern)
            for label, pattern, literals in patterns
            if (not literals or any(literal in text for literal in literals))
            and pattern.search(text)
        ]
        if not present:
            continue
        for number, line in enumerate(read.text.splitlines(), start=1):
            for label, pattern in present:
                for match in pattern.finditer(line):
                    found.append(
                        Found(
                            path,
                            number,
                            f"{path} contains what looks like a {label}: {match.group()[:8]}...",
                        )
                    )
    return found


RuleFunction = Callable[[ProjectTree, Options], list[Found]]
