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
        if direct is not None:
            self._graph = direct
            return
        internal = frozenset(relative for relative in sources if self._internal(relative))
        # packed file by file: a project's edges as arrays, never a million objects
        self._graph = PackedGraph.of(
            ((relative, self.resolve(relative, facts)) for relative, facts in sources.items()),
            internal,
        )

    def relinked(self, sources: PackedFacts, changed: Sequence[str]) -> Resolver | None:
        """The resolver of ``sources``, the same files as this one's in the same order
        with the same configs, where only the files ``changed`` were edited: when their
        edit left what other files are linked against as it was (the same declarations,
        imports, package and module; only references, their counts and where declarations
        sit changed), only those files are linked again and every other file keeps its
        edges. None when anything else changed (the project is then linked whole)."""
        if list(sources) != self._graph.paths:
            return None
        for path in changed:
            if _linking_key(self._sources[path]) != _linking_key(sources[path]):
                return None
        rows = {path: self.resolve(path, sources[path]) for path in changed}
        resolver = Resolver(sources, self._configs, self._graph.replaced(rows))
        # what the linkers hold of the other files is what they were built from
        resolver._plugins = self._linked()
        return resolver

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
                    name: plugins[name].linker(_Family(self._sources, paths), self._configs)
                    for name, paths in grouped.items()
                }
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
