"""Usages: the files that depend on a file or one of its declarations, most using first.

The reverse of the dependency graph the resolver already holds. A user of one declaration is
a file whose references its language resolved to that declaration (by qualified name, so an
enum variant or a method call spelled like the type is no use of it); a member (a method, a
field) is named after a dot, which no resolver follows, so its users are the files spelling
it. The lines of a use come from the user's syntax tree: identifier nodes spelling a name the
target declares (comments and string literals hold no identifier nodes, so they never count).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import tree_sitter

from context_server.core.facts import Declaration, Edge
from context_server.core.index import Edit, ProjectIndex, carry_edited, carry_relinked
from context_server.core.languages import dialect, family_of
from context_server.core.walk import sort_key


@dataclass(frozen=True, slots=True)
class Usage:
    """A file using the target: how its dependency was resolved (``rule``) and how often it
    uses the target (0: named only by an import)."""

    path: str
    language: str
    rule: str
    uses: int


def users(
    index: ProjectIndex,
    target: str,
    declaration: Declaration | None,
    member: bool,
    read: Callable[[str], str],
) -> list[Usage]:
    """Every file depending on ``target``, most uses first, then by path.

    With ``declaration`` (one declaration of a file holding several), a user of the file
    counts only if its code resolves a name to that declaration, as often as it does; for a
    ``member``, only if its code spells the member's name, as often as it does (``read``
    gives a file's text).
    """
    found: list[Usage] = []
    for path, edge in reverse_edges(index).get(target, ()):
        uses = edge.uses
        if declaration is not None and member:
            uses = len(occurrences(index, path, {declaration.simple_name}, read))
            if uses == 0:
                continue
        elif declaration is not None:
            used = used_symbols(index, path).get(target, {})
            if declaration.qualified_name not in used:
                continue
            uses = used[declaration.qualified_name]
        found.append(Usage(path, index.sources[path].language, edge.rule, uses))
    found.sort(key=lambda usage: -usage.uses)
    return found


def used_symbols(index: ProjectIndex, path: str) -> Mapping[str, Mapping[str, int]]:
    """Per dependency of ``path``, the declarations (qualified names) its code uses and how
    often: the file linked once more (the stored graph keeps only the edges), then kept with
    the index."""
    found = index.derived(
        "used symbols", dict[tuple[str, ...], Mapping[str, Mapping[str, int]]], carry_relinked
    )
    used = found.get((path,))
    if used is None:
        used = found[(path,)] = index.resolver.details(path).symbols
    return used


def reverse_edges(index: ProjectIndex) -> dict[str, list[tuple[str, Edge]]]:
    """Every file's users with the edge each depends on it by, users in path order: the
    dependency graph reversed once per index, so that a question about users reads only
    the answer's own edges."""

    def users_of(paths: Iterable[str]) -> dict[str, list[tuple[str, Edge]]]:
        reverse: dict[str, list[tuple[str, Edge]]] = {}
        for path in paths:
            seen: set[str] = set()
            for edge in index.resolver.direct(path).edges:
                if edge.target != path and edge.target not in seen:
                    seen.add(edge.target)
                    reverse.setdefault(edge.target, []).append((path, edge))
        return reverse

    def build() -> dict[str, list[tuple[str, Edge]]]:
        return users_of(sorted(index.sources, key=sort_key))

    def carry(
        reverse: dict[str, list[tuple[str, Edge]]], edit: Edit
    ) -> dict[str, list[tuple[str, Edge]]]:
        # only the users of what the files linked again depended on before or do now move
        relinked = edit.relinked
        carried = dict(reverse)
        now = users_of(relinked)
        moved = set(now)
        for path in relinked:
            moved.update(edit.dependencies[path])
        for target in moved:
            kept = [pair for pair in carried.get(target, ()) if pair[0] not in relinked]
            kept += now.get(target, [])
            kept.sort(key=lambda pair: sort_key(pair[0]))
            if kept:
                carried[target] = kept
            else:
                carried.pop(target, None)
        return carried

    return index.derived("reverse edges", build, carry)


def target_names(
    index: ProjectIndex, target: str, declaration: Declaration | None
) -> tuple[str, ...]:
    """The names a user spells to use the target: the declaration's, or those of every
    top-level declaration of the file (and those its language adds: a Python module's own name)."""
    if declaration is not None:
        return (declaration.simple_name,)
    facts = index.sources[target]
    names = {d.simple_name for d in facts.declarations if not d.nested}
    names.update(family_of(facts.language).user_names(facts))
    return tuple(sorted(names))


def occurrences(
    index: ProjectIndex, path: str, names: Iterable[str], read: Callable[[str], str]
) -> list[int]:
    """The 1-based lines of ``path`` where code spells one of ``names`` as an identifier,
    one entry per identifier (``read`` gives a file's text). Kept with the index: a warm
    question about the same names parses nothing again."""
    wanted = tuple(sorted(set(names)))
    found = index.derived("occurrences", dict[tuple[str, ...], list[int]], carry_edited)
    key = (path, *wanted)
    lines = found.get(key)
    if lines is None:
        lines = found[key] = _occurrences(index, path, wanted, read(path))
    return lines


def _occurrences(index: ProjectIndex, path: str, names: Iterable[str], text: str) -> list[int]:
    wanted = {name.encode("utf-8") for name in names}
    language = dialect(index.sources[path].language)
    source = text.encode("utf-8")
    tree = language.parse(source).tree
    lines: list[int] = []
    cursor: tree_sitter.TreeCursor = tree.walk()
    visited_children = False
    while True:
        node = cursor.node
        if not visited_children and node is not None:
            if (
                node.child_count == 0
                and node.type.endswith("identifier")
                and source[node.start_byte : node.end_byte] in wanted
            ):
                lines.append(node.start_point[0] + 1)
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            break
    return lines
