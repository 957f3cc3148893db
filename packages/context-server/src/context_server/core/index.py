"""The project index: parsed facts for every source file, cached per root by mtime and size,
in memory and (with an :class:`~context_server.core.store.IndexStore`) on disk."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from mcp_common import AllowedPaths
from mcp_common.paths import PathRefusedError

from context_server.core.facts import SourceFacts
from context_server.core.languages import SourceLanguage, families, family_of, language_of
from context_server.core.resolution import Resolver
from context_server.core.store import FileRecord, IndexStore, RootStore, collector_paused
from context_server.core.walk import FileEntry, Listing, Problem, walk_project

MAX_SOURCE_BYTES = 2 * 1024 * 1024
MAX_CONFIG_BYTES = 1024 * 1024
PROGRESS_EVERY = 200

ProgressCallback = Callable[[int, int], None]


@dataclass(slots=True)
class IndexStatistics:
    """How much work one index build did; tests, benchmarks and the log report these.

    ``restored`` files came from the on-disk store (their stat matched, or their content
    did) rather than from this process's memory (``reused``); ``graph_restored`` says the
    resolved graph came from the store, ``graph_reused`` that it came from memory.
    """

    parsed: int = 0
    reused: int = 0
    restored: int = 0
    graph_reused: bool = False
    graph_restored: bool = False


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
    files: dict[str, FileRecord] = field(default_factory=dict)
    graphs: dict[tuple[str, ...], tuple[tuple[object, ...], Resolver]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    opened: bool = False
    disk: RootStore | None = None
    # paths whose record came from the store and has not been used by a build yet
    from_disk: set[str] = field(default_factory=set)


class IndexCache:
    """Per-root caches of parsed files (keyed by mtime_ns and size) and resolved graphs.

    A repeat build re-parses only the files whose signature changed and reuses the resolved
    graph when no source changed at all. With a ``store``, the first build of a root in this
    process starts from what the store kept (a file whose stat changed but whose content
    hash did not is not parsed again) and every build writes back what changed. Safe to
    share between worker threads.
    """

    def __init__(self, store: IndexStore | None = None) -> None:
        self._roots: dict[Path, _RootCache] = {}
        self._lock = threading.Lock()
        self._store = store

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
        with cache.lock:
            if not cache.opened:
                cache.opened = True
                cache.disk = self._store.open(root) if self._store is not None else None
                if cache.disk is not None:
                    stored = cache.disk.files()
                    cache.files.update(stored)
                    cache.from_disk.update(stored)
            known = dict(cache.files)
            from_disk = set(cache.from_disk)
        disk = cache.disk
        selected = [
            (item, language)
            for item in listing.files
            if (language := language_of(item.name, languages)) is not None
        ]
        modules = module_names([(item.relative, language) for item, language in selected])
        stats = IndexStatistics()
        fresh: dict[str, FileRecord] = {}
        changed: dict[str, FileRecord] = {}
        sources: dict[str, SourceFacts] = {}
        problems = list(listing.problems)
        for number, (item, language) in enumerate(selected, start=1):
            if number % PROGRESS_EVERY == 0:
                check_cancelled()
                if progress is not None:
                    progress(number, len(selected))
            module = modules[item.relative]
            cached = known.get(item.relative)
            if cached is not None and (
                cached.module != module
                or (cached.facts is not None and cached.facts.language != language.name)
            ):
                cached = None
            if cached is None or cached.size != item.size or cached.mtime_ns != item.mtime_ns:
                cached, parsed = _parse(item, language, module, allowed, cached)
                changed[item.relative] = cached
            else:
                parsed = False
            if parsed:
                stats.parsed += 1
            elif item.relative in from_disk:
                stats.restored += 1
            else:
                stats.reused += 1
            fresh[item.relative] = cached
            if cached.facts is not None:
                sources[item.relative] = cached.facts
            elif cached.problem is not None:
                problems.append(Problem(item.relative, cached.problem))
        if progress is not None and selected:
            progress(len(selected), len(selected))
        wanted = {name for family in families(languages) for name in family.config_files}
        config_files = [item for item in listing.files if item.name in wanted]
        signature: tuple[object, ...] = tuple(
            (item.relative, item.size, item.mtime_ns)
            for item in [*(item for item, _ in selected), *config_files]
        )
        key = tuple(language.name for language in languages)
        listed = {item.relative for item in listing.files}
        with cache.lock:
            cache.files.update(fresh)
            gone = [path for path in cache.files if path not in listed]
            for path in gone:
                del cache.files[path]
            cache.from_disk.difference_update(fresh)
            cache.from_disk.difference_update(gone)
            previous = cache.graphs.get(key)
        if disk is not None:
            disk.save(changed, gone)
        if previous is not None and previous[0] == signature:
            resolver = previous[1]
            stats.graph_reused = True
        else:
            configs = _read_configs(config_files, allowed)
            direct = None
            content = ""
            if disk is not None:
                content = _content_signature(key, sources, fresh, configs)
                direct = disk.graph(",".join(key), content, list(sources))
                stats.graph_restored = direct is not None
            with collector_paused():
                resolver = Resolver(sources, configs, direct)
            if disk is not None and direct is None:
                disk.save_graph(",".join(key), content, resolver.resolved())
            with cache.lock:
                cache.graphs[key] = (signature, resolver)
        return ProjectIndex(root, languages, listing, sources, resolver, problems, stats)


def _content_signature(
    languages: tuple[str, ...],
    sources: dict[str, SourceFacts],
    records: dict[str, FileRecord],
    configs: dict[str, bytes],
) -> str:
    """What a resolved graph depends on, by content: the language selection, every source's
    path, module and content hash (in order), and every config's path and content."""
    digest = hashlib.sha256(",".join(languages).encode())
    for path in sources:
        record = records[path]
        digest.update(f"\0{path}\0{record.module}\0{record.digest}".encode())
    for path in sorted(configs):
        digest.update(f"\0config {path}\0".encode() + hashlib.sha256(configs[path]).digest())
    return digest.hexdigest()


def _parse(
    item: FileEntry,
    language: SourceLanguage,
    module: str,
    allowed: AllowedPaths,
    previous: FileRecord | None = None,
) -> tuple[FileRecord, bool]:
    """The record of a file whose stat changed, and whether it was parsed: a file whose
    content hash is ``previous``'s keeps its facts under the new stat."""

    def problem(reason: str, digest: str = "") -> tuple[FileRecord, bool]:
        return FileRecord(item.size, item.mtime_ns, digest, module, None, reason), True

    if item.size > MAX_SOURCE_BYTES:
        return problem(
            f"skipped: {_size(item.size)} is over the {_size(MAX_SOURCE_BYTES)} limit"
            " for a source file"
        )
    try:
        data = allowed.read_bytes(item.real, max_bytes=MAX_SOURCE_BYTES)
    except PathRefusedError as exc:
        return problem(f"skipped: {exc.reason}")
    digest = hashlib.sha256(data).hexdigest()
    if previous is not None and previous.digest == digest:
        return replace(previous, size=item.size, mtime_ns=item.mtime_ns), False
    if b"\x00" in data[:8192]:
        return problem("skipped: binary content in a source file", digest)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return problem(f"skipped: not UTF-8 (invalid byte at offset {exc.start})", digest)
    facts = family_of(language.name).extract(language, text, item.relative, module)
    return FileRecord(item.size, item.mtime_ns, digest, module, facts, None), True


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


def module_names(files: list[tuple[str, SourceLanguage]]) -> dict[str, str]:
    """The module name of each source file (root-relative path, dialect), as its language
    names it."""
    grouped: dict[str, list[str]] = {}
    plugins = {}
    for relative, language in files:
        family = family_of(language.name)
        plugins[family.name] = family
        grouped.setdefault(family.name, []).append(relative)
    names: dict[str, str] = {}
    for name, paths in grouped.items():
        names.update(plugins[name].modules(paths))
    return names
