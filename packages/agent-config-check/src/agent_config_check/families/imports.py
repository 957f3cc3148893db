"""The ``@path`` memory imports Claude Code follows, and the context budget of what they load
into every session (``memoryImports``, ``contextBudget``)."""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from agent_config_check.collection import collect
from agent_config_check.document_format import without_code_spans
from agent_config_check.family import (
    CLAUDE_MD,
    DEFINITION_DIRS,
    Found,
    Options,
    Rule,
    RuleFamily,
    has_file,
)
from agent_config_check.markdown import MarkdownDocument
from agent_config_check.tree import ProjectTree

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
            found.append(Import(text, number, tree.resolve(base, text)))
    return found


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
    """``memoryImports``: every ``@path`` import of the root CLAUDE.md and of every nested
    CLAUDE.md and CLAUDE.local.md resolves, without cycles, within ``maxDepth`` hops on the
    shortest chain; never reads outside the project."""
    roots = [options["claudeMdFile"]] if tree.is_file(options["claudeMdFile"]) else []
    roots += [
        path
        for path in collect(tree).memory
        if path.rpartition("/")[2] in ("CLAUDE.md", "CLAUDE.local.md") and path not in roots
    ]
    max_depth = options["maxDepth"]
    found: list[Found] = []
    scanned: set[str] = set()
    hops: dict[str, int] = {}

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

    for root in roots:
        if root not in scanned and tree.is_file(root):
            hops = import_hops(tree, root, options)
            scan(root, [])
    return found


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


DEFAULT_BUDGET_BYTES = 32768
"""32 KiB: CLAUDE.md (and what it imports) is loaded into every session."""
IMPORT_DEFAULTS: Options = {
    "claudeMdFile": CLAUDE_MD,
    "maxDepth": 5,
    "ignoredImports": [],
    "importExtensions": ["md", "markdown", "txt"],
}
"""How imports are followed: the options every rule that follows them shares."""

IMPORT_RULES = RuleFamily(
    "imports",
    (
        Rule(
            "memoryImports",
            "@path imports resolve inside the project, without cycles, within five hops",
            memory_imports,
            dict(IMPORT_DEFAULTS),
            lambda tree, options: (
                has_file("claudeMdFile")(tree, options) or bool(collect(tree).memory)
            ),
        ),
        Rule(
            "contextBudget",
            "always-loaded files and .claude definitions fit the byte, line and token budgets",
            context_budget,
            {
                **IMPORT_DEFAULTS,
                "maxBytes": DEFAULT_BUDGET_BYTES,
                "maxLines": 0,
                "maxTokens": 0,
                "files": [],
                "directories": list(DEFINITION_DIRS),
            },
            lambda tree, options: (
                (options["maxBytes"] or options["maxLines"] or options["maxTokens"]) > 0
            ),
        ),
    ),
)
"""The ``@path`` memory imports and what they load into every session."""
