"""What a language plugin is: its dialects (grammars) and the :class:`Language` protocol.

A *dialect* (:class:`SourceLanguage`) is one grammar with its file extensions, e.g. Kotlin
or TSX; a *language* (a :class:`Language` plugin) is a family of dialects that see each
other's code, e.g. the JVM languages or TypeScript/TSX/JavaScript. Core modules work through
these two shapes only and never compare language names.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import tree_sitter

from context_server.core.facts import Linked, SourceFacts


@dataclass(frozen=True)
class SourceLanguage:
    """One dialect: its name, display name, file extensions and grammar.

    ``line_comment`` starts a comment to the end of the line; ``colon_body`` says a
    declaration's body starts after a ``:`` (Python) rather than at ``{`` or ``=``.
    """

    name: str
    display: str
    extensions: tuple[str, ...]
    grammar: Callable[[], object] = field(repr=False, compare=False)
    line_comment: str = "//"
    colon_body: bool = False

    def parser(self) -> tree_sitter.Parser:
        """A parser for this dialect; parsers are not thread-safe, so one per thread."""
        parsers: dict[str, tree_sitter.Parser] | None = getattr(_local, "parsers", None)
        if parsers is None:
            parsers = {}
            _local.parsers = parsers
        parser = parsers.get(self.name)
        if parser is None:
            parser = tree_sitter.Parser(self.grammar_language())
            parsers[self.name] = parser
        return parser

    def grammar_language(self) -> tree_sitter.Language:
        """The tree-sitter language object of this grammar (shared, immutable)."""
        with _GRAMMAR_LOCK:
            grammar = _GRAMMARS.get(self.name)
            if grammar is None:
                grammar = tree_sitter.Language(self.grammar())
                _GRAMMARS[self.name] = grammar
        return grammar

    def query(self, source: str) -> tree_sitter.Query:
        """The compiled tree-sitter query ``source`` for this grammar, compiled once."""
        with _QUERY_LOCK:
            compiled = _QUERIES.get((self.name, source))
            if compiled is None:
                compiled = tree_sitter.Query(self.grammar_language(), source)
                _QUERIES[(self.name, source)] = compiled
            return compiled

    def node_kind(self, kind: str) -> int:
        """The grammar's id of the named node kind ``kind`` (-1 when it has none)."""
        return self.grammar_language().id_for_node_kind(kind, True) or -1


def in_order(captures: Mapping[str, Sequence[tree_sitter.Node]]) -> list[tree_sitter.Node]:
    """Every captured node, in source order (a query's captures come grouped by pattern,
    whose order is not the text's: references must not depend on it)."""
    return sorted(
        (node for nodes in captures.values() for node in nodes), key=lambda node: node.start_byte
    )


_local = threading.local()
_GRAMMAR_LOCK = threading.Lock()
_GRAMMARS: dict[str, tree_sitter.Language] = {}
_QUERY_LOCK = threading.Lock()
_QUERIES: dict[tuple[str, str], tree_sitter.Query] = {}


class Linker(Protocol):
    """A language's view of one project: which files each of its files depends on."""

    def link(self, relative: str, facts: SourceFacts, whole: bool) -> Linked:
        """The direct dependencies of ``facts`` (with the declarations used in each, and
        the alternatives set aside): the file at ``relative`` or, with ``whole`` false, one
        declaration of it (its imports then only bind names; what it uses counts)."""
        ...

    def declared(self, name: str) -> tuple[str, ...]:
        """The files declaring the qualified ``name`` (a type, a member, a module), in the
        order of the sources given."""
        ...

    def internal(self, relative: str) -> bool:
        """Whether the file is an internal part of its module or package, not its public
        API (a Go ``internal/`` package, a private Rust module none of whose items a public
        module re-exports)."""
        ...


class Language(Protocol):
    """A language plugin: one family of dialects, how their files are named, parsed and
    linked. Adding a language is one module implementing this and one registry line."""

    @property
    def name(self) -> str:
        """The family's name (``jvm``, ``python``…), for logs and tests."""
        ...

    @property
    def dialects(self) -> tuple[SourceLanguage, ...]:
        """The grammars of the family, each with its file extensions."""
        ...

    @property
    def config_files(self) -> tuple[str, ...]:
        """Project files (by name) whose content linking needs (``tsconfig.json``…)."""
        ...

    def modules(self, paths: Sequence[str]) -> dict[str, str]:
        """The module name of each of ``paths`` (root-relative, the family's files of the
        project); the name is given to :meth:`extract`."""
        ...

    def extract(
        self,
        dialect: SourceLanguage,
        text: str,
        path: str,
        module: str,
        span: tuple[int, int] | None = None,
    ) -> SourceFacts:
        """The facts of one file (root-relative ``path``, module ``module``). With ``span``
        (byte offsets of one declaration), only references inside it are collected."""
        ...

    def linker(self, sources: Mapping[str, SourceFacts], configs: Mapping[str, bytes]) -> Linker:
        """The linker of the family's ``sources`` (root-relative path to facts, in sorted
        path order) given the project's config files (path to content)."""
        ...

    def user_names(self, facts: SourceFacts) -> Iterable[str]:
        """Names beyond its declarations' that a user spells to use the whole file (a
        Python module's own name)."""
        ...
