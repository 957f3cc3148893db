"""What a language plugin is: its dialects (grammars) and the :class:`Language` protocol.

A *dialect* (:class:`SourceLanguage`) is one grammar with its file extensions, e.g. Kotlin
or TSX; a *language* (a :class:`Language` plugin) is a family of dialects that see each
other's code, e.g. the JVM languages or TypeScript/TSX/JavaScript. Core modules work through
these two shapes only and never compare language names.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import tree_sitter

from context_server.core.facts import Linked, LinkKeys, SourceFacts


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

    def parse(self, source: bytes) -> Parsed:
        """``source`` parsed, its reading budget started.

        Raises :class:`TooComplexError` when the syntax tree nests deeper than
        :data:`MAX_NESTING` levels: the language modules walk trees by recursion and by
        parent look-ups whose cost grows with the depth, so a hostile file must be refused
        before they start.
        """
        limit = Parsed.budget_for(len(source))
        tree = self.parser().parse(source)
        if _nests_deeper(tree, MAX_NESTING):
            raise TooComplexError(
                f"its syntax nests more than {MAX_NESTING} levels deep"
                " (the limit for a source file)"
            )
        return Parsed(tree, limit)

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


MAX_NESTING = 256
"""How deep a source file's syntax tree may nest; real code stays under 70 (measured on
15,000 files of Spring and of Python packages), a hostile file (20,000 nested generics) far
over."""
CPU_SECONDS_PER_FILE = 2.0
"""The thread CPU time one file's reading may take, plus :data:`CPU_SECONDS_PER_MB`."""
CPU_SECONDS_PER_MB = 1.0
"""Further thread CPU time per MB of source (real code needs about a tenth of it)."""


BUDGET_EXCEEDED = (
    "reading it took more than its CPU time budget"
    f" ({CPU_SECONDS_PER_FILE:g} s + {CPU_SECONDS_PER_MB:g} s per MB)"
)
"""Why a file whose reading spent its budget is skipped (in Python or, inside tree-sitter,
where the parse child's CPU limit ends it)."""


class TooComplexError(ValueError):
    """A source file too deeply nested, or too costly, to read; the index lists it as
    skipped with this reason."""


@dataclass(frozen=True)
class Parsed:
    """A parsed file and the thread CPU time by which its reading must be done."""

    tree: tree_sitter.Tree
    deadline: float

    @staticmethod
    def seconds_for(size: int) -> float:
        """The CPU seconds reading ``size`` bytes may take."""
        return CPU_SECONDS_PER_FILE + CPU_SECONDS_PER_MB * size / 1e6

    @staticmethod
    def budget_for(size: int) -> float:
        """The deadline (in this thread's CPU time) for reading ``size`` bytes from now."""
        return time.thread_time() + Parsed.seconds_for(size)

    @property
    def root(self) -> tree_sitter.Node:
        """The tree's root node."""
        return self.tree.root_node

    def each(self, nodes: Iterable[tree_sitter.Node]) -> Iterator[tree_sitter.Node]:
        """``nodes``, refusing the file (:class:`TooComplexError`) once its budget is spent:
        whatever a hostile shape makes superlinear in a language's reading stops there."""
        for node in nodes:
            if time.thread_time() > self.deadline:
                raise TooComplexError(BUDGET_EXCEEDED)
            yield node


def _nests_deeper(tree: tree_sitter.Tree, limit: int) -> bool:
    """Whether some node of ``tree`` lies more than ``limit`` levels below the root.

    A subtree of ``n`` nodes reaches at most ``n - 1`` levels below its root, so subtrees
    too small to pass the limit are skipped unvisited: on real code this visits a few
    hundred nodes, on a deep file about ``limit`` of them.
    """
    cursor = tree.walk()
    while True:
        depth = cursor.depth
        if depth > limit:
            return True
        node = cursor.node
        if (
            node is not None
            and depth + node.descendant_count - 1 > limit
            and cursor.goto_first_child()
        ):
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return False


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

    def keys(self, relative: str, facts: SourceFacts) -> LinkKeys | None:
        """What linking ``facts`` (of the file at ``relative``) in this project shares
        with the other files: every entry its facts make in the linker's tables, with the
        name a look-up of it ends in (``offers``: two facts making the same entries leave
        every other file's links as they were), and every name a look-up :meth:`link`
        makes for it ends in (``reads``); what :meth:`internal` says of a file may depend
        on its own facts only. None when that cannot be said of this file (its linking
        reads other files through chains: re-exports, star imports, global usings): an
        edit of it, or of any file while it is a reader, links its whole family again."""
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
