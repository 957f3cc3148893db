"""The project's dependency graph: every source file's direct dependencies, and reach.

Each language plugin links its own files (:meth:`Language.linker
<context_server.core.languages.base.Language.linker>`); only the plugins of the languages the
project has are built. Their rules are in each plugin module and in
``docs/context-server.md``.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from context_server.core.facts import NO_DEPENDENCIES, Edge, FileDependencies, Linked, SourceFacts
from context_server.core.graph import PackedGraph
from context_server.core.languages import Language, Linker, family_of
from context_server.core.packed import PackedFacts
from context_server.core.walk import sort_key


class Resolver:
    """Resolves every source file's references against the project's declarations."""

    def __init__(
        self,
        sources: PackedFacts,
        configs: Mapping[str, bytes] | None = None,
        direct: PackedGraph | None = None,
    ) -> None:
        """Link ``sources`` with the plugins of their languages; ``configs`` holds the
        project's module resolution settings by root-relative path (``tsconfig.json``…).
        ``direct``, when given, is every file's direct dependencies (and internal files) as
        resolved before from the same sources and configs (the on-disk index store): they
        are taken instead of resolved again, and the linkers are built only when a question
        needs them (a declaration looked up, one file linked again)."""
        self._sources = sources
        self._configs = configs or {}
        self._lock = threading.Lock()
        self._plugins: tuple[dict[str, Linker], dict[str, Linker]] | None = None
        # linkers taken from the resolver this one was relinked from (families no edit
        # changed what they are linked against), by family
        self._kept: dict[str, Linker] = {}
        if direct is not None:
            self._graph = direct
            return
        internal = frozenset(relative for relative in sources if self._internal(relative))
        # packed file by file: a project's edges as arrays, never a million objects
        self._graph = PackedGraph.of(
            ((relative, self.resolve(relative, facts)) for relative, facts in sources.items()),
            internal,
        )

    def relinked(
        self, sources: PackedFacts, changed: Sequence[str]
    ) -> tuple[Resolver, frozenset[str]] | None:
        """The resolver of ``sources``, the same files as this one's in the same order
        with the same configs, where only the files ``changed`` were edited, and the files
        linked again: only what the edit can change. An edited file is linked
        again; where its edit changed what other files are linked against (a declaration,
        an import, its package or module), its family's linker is built again and the
        family's files reading the name of a table entry the edit added or removed (see
        :meth:`Linker.keys <context_server.core.languages.base.Linker.keys>`) are linked
        again too (the whole family when its linker cannot say). Every other file keeps
        its edges and every other family its linker. None when the files themselves
        changed (one added, removed or renamed: the project is then linked whole)."""
        if list(sources) != self._graph.paths:
            return None
        moved = [
            path
            for path in changed
            if _linking_key(self._sources[path]) != _linking_key(sources[path])
        ]
        kept = dict(self._plugins[0]) if self._plugins is not None else {}
        families = {family_of(sources.language(path)).name for path in moved}
        for name in families:
            kept.pop(name, None)
        resolver = Resolver(sources, self._configs, self._graph)
        if not families and self._plugins is not None:
            # every linker kept, and the same files by family: nothing to group again
            resolver._plugins = self._plugins
        resolver._kept = kept
        linked = set(changed)
        internal = self._graph.internal
        if moved:
            linked |= resolver._readers(self._sources, moved)
            members = {
                path for path in sources if family_of(sources.language(path)).name in families
            }
            internal = frozenset(
                {path for path in internal if path not in members}
                | {path for path in members if resolver._internal(path)}
            )
        rows = {path: resolver.resolve(path, sources[path]) for path in linked}
        resolver._graph = self._graph.replaced(rows, internal)
        return resolver, frozenset(rows)

    def _readers(self, before: PackedFacts, moved: Sequence[str]) -> set[str]:
        """The files of the families of ``moved`` (files whose facts were ``before``'s)
        whose linking reads the name of a table entry one of them made before and does not
        now, or makes now and did not before."""
        by_dialect = self._linked()[1]
        offered: dict[str, set[str] | None] = {}
        for path in moved:
            language = self._sources.language(path)
            family = family_of(language).name
            old = by_dialect[language].keys(path, before[path])
            new = by_dialect[language].keys(path, self._sources[path])
            names = offered.setdefault(family, set())
            if old is None or new is None or names is None:
                offered[family] = None
            else:
                names.update(name for name, _ in old.offers ^ new.offers)
        readers: set[str] = set()
        for path in self._sources:
            language = self._sources.language(path)
            family = family_of(language).name
            if family not in offered:
                continue
            names = offered[family]
            keys = None if names is None else by_dialect[language].keys(path, self._sources[path])
            if names is None or keys is None or not keys.reads.isdisjoint(names):
                readers.add(path)
        return readers

    def _linked(self) -> tuple[dict[str, Linker], dict[str, Linker]]:
        """The linker of each family of the project, by family and by dialect name (built
        on the first call)."""
        with self._lock:
            if self._plugins is None:
                grouped: dict[str, list[str]] = {}
                plugins: dict[str, Language] = {}
                for relative in sorted(self._sources, key=sort_key):
                    family = family_of(self._sources.language(relative))
                    plugins[family.name] = family
                    grouped.setdefault(family.name, []).append(relative)
                linkers = {
                    name: self._kept.get(name)
                    or plugins[name].linker(_Family(self._sources, paths), self._configs)
                    for name, paths in grouped.items()
                }
                self._kept = {}
                by_dialect = {
                    dialect.name: linkers[name]
                    for name in linkers
                    for dialect in plugins[name].dialects
                }
                self._plugins = (linkers, by_dialect)
            return self._plugins

    @property
    def linked_languages(self) -> tuple[str, ...]:
        """The plugins (by family name) this project built a linker for."""
        return tuple(self._linked()[0])

    @property
    def graph(self) -> PackedGraph:
        """Every source file's direct dependencies, packed."""
        return self._graph

    def resolved(self) -> dict[str, FileDependencies]:
        """Every source file's direct dependencies, in the order of the sources given."""
        return dict(self._graph)

    def declared(self, qualified_name: str) -> tuple[str, ...]:
        """Files declaring ``qualified_name`` (a type, or a Python module), by sorted path."""
        found: list[str] = []
        for linker in self._linked()[0].values():
            found.extend(linker.declared(qualified_name))
        return tuple(sorted(dict.fromkeys(found), key=sort_key))

    def internal(self, relative: str) -> bool:
        """Whether the source file is internal to its package (see
        :meth:`Linker.internal <context_server.core.languages.base.Linker.internal>`)."""
        return relative in self._graph.internal

    def _internal(self, relative: str) -> bool:
        if relative not in self._sources:
            return False
        linker = self._linked()[1].get(self._sources.language(relative))
        return linker is not None and linker.internal(relative)

    def direct(self, relative: str) -> FileDependencies:
        """The direct dependencies of a source file (empty for a file that is not one)."""
        return self._graph.get(relative, NO_DEPENDENCIES)

    def files(self, relative: str) -> tuple[str, ...]:
        """The direct dependency files of a source file, in order of first reference
        (``direct(relative).files`` without making the edges)."""
        return self._graph.files(relative)

    def dependencies(self, relative: str, depth: int) -> list[tuple[str, int]]:
        """Files within ``depth`` hops, breadth first: nearest first, each once, never the
        start itself; each with the level (1 = direct) it was reached at."""
        return [(edge.target, level) for edge, level in self.reach(relative, depth)]

    def reach(
        self, relative: str, depth: int, first: FileDependencies | None = None
    ) -> list[tuple[Edge, int]]:
        """Like :meth:`dependencies`, with the edge that first reached each file.

        ``first`` replaces the start's own direct dependencies (e.g. those of one
        declaration of it rather than of the whole file).
        """
        if depth < 1:
            raise ValueError(f"depth must be positive but was {depth}")
        visited = {relative}
        found: list[tuple[Edge, int]] = []
        frontier = deque([relative])
        for level in range(1, depth + 1):
            following: deque[str] = deque()
            for current in frontier:
                direct = first if first is not None and current == relative else None
                for edge in (direct or self.direct(current)).edges:
                    if edge.target not in visited:
                        visited.add(edge.target)
                        found.append((edge, level))
                        following.append(edge.target)
            if not following:
                break
            frontier = following
        return found

    def resolve(self, relative: str, facts: SourceFacts, whole: bool = True) -> FileDependencies:
        """The dependencies of ``facts``: the file at ``relative`` or, with ``whole`` false,
        one declaration of it (its imports then only bind names; what it uses counts)."""
        return self.link(relative, facts, whole).dependencies

    def link(self, relative: str, facts: SourceFacts, whole: bool = True) -> Linked:
        """Like :meth:`resolve`, with the declarations used in each dependency, the
        alternatives set aside and what linking cut short."""
        linker = self._linked()[1].get(facts.language)
        if linker is None:
            return Linked(NO_DEPENDENCIES, {})
        return linker.link(relative, facts, whole)

    def details(self, relative: str) -> Linked:
        """:meth:`link` of the source file at ``relative`` as indexed (the stored graph
        keeps only the edges: this links the one file again)."""
        facts = self._sources.get(relative)
        return self.link(relative, facts) if facts is not None else Linked(NO_DEPENDENCIES, {})


class _Family(Mapping[str, SourceFacts]):
    """The sources of one language family, in sorted path order, read through to the
    project's packed facts: a linker reading them all decodes each in turn and holds none
    (on 100,000 files, every file's facts decoded at once cost about half a gigabyte)."""

    def __init__(self, sources: PackedFacts, paths: list[str]) -> None:
        self._sources = sources
        self._paths = paths
        self._members = frozenset(paths)

    def __getitem__(self, path: str) -> SourceFacts:
        if path not in self._members:
            raise KeyError(path)
        return self._sources[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def __contains__(self, path: object) -> bool:
        return path in self._members


def _linking_key(facts: SourceFacts) -> SourceFacts:
    """What other files are linked against in ``facts``: all of it but the references, their
    counts, the notes and where each declaration sits."""
    return replace(
        facts,
        references=(),
        uses=(),
        notes=(),
        declarations=tuple(
            replace(declaration, lines=(0, 0), span=(0, 0)) for declaration in facts.declarations
        ),
    )
