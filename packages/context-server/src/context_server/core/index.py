"""The project index: parsed facts for every source file, cached per root by mtime and size."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mcp_common import AllowedPaths
from mcp_common.paths import PathRefusedError

from context_server.core.extraction import SourceFacts, extract
from context_server.core.languages import SourceLanguage, language_of
from context_server.core.resolution import Resolver
from context_server.core.walk import FileEntry, Listing, Problem, walk_project

MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_CONFIG_BYTES = 1024 * 1024
PROGRESS_EVERY = 200

ProgressCallback = Callable[[int, int], None]


@dataclass(frozen=True, slots=True)
class _CachedFile:
    size: int
    mtime_ns: int
    module: str
    facts: SourceFacts | None
    problem: str | None


@dataclass(slots=True)
class IndexStatistics:
    """How much work one index build did; tests and benchmarks assert on these."""

    parsed: int = 0
    reused: int = 0
    graph_reused: bool = False


@dataclass(slots=True)
class ProjectIndex:
    """A walked and parsed project: listing, per-file facts and the resolved graph."""

    root: Path
    languages: tuple[SourceLanguage, ...]
    listing: Listing
    sources: dict[str, SourceFacts]
    resolver: Resolver
    problems: list[Problem]
    statistics: IndexStatistics = field(default_factory=IndexStatistics)
    _entries: dict[str, FileEntry] = field(default_factory=dict)

    def entry(self, relative: str) -> FileEntry | None:
        """The listed file at ``relative``, if any."""
        if not self._entries:
            self._entries.update((item.relative, item) for item in self.listing.files)
        return self._entries.get(relative)


@dataclass(slots=True)
class _RootCache:
    files: dict[str, _CachedFile] = field(default_factory=dict)
    graphs: dict[tuple[str, ...], tuple[tuple[object, ...], Resolver]] = field(default_factory=dict)


class IndexCache:
    """Per-root caches of parsed files (keyed by mtime_ns and size) and resolved graphs.

    A repeat build re-parses only the files whose signature changed and reuses the resolved
    graph when no source changed at all. Safe to share between worker threads.
    """

    def __init__(self) -> None:
        self._roots: dict[Path, _RootCache] = {}
        self._lock = threading.Lock()

    def build(
        self,
        root: Path,
        languages: tuple[SourceLanguage, ...],
        allowed: AllowedPaths,
        check_cancelled: Callable[[], None] = lambda: None,
        progress: ProgressCallback | None = None,
        boundary: Path | None = None,
    ) -> ProjectIndex:
        """Walk ``root`` (a real directory) and index its sources of ``languages``.

        ``boundary`` is the allowed root holding ``root``: ``.gitignore`` files between the
        two apply as well.
        """
        listing = walk_project(root, allowed, check_cancelled, boundary)
        with self._lock:
            cache = self._roots.setdefault(root, _RootCache())
            known = dict(cache.files)
        packages = _python_packages(listing)
        selected = [
            (item, language)
            for item in listing.files
            if (language := language_of(item.name, languages)) is not None
        ]
        stats = IndexStatistics()
        fresh: dict[str, _CachedFile] = {}
        sources: dict[str, SourceFacts] = {}
        problems = list(listing.problems)
        for number, (item, language) in enumerate(selected, start=1):
            if number % PROGRESS_EVERY == 0:
                check_cancelled()
                if progress is not None:
                    progress(number, len(selected))
            module = (
                _python_module(item.relative, packages)
                if language.name == "python"
                else (item.relative if language.path_modules else "")
            )
            cached = known.get(item.relative)
            if (
                cached is None
                or cached.size != item.size
                or cached.mtime_ns != item.mtime_ns
                or cached.module != module
                or (cached.facts is not None and cached.facts.language != language.name)
            ):
                cached = _parse(item, language, module, allowed)
                stats.parsed += 1
            else:
                stats.reused += 1
            fresh[item.relative] = cached
            if cached.facts is not None:
                sources[item.relative] = cached.facts
            elif cached.problem is not None:
                problems.append(Problem(item.relative, cached.problem))
        if progress is not None and selected:
            progress(len(selected), len(selected))
        wanted = {name for language in languages for name in language.config_files}
        config_files = [item for item in listing.files if item.name in wanted]
        signature: tuple[object, ...] = tuple(
            (item.relative, item.size, item.mtime_ns)
            for item in [*(item for item, _ in selected), *config_files]
        )
        key = tuple(language.name for language in languages)
        with self._lock:
            cache.files.update(fresh)
            for gone in set(known) - {item.relative for item in listing.files}:
                cache.files.pop(gone, None)
            previous = cache.graphs.get(key)
        if previous is not None and previous[0] == signature:
            resolver = previous[1]
            stats.graph_reused = True
        else:
            resolver = Resolver(sources, _read_configs(config_files, allowed))
            with self._lock:
                cache.graphs[key] = (signature, resolver)
        return ProjectIndex(root, languages, listing, sources, resolver, problems, stats)


def _parse(
    item: FileEntry, language: SourceLanguage, module: str, allowed: AllowedPaths
) -> _CachedFile:
    def problem(reason: str) -> _CachedFile:
        return _CachedFile(item.size, item.mtime_ns, module, None, reason)

    if item.size > MAX_SOURCE_BYTES:
        return problem(
            f"skipped: {_size(item.size)} is over the {_size(MAX_SOURCE_BYTES)} limit"
            " for a source file"
        )
    try:
        data = allowed.read_bytes(item.real, max_bytes=MAX_SOURCE_BYTES)
    except PathRefusedError as exc:
        return problem(f"skipped: {exc.reason}")
    if b"\x00" in data[:8192]:
        return problem("skipped: binary content in a source file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return problem(f"skipped: not UTF-8 (invalid byte at offset {exc.start})")
    is_package = item.name in {"__init__.py", "__init__.pyi"}
    facts = extract(language, text, module, is_package)
    return _CachedFile(item.size, item.mtime_ns, module, facts, None)


def _read_configs(items: list[FileEntry], allowed: AllowedPaths) -> dict[str, bytes]:
    """The module resolution configs (``tsconfig.json``…), read confined; an unreadable one
    is left out (its imports then resolve as if it were absent)."""
    configs: dict[str, bytes] = {}
    for item in items:
        if item.size > MAX_CONFIG_BYTES:
            continue
        try:
            configs[item.relative] = allowed.read_bytes(item.real, max_bytes=MAX_CONFIG_BYTES)
        except PathRefusedError:
            continue
    return configs


def _size(count: int) -> str:
    """A byte count for people: ``52 MB``, ``2 MB``, ``2.5 MB``, ``1536 bytes``."""
    if count < 1024 * 1024:
        return f"{count} bytes"
    return f"{count / (1024 * 1024):.1f}".removesuffix(".0") + " MB"


def read_source(item: FileEntry, allowed: AllowedPaths) -> str:
    """The text of a source file as indexed (UTF-8, a leading BOM dropped), read confined."""
    data = allowed.read_bytes(item.real, max_bytes=MAX_SOURCE_BYTES)
    return data.decode("utf-8-sig", errors="replace")


def _python_packages(listing: Listing) -> frozenset[str]:
    return frozenset(
        item.relative.rsplit("/", 1)[0] if "/" in item.relative else ""
        for item in listing.files
        if item.name in {"__init__.py", "__init__.pyi"}
    )


def _python_module(relative: str, packages: frozenset[str]) -> str:
    """The dotted module name: the file's path from the topmost directory of its package."""
    parts = relative.split("/")
    stem = parts[-1].rsplit(".", 1)[0]
    directories = parts[:-1]
    names = [] if stem == "__init__" else [stem]
    while directories and "/".join(directories) in packages:
        names.insert(0, directories[-1])
        directories = directories[:-1]
    return ".".join(names) if names else (directories[-1] if directories else stem)
