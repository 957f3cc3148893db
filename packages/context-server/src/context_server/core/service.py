"""ContextService: the plain Python API the MCP tools adapt.

It confines every path, indexes through the shared cache, finds a target by simple name,
qualified name or file path, and selects dependencies in priority order within a budget.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mcp_common import AllowedPaths, ErrorCode, ToolError

from context_server.core.index import IndexCache, ProjectIndex, read_source
from context_server.core.languages import select_languages
from context_server.core.resolution import Ambiguity
from context_server.core.tokens import budget_prefix, counter
from context_server.core.walk import sort_key

MIN_DEPTH = 1
MAX_DEPTH = 10

_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class SelectedFile:
    """A file of a context selection: path, BFS level (0 = the target), token cost."""

    path: str
    language: str
    level: int
    declarations: tuple[str, ...]
    tokens: int
    source: str | None = None


@dataclass(slots=True)
class ContextSelection:
    """The answer to "what does this class need": the target and its dependencies."""

    target: SelectedFile
    dependencies: list[SelectedFile]
    omitted: list[SelectedFile] = field(default_factory=list)
    ambiguous: tuple[Ambiguity, ...] = ()
    other_matches: tuple[str, ...] = ()

    @property
    def dependency_tokens(self) -> int:
        """Tokens of the kept dependencies (what the budget is charged with)."""
        return sum(item.tokens for item in self.dependencies)


class ContextService:
    """Indexing and context selection over confined project directories."""

    def __init__(self, allowed: AllowedPaths, cache: IndexCache | None = None) -> None:
        self.allowed = allowed
        self.cache = cache or IndexCache()

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
        _log.debug(
            "indexed %s: %d files parsed, %d reused, graph %s, %d skipped",
            root,
            stats.parsed,
            stats.reused,
            "reused" if stats.graph_reused else "rebuilt",
            len(index.problems),
        )
        return index

    def find_target(self, index: ProjectIndex, name: str) -> tuple[str, tuple[str, ...]]:
        """The file ``name`` designates, and any other files it could also mean.

        ``name`` is a simple type name (``Foo``), a qualified name (``a.b.Foo``), a file name
        (``Foo.java``), a root-relative path (``src/a/Foo.java``) or an absolute path inside
        the project. Several matches are resolved by sorted path; the rest are returned so
        the caller can say so.
        """
        wanted = name.strip().replace("\\", "/").removeprefix("./")
        if os.path.isabs(wanted):
            real = Path(os.path.realpath(wanted))
            if real.is_relative_to(index.root):
                wanted = real.relative_to(index.root).as_posix()
        matches = self._matches(index, wanted)
        if not matches:
            raise ToolError(f"class not found: {name.strip()}", ErrorCode.NOT_FOUND)
        ordered = sorted(set(matches), key=sort_key)
        return ordered[0], tuple(ordered[1:])

    @staticmethod
    def _matches(index: ProjectIndex, wanted: str) -> list[str]:
        sources = index.sources
        if wanted in sources:
            return [wanted]
        by_file = [rel for rel in sources if rel.rsplit("/", 1)[-1] == wanted]
        if by_file:
            return by_file
        declared = list(index.resolver.declared(wanted))
        if declared:
            return declared
        by_simple = [
            rel
            for rel, facts in sources.items()
            if any(d.simple_name == wanted for d in facts.declarations)
        ]
        if by_simple:
            return by_simple
        return [rel for rel in sources if rel.rsplit("/", 1)[-1].rsplit(".", 1)[0] == wanted]

    def select(
        self,
        index: ProjectIndex,
        name: str,
        depth: int,
        tokenizer: str = "cl100k",
        token_budget: int | None = None,
        include_source: bool = False,
    ) -> ContextSelection:
        """The target and its dependencies within ``depth``, in BFS priority order.

        With ``token_budget``, only the highest-priority prefix of dependencies whose total
        fits is kept (the target itself is not charged); the rest is listed as omitted.
        """
        if not MIN_DEPTH <= depth <= MAX_DEPTH:
            raise ToolError(
                f"depth must be between {MIN_DEPTH} and {MAX_DEPTH} but was {depth}",
                ErrorCode.INVALID_ARGUMENT,
            )
        count = counter(tokenizer)
        target, others = self.find_target(index, name)
        reached = index.resolver.dependencies(target, depth)

        def describe(path: str, level: int, with_source: bool) -> SelectedFile:
            facts = index.sources[path]
            entry = index.entry(path)
            text = read_source(entry, self.allowed) if entry is not None else ""
            return SelectedFile(
                path=path,
                language=facts.language,
                level=level,
                declarations=tuple(d.qualified_name for d in facts.declarations),
                tokens=count(text),
                source=text if with_source else None,
            )

        chosen = [describe(path, level, include_source) for path, level in reached]
        omitted: list[SelectedFile] = []
        if token_budget is not None:
            kept, dropped = budget_prefix([(item, item.tokens) for item in chosen], token_budget)
            chosen, omitted = kept, dropped
        return ContextSelection(
            target=describe(target, 0, False),
            dependencies=chosen,
            omitted=omitted,
            ambiguous=index.resolver.direct(target).ambiguous,
            other_matches=others,
        )
