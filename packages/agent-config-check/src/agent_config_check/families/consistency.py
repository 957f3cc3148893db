"""Facts the agent documents must agree on: the Maven module map and facts pinned by a pattern
(``moduleMapConsistency``, ``crossDocConsistency``, ``readmeConsistency``)."""

from __future__ import annotations

import re

from agent_config_check.budget import BudgetSpentError, over_budget
from agent_config_check.families.imports import IMPORT_DEFAULTS, import_hops
from agent_config_check.family import (
    AGENTS_MD,
    CLAUDE_MD,
    README,
    Applies,
    Found,
    Options,
    Rule,
    RuleFamily,
)
from agent_config_check.linear_regex import compile_pattern
from agent_config_check.tree import FileText, ProjectTree


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
        # From the repository's configuration: linear-time matching only, on the run's
        # budget, recording the one group the rule compares.
        compiled = compile_pattern(pattern, 1, tree.budget)
        values = []
        try:
            for text in texts:
                body = text.text or ""
                match = compiled.search(body) if compiled.contains(body) else None
                values.append(match.group(1) if match else None)
        except BudgetSpentError as error:
            where = f"{first} and {second}"
            found.append(Found(first, 0, over_budget(f"pattern '{pattern}'", where, error)))
            continue
        if values[0] == values[1] or (not require_in_both and None in values):
            continue
        shown = [
            f"{name.rpartition('/')[2]}=" + ("<absent>" if value is None else f"'{value}'")
            for name, value in zip((first, second), values, strict=True)
        ]
        found.append(Found(first, 0, f"pattern '{pattern}' captured {shown[0]} but {shown[1]}"))
    return found


def _without_xml_comments(text: str) -> str:
    """``text`` without its ``<!-- -->`` comments (an unclosed one hides the rest), in one
    pass."""
    kept: list[str] = []
    position = 0
    while (opened := text.find("<!--", position)) >= 0:
        kept.append(text[position:opened])
        closed = text.find("-->", opened + 4)
        if closed < 0:
            return "".join(kept)
        position = closed + 3
    kept.append(text[position:])
    return "".join(kept)


def _modules(text: str) -> list[str]:
    """The ``<module>`` values of a POM (comments ignored), in one pass."""
    found: list[str] = []
    body = _without_xml_comments(text)
    position = 0
    while (opened := body.find("<module>", position)) >= 0:
        start = opened + len("<module>")
        end = body.find("<", start)
        if end < 0:
            break
        value = body[start:end].strip()
        if body.startswith("</module>", end) and value:
            found.append(value)
        position = end
    return found


def _mentions(content: str, name: str) -> bool:
    """Whether ``name`` occurs in ``content`` as a whole word (module names hold hyphens)."""
    word = re.compile(r"[A-Za-z0-9_-]")
    position = 0
    while (found := content.find(name, position)) >= 0:
        before = content[found - 1 : found]
        after = content[found + len(name) : found + len(name) + 1]
        if not word.fullmatch(before or " ") and not word.fullmatch(after or " "):
            return True
        position = found + 1
    return False


def declares_modules(tree: ProjectTree, pom: str) -> bool:
    """Whether ``pom`` is an aggregator (names a ``<module>``), so there is a module map."""
    text = tree.read(pom).text if tree.is_file(pom) else None
    return bool(text and _modules(text))


def module_map_consistency(tree: ProjectTree, options: Options) -> list[Found]:
    """``moduleMapConsistency``: every module the aggregator POM declares is named in each
    agent document (counting what it imports, so a CLAUDE.md importing AGENTS.md is covered
    by AGENTS.md's module map)."""
    pom = options["pomFile"]
    read = tree.read(pom)
    if read.text is None:
        return [Found(pom, 0, read.problem or f"{pom} cannot be read")]
    modules = [module.rpartition("/")[2] for module in _modules(read.text)]
    found: list[Found] = []
    for doc in (d for d in options["docFiles"] if tree.is_file(d)):
        loaded = import_hops(tree, doc, {**options, "ignoredImports": []})
        content = "\n".join(tree.read(path).text or "" for path in loaded)
        for name in dict.fromkeys(modules):
            if name in options["ignoredModules"]:
                continue
            if not _mentions(content, name):
                found.append(
                    Found(doc, 0, f"{doc} does not mention module '{name}' declared in {pom}")
                )
    return found


def _patterns_and(key: str, other: str) -> Applies:
    return lambda tree, options: (
        bool(options["consistentPatterns"])
        and all(tree.is_file(options[k]) for k in (key, other) if options[k])
    )


CONSISTENCY_RULES = RuleFamily(
    "consistency",
    (
        Rule(
            "moduleMapConsistency",
            "every module of an aggregator pom.xml is named in the agent documents",
            module_map_consistency,
            {
                **IMPORT_DEFAULTS,
                "pomFile": "pom.xml",
                "docFiles": [CLAUDE_MD, AGENTS_MD],
                "ignoredModules": [],
            },
            lambda tree, options: declares_modules(tree, options["pomFile"]),
        ),
        Rule(
            "crossDocConsistency",
            "facts pinned by a pattern agree between CLAUDE.md and AGENTS.md",
            cross_doc_consistency,
            {"claudeMdFile": CLAUDE_MD, "agentsMdFile": AGENTS_MD, "consistentPatterns": []},
            _patterns_and("claudeMdFile", "agentsMdFile"),
        ),
        Rule(
            "readmeConsistency",
            "facts pinned by a pattern agree between the README and the agent guide",
            readme_consistency,
            {"readmeFile": README, "agentDocFile": "", "consistentPatterns": []},
            _patterns_and("readmeFile", "agentDocFile"),
        ),
    ),
)
"""Facts the documents must agree on: the module map, pinned patterns."""
