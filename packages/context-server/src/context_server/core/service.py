"""ContextService: the plain Python API the MCP tools adapt.

It confines every path, indexes through the shared cache, finds a target by simple name,
qualified name or file path, and selects dependencies in priority order within a budget.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from mcp_common import AllowedPaths, ErrorCode, ToolError

from context_server.core.facts import Alternative, Ambiguity, Declaration, Edge, Linked
from context_server.core.index import (
    Edit,
    IndexCache,
    ProjectIndex,
    carry_edited,
    carry_relinked,
    read_source,
)
from context_server.core.languages import LANGUAGES, dialect, family_of, select_languages
from context_server.core.outline import outline, render_signatures
from context_server.core.repo_map import RepoMap, RepoMapper
from context_server.core.tokens import budget_fill, counter
from context_server.core.usages import Usage, occurrences, target_names, users
from context_server.core.walk import is_test_source, sort_key

MIN_DEPTH = 1
MAX_DEPTH = 10
DETAILS: tuple[str, ...] = ("full", "signatures")
"""How much of a file's text an answer carries: all of it, or its outline of signatures."""

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SelectedFile:
    """A file of a context selection: path, BFS level (0 = the target), token cost.

    ``rule`` and ``uses`` describe the edge that reached a dependency (how it was resolved
    and how often the file before it uses it; 0 = named only by an import, as for
    documentation). ``symbol`` and ``lines`` narrow a target to one declaration of its file,
    whose ``tokens`` then count that declaration only.
    """

    path: str
    language: str
    level: int
    declarations: tuple[str, ...]
    tokens: int
    source: str | None = None
    rule: str = ""
    uses: int = 0
    symbol: str | None = None
    lines: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class TargetMatch:
    """The file a class name designates, the declaration chosen in it, and the others.

    ``member`` says the declaration is a member of a type (a method, field or function
    named ``Type#member``): an answer is then about its own span.
    """

    path: str
    declaration: Declaration | None
    others: tuple[str, ...]
    member: bool = False


@dataclass(frozen=True, slots=True)
class UsageSelection:
    """The answer to "who uses this": the target (a file, or one declaration of it) and the
    files depending on it, most using first."""

    target: str
    symbol: str | None
    users: list[Usage]
    names: tuple[str, ...]
    other_matches: tuple[str, ...] = ()


@dataclass(slots=True)
class ContextSelection:
    """The answer to "what does this class need": the target and its dependencies.

    ``dependencies`` is ordered by relevance: nearest level first, then the most used, files
    named only by an import last. ``omitted`` are those left out to fit the budget.
    """

    target: SelectedFile
    dependencies: list[SelectedFile]
    omitted: list[SelectedFile] = field(default_factory=list)
    ambiguous: tuple[Ambiguity, ...] = ()
    other_matches: tuple[str, ...] = ()
    alternatives: tuple[Alternative, ...] = ()
    notes: tuple[str, ...] = ()
    """What reading the target or resolving its names cut short (unbalanced ``#if``
    nesting, a re-export cycle, a long chain)."""

    @property
    def dependency_tokens(self) -> int:
        """Tokens of the kept dependencies (what the budget is charged with)."""
        return sum(item.tokens for item in self.dependencies)


class ContextService:
    """Indexing and context selection over confined project directories."""

    def __init__(self, allowed: AllowedPaths, cache: IndexCache | None = None) -> None:
        self.allowed = allowed
        self.cache = cache or IndexCache()
        self._maps = RepoMapper(allowed)

    def repo_map(
        self,
        index: ProjectIndex,
        token_budget: int,
        focus: Sequence[str] = (),
        tokenizer: str = "cl100k",
        check_cancelled: Callable[[], None] = lambda: None,
        max_chars: int | None = None,
        detail: str = "declarations",
    ) -> RepoMap:
        """The repository map of ``index`` within ``token_budget`` tokens of ``tokenizer``,
        ranked towards ``focus``, each entry showing ``detail`` of its file (see
        :class:`context_server.core.repo_map.RepoMapper`)."""
        return self._maps.build(
            index,
            counter(tokenizer),
            token_budget,
            focus,
            tokenizer,
            check_cancelled,
            max_chars,
            detail,
        )

    def index(
        self,
        path: str,
        language: str = "auto",
        check_cancelled: Callable[[], None] = lambda: None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ProjectIndex:
        """Index the project directory at ``path`` (confined to the allowed roots)."""
        try:
            languages = select_languages(language)
        except ValueError as exc:
            raise ToolError(str(exc), ErrorCode.INVALID_ARGUMENT) from exc
        root = self.allowed.resolve(path, kind="dir")
        boundary = max(
            (r for r in self.allowed.roots if root.is_relative_to(r)), key=lambda r: len(r.parts)
        )
        index = self.cache.build(root, languages, self.allowed, check_cancelled, progress, boundary)
        stats = index.statistics
        graph = "restored" if stats.graph_restored else "rebuilt"
        graph = f"relinked ({stats.relinked} files linked again)" if stats.relinked else graph
        graph = "reused" if stats.graph_reused else graph
        listed = "walked" if stats.walked else f"{stats.relisted} directories listed again"
        if stats.listing_restored:
            listed = f"listing restored from the index store, {listed}"
        # INFO when the index was built (parsed or read back from the store), DEBUG when it
        # came from memory: a log line for every call would drown the rest
        _log.log(
            logging.INFO if stats.parsed or stats.restored else logging.DEBUG,
            "indexed %s (%s): %d files parsed, %d reused, %d restored from the index store, "
            "graph %s, %d skipped",
            root,
            listed,
            stats.parsed,
            stats.reused,
            stats.restored,
            graph,
            len(index.problems),
        )
        return index

    def find_target(self, index: ProjectIndex, name: str) -> TargetMatch:
        """The file ``name`` designates, the declaration it names, and the other candidates.

        ``name`` is a simple type name (``Foo``), a qualified name (``a.b.Foo``), a file name
        (``Foo.java``), a root-relative path (``src/a/Foo.java``) or an absolute path inside
        the project; a nested type as ``Outer.Inner``; a member (method, field, function) as
        ``Type#member`` or ``Type.member``. Several candidates are ranked: top-level over
        nested, main sources over tests, shorter qualified name, then sorted path. A name
        that matches nothing raises ``not_found`` with close names (did you mean) or, for a
        file the index skipped, the reason it was skipped.
        """
        wanted = name.strip().replace("\\", "/").removeprefix("./")
        if os.path.isabs(wanted):
            real = Path(os.path.realpath(wanted))
            if real.is_relative_to(index.root):
                wanted = real.relative_to(index.root).as_posix()
        if "#" in wanted:
            owner, member = wanted.split("#", 1)
            return self._member(index, name.strip(), owner, member)
        matches = _matches(index, wanted)
        if not matches and "." in wanted.rsplit("/", 1)[-1]:
            owner, member = wanted.rsplit(".", 1)
            if _matches(index, owner):
                return self._member(index, name.strip(), owner, member)
        if not matches:
            raise ToolError(_not_found(index, name.strip(), wanted), ErrorCode.NOT_FOUND)
        ranked = sorted(matches, key=_rank)
        paths = list(dict.fromkeys(path for path, _ in ranked))
        return TargetMatch(paths[0], ranked[0][1], tuple(paths[1:]))

    def _member(self, index: ProjectIndex, shown: str, owner: str, member: str) -> TargetMatch:
        """The member ``member`` of the type (or file) ``owner``: its first definition (the
        others, e.g. overloads, as other matches) or ``not_found`` with close member names."""
        match = self.find_target(index, owner)
        facts = index.sources[match.path]
        items = outline(dialect(facts.language), self.text(index, match.path)).items
        scope = match.declaration.span if match.declaration is not None else None
        inside = [
            item
            for item in items
            if scope is None or (scope[0] <= item.span[0] and item.span[1] <= scope[1])
        ]
        # The owner's own outline entry has the owner's span; its members sit one level in.
        inside = [item for item in inside if scope is None or item.span[0] > scope[0]]
        direct = min((item.depth for item in inside), default=0)
        members = [item for item in inside if item.depth == direct]
        if match.declaration is not None:
            # Go methods and Rust ``impl`` blocks sit outside the type's own body.
            owner_name = match.declaration.simple_name
            members += [item for item in items if item.receiver == owner_name]
        chosen = [item for item in members if item.name == member]
        if not chosen:
            names = sorted({item.name for item in members if item.name})
            close = difflib.get_close_matches(member, names, n=5, cutoff=0.6)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            known = f"; its members: {', '.join(names[:20])}" if names and not close else ""
            raise ToolError(
                f"member not found: {shown}; `{match.path}` declares no member `{member}` "
                f"in {owner}{hint}{known}",
                ErrorCode.NOT_FOUND,
            )
        first = chosen[0]
        prefix = match.declaration.qualified_name if match.declaration is not None else owner
        declaration = Declaration(
            member, f"{prefix}.{member}", "member", True, first.lines, first.span
        )
        others = tuple(f"{match.path} lines {item.lines[0]}-{item.lines[1]}" for item in chosen[1:])
        return TargetMatch(match.path, declaration, others, member=True)

    def usages(self, index: ProjectIndex, name: str) -> UsageSelection:
        """The files using what ``name`` designates (see :meth:`find_target`), most using
        first, then by path."""
        match = self.find_target(index, name)
        declaration = match.declaration
        facts = index.sources[match.path]
        narrowed = declaration is not None and (
            match.member or declaration.nested or sum(not d.nested for d in facts.declarations) > 1
        )
        found = users(
            index,
            match.path,
            declaration if narrowed else None,
            match.member,
            lambda path: self.text(index, path),
        )
        symbol = declaration.qualified_name if declaration is not None else None
        names = target_names(index, match.path, declaration)
        return UsageSelection(match.path, symbol, found, names, match.others)

    def usage_lines(
        self, index: ProjectIndex, selection: UsageSelection, path: str
    ) -> tuple[int, ...]:
        """The lines of ``path`` where code names the target of ``selection``."""
        read = partial(self.text, index)
        return tuple(sorted(set(occurrences(index, path, selection.names, read))))

    def text(self, index: ProjectIndex, path: str) -> str:
        """The text of the indexed file ``path``, read confined ("" if it is not listed)."""
        entry = index.entry(path)
        return read_source(entry, self.allowed) if entry is not None else ""

    def select(
        self,
        index: ProjectIndex,
        name: str,
        depth: int,
        tokenizer: str = "cl100k",
        token_budget: int | None = None,
        include_source: bool = False,
        detail: str = "full",
    ) -> ContextSelection:
        """The target and its dependencies within ``depth``, most relevant first.

        With ``detail`` ``signatures`` every file's text (and so its token cost) is its
        outline: package line, imports summary, declarations and member signatures with
        their documentation's first sentence, no bodies (see
        :func:`context_server.core.outline.render_signatures`).

        With ``token_budget``, dependencies are taken in that order while they fit; one that
        does not fit is skipped (listed as omitted with its cost) and smaller ones after it
        still get in. The target itself is not charged.
        """
        if not MIN_DEPTH <= depth <= MAX_DEPTH:
            raise ToolError(
                f"depth must be between {MIN_DEPTH} and {MAX_DEPTH} but was {depth}",
                ErrorCode.INVALID_ARGUMENT,
            )
        count = counter(tokenizer)
        match = self.find_target(index, name)
        target, symbol = match.path, match.declaration
        facts = index.sources[target]
        narrowed = symbol is not None and (
            match.member or symbol.nested or sum(not d.nested for d in facts.declarations) > 1
        )
        if detail not in DETAILS:
            raise ToolError(
                f"detail must be one of {', '.join(DETAILS)} but was {detail!r}",
                ErrorCode.INVALID_ARGUMENT,
            )
        # Token counts and a declaration's own dependencies are kept with the index: a warm
        # question reads and counts only what it returns as source.
        costs = index.derived("token counts", dict[tuple[str, ...], int], carry_edited)
        parts = index.derived(
            "declaration dependencies", dict[tuple[str, ...], Linked], carry_relinked
        )
        span = symbol.span if narrowed and symbol is not None else None
        linked = parts.get((target, str(span)))
        if linked is None:
            if span is None:
                linked = index.resolver.details(target)
            else:
                # One declaration of a module of several: what that declaration alone needs.
                language = dialect(facts.language)
                part = family_of(language.name).extract(
                    language, self.text(index, target), target, facts.module, span
                )
                linked = index.resolver.link(target, part, whole=False)
            parts[(target, str(span))] = linked
        first = linked.dependencies if span is not None else None
        reached = index.resolver.reach(target, depth, first)

        def shown(language_name: str, text: str) -> str:
            if detail == "full":
                return text
            return render_signatures(dialect(language_name), text)

        def describe(path: str, level: int, edge: Edge) -> SelectedFile:
            language = index.sources[path].language
            tokens = costs.get((path, detail, tokenizer))
            text = None
            if tokens is None or include_source:
                text = shown(language, self.text(index, path))
                tokens = costs[(path, detail, tokenizer)] = count(text)
            return SelectedFile(
                path=path,
                language=language,
                level=level,
                declarations=tuple(d.qualified_name for d in index.sources[path].declarations),
                tokens=tokens,
                source=text if include_source else None,
                rule=edge.rule,
                uses=edge.uses,
            )

        # Nearest first; within a level the most used first; import-only files last.
        order = sorted(
            range(len(reached)),
            key=lambda n: (reached[n][0].uses == 0, reached[n][1], -reached[n][0].uses, n),
        )
        chosen = [describe(reached[n][0].target, reached[n][1], reached[n][0]) for n in order]
        omitted: list[SelectedFile] = []
        if token_budget is not None:
            chosen, omitted = budget_fill([(item, item.tokens) for item in chosen], token_budget)
        key = (target, "target", str(span), detail, tokenizer)
        tokens = costs.get(key)
        if tokens is None:
            whole = self.text(index, target)
            if span is not None:
                encoded = whole.encode("utf-8")
                whole = encoded[span[0] : span[1]].decode("utf-8", "replace")
            tokens = costs[key] = count(shown(facts.language, whole))
        target_file = SelectedFile(
            path=target,
            language=facts.language,
            level=0,
            declarations=tuple(d.qualified_name for d in facts.declarations),
            tokens=tokens,
            symbol=symbol.qualified_name if symbol is not None else None,
            lines=symbol.lines if narrowed and symbol is not None else None,
        )
        return ContextSelection(
            target=target_file,
            dependencies=chosen,
            omitted=omitted,
            ambiguous=(first or index.resolver.direct(target)).ambiguous,
            other_matches=match.others,
            alternatives=linked.alternatives,
            notes=(*facts.notes, *linked.notes),
        )


_SEGMENTS = re.compile(r"[./:]+")


def _rank(match: tuple[str, Declaration | None]) -> tuple[bool, bool, bool, int, bool, bytes]:
    """Top-level before nested, main before test sources, a module's public API before its
    internals, the shorter module path (whatever the language separates it by), the file
    named after the declaration (``JsonReader.cs`` before ``JsonReader.Async.cs``, the nested
    ``SqlMapper.GridReader.cs`` before ``SqlMapper.GridReader.Async.cs``), the path."""
    path, declaration = match
    nested = declaration is not None and declaration.nested
    internal = declaration is not None and not declaration.exported
    length = len(_SEGMENTS.split(declaration.qualified_name)) if declaration is not None else 0
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    named = declaration is None or stem.split(".")[-1] == declaration.simple_name
    return nested, is_test_source(path), internal, length, not named, sort_key(path)


@dataclass(frozen=True, slots=True)
class _Names:
    """What a target name is looked up in, built once per index (each list in the order of
    the index's sources, then of each file's declarations)."""

    by_file: dict[str, list[str]]
    by_stem: dict[str, list[str]]
    # type declarations by their simple name, and by the last dotted segment of their
    # qualified name (for ``Outer.Inner``)
    types: dict[str, list[tuple[str, Declaration]]]
    types_by_last: dict[str, list[tuple[str, Declaration]]]


def _names(index: ProjectIndex) -> _Names:
    def build() -> _Names:
        names = _Names({}, {}, {}, {})
        for rel, facts in index.sources.items():
            base = rel.rsplit("/", 1)[-1]
            names.by_file.setdefault(base, []).append(rel)
            names.by_stem.setdefault(base.rsplit(".", 1)[0], []).append(rel)
            for d in facts.declarations:
                if d.kind == "type":
                    names.types.setdefault(d.simple_name, []).append((rel, d))
                    names.types_by_last.setdefault(_last(d), []).append((rel, d))
        return names

    def carry(names: _Names, edit: Edit) -> _Names:
        # the same files (an edit adds, removes or renames none): only the types the edited
        # files declared before and declare now move, each list kept in index order
        if not edit.edited:
            return names
        position = index.resolver.graph.position
        types, by_last = dict(names.types), dict(names.types_by_last)
        for table, key in ((types, _simple), (by_last, _last)):
            now: dict[str, list[tuple[str, Declaration]]] = {}
            moved: set[str] = set()
            for rel in edit.edited:
                moved.update(key(d) for d in edit.declarations[rel] if d.kind == "type")
                for d in index.sources[rel].declarations:
                    if d.kind == "type":
                        now.setdefault(key(d), []).append((rel, d))
            for name in moved | now.keys():
                kept = [pair for pair in table.get(name, ()) if pair[0] not in edit.edited]
                kept += now.get(name, [])
                kept.sort(key=lambda pair: position(pair[0]))  # stable: a file's in order
                if kept:
                    table[name] = kept
                else:
                    table.pop(name, None)
        return _Names(names.by_file, names.by_stem, types, by_last)

    return index.derived("target names", build, carry)


def _simple(declaration: Declaration) -> str:
    return declaration.simple_name


def _last(declaration: Declaration) -> str:
    return declaration.qualified_name.rsplit(".", 1)[-1]


def _matches(index: ProjectIndex, wanted: str) -> list[tuple[str, Declaration | None]]:
    """Candidates for ``wanted``: a path, a file name, a qualified name, a simple name,
    a file stem; the first kind that matches anything."""
    sources = index.sources
    # A path or a file name means the whole file.
    if wanted in sources:
        return [(wanted, None)]
    names = _names(index)
    by_file = names.by_file.get(wanted)
    if by_file:
        return [(rel, None) for rel in by_file]
    declared = index.resolver.declared(wanted)
    if declared:
        # the declaration itself, also when its module is known by a longer name (a
        # namespace package: ``google.auth.credentials`` for ``auth.credentials``)
        return [
            (
                rel,
                next(
                    (
                        d
                        for d in sources[rel].declarations
                        if d.qualified_name == wanted or wanted.endswith("." + d.qualified_name)
                    ),
                    None,
                ),
            )
            for rel in declared
        ]
    if "." in wanted:
        # ``Outer.Inner``: a type whose qualified name ends with the dotted name.
        suffix = "." + wanted
        by_suffix: list[tuple[str, Declaration | None]] = [
            (rel, d)
            for rel, d in names.types_by_last.get(wanted.rsplit(".", 1)[-1], ())
            if d.qualified_name.endswith(suffix)
        ]
        if by_suffix:
            return by_suffix
    by_simple: list[tuple[str, Declaration | None]] = list(names.types.get(wanted, ()))
    if by_simple:
        return by_simple
    return [(rel, None) for rel in names.by_stem.get(wanted, ())]


def _not_found(index: ProjectIndex, shown: str, wanted: str) -> str:
    """The ``not found`` message: the skip reason of a matching file, or close names."""
    base = wanted.rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0] if "/" in wanted or base.endswith(_EXTENSIONS) else base
    simple = stem.rsplit(".", 1)[-1]
    for problem in index.problems:
        name = problem.path.rsplit("/", 1)[-1]
        if problem.path == wanted or name == base or name.rsplit(".", 1)[0] == simple:
            return f"class not found: {shown}; `{problem.path}` was {problem.reason}"
    names = sorted(_names(index).types)
    close = difflib.get_close_matches(simple, names, n=5, cutoff=0.6)
    if not close:
        lowered = simple.lower()
        close = [n for n in names if lowered in n.lower()][:5]
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    return f"class not found: {shown}{hint}"


_EXTENSIONS = tuple(extension for language in LANGUAGES for extension in language.extensions)
