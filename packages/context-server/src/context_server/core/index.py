"""The project index: parsed facts for every source file, cached per root by mtime and size,
in memory and (with an :class:`~context_server.core.store.IndexStore`) on disk."""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TypeVar, cast

import msgspec
from mcp_common import AllowedPaths, ToolError
from mcp_common.paths import PathRefusedError

from context_server.core.facts import Declaration, SourceFacts
from context_server.core.languages import (
    FAMILIES,
    SourceLanguage,
    dialect,
    families,
    family_of,
    language_of,
)
from context_server.core.packed import PackedFacts, Unchecked, unpack
from context_server.core.parsing import MAX_SOURCE_BYTES, PARSERS, PROGRESS_EVERY, ParseJob
from context_server.core.resolution import Resolver
from context_server.core.store import FileRecord, IndexStore, RootStore, collector_paused
from context_server.core.stored_listing import pack_listing, restore_listing
from context_server.core.walk import (
    FileEntry,
    Listing,
    Problem,
    inherited_ignore_directories,
    refresh,
    walk_project,
)
from context_server.core.watch import Changes, RootWatch, Watcher

MAX_CONFIG_BYTES = 1024 * 1024
MANIFESTS = frozenset(name for family in FAMILIES for name in family.config_files)
"""The files module resolution reads (``package.json``, ``go.mod``…): listed even where a
``.gitignore`` pattern matches them."""

ProgressCallback = Callable[[int, int], None]

_log = logging.getLogger(__name__)
_T = TypeVar("_T")
_MISSING = object()


@dataclass(slots=True)
class IndexStatistics:
    """How much work one index build did; tests, benchmarks and the log report these.

    ``restored`` files came from the on-disk store (their stat matched, or their content
    did) rather than from this process's memory (``reused``); ``graph_restored`` says the
    resolved graph came from the store, ``graph_reused`` that it came from memory;
    ``relinked`` files were linked again alone after an edit (the others kept their edges).
    ``walked`` says the whole tree was walked (a first call, or the watches could not say
    what changed); otherwise ``relisted`` directories were listed again after a change (or,
    with ``listing_restored``, after the listing was read back from the store).
    ``workers`` parse children parsed the files (0: none was parsed; see
    :mod:`~context_server.core.parsing`).
    """

    parsed: int = 0
    reused: int = 0
    restored: int = 0
    graph_reused: bool = False
    graph_restored: bool = False
    relinked: int = 0
    walked: bool = False
    relisted: int = 0
    workers: int = 0
    listing_restored: bool = False


@dataclass(frozen=True, slots=True)
class Edit:
    """How an index differs from one built before it when no source file was added,
    removed or renamed and no module config changed in between: only the content of some
    sources (or of files that are no source). What was derived from the index before may
    be carried over (see :meth:`ProjectIndex.derived`) rather than derived again from every
    file. It keeps of the index before only what the carries read (no index is kept alive
    by it)."""

    edited: frozenset[str]
    """The source files whose content changed."""
    relinked: frozenset[str]
    """The source files linked again (the edited ones, and those reading a name whose
    declaration an edit added or removed): every other file links as it did before."""
    declarations: Mapping[str, tuple[Declaration, ...]]
    """The declarations each edited file had in the index before."""
    dependencies: Mapping[str, tuple[str, ...]]
    """The dependency files each relinked file had in the index before."""
    files: list[str]
    """The listing's files (root-relative, of any kind, in order) in the index before."""

    def then(self, later: Edit) -> Edit:
        """This edit followed by ``later`` (which starts where this one ends)."""
        return Edit(
            self.edited | later.edited,
            self.relinked | later.relinked,
            {**later.declarations, **self.declarations},
            {**later.dependencies, **self.dependencies},
            self.files,
        )


Carry = Callable[[_T, Edit], _T | None]
"""Makes a derived value of an index from the value of an index before it and how the two
differ; None when it cannot (the value is then derived afresh)."""


_Value = TypeVar("_Value")


def carry_edited(found: dict[tuple[str, ...], _Value], edit: Edit) -> dict[tuple[str, ...], _Value]:
    """Carries a table of what a file's text gives (keyed by tuples whose first item is
    the file's path) over an edit: the entries of the files whose content changed go."""
    return _without(found, edit.edited)


def carry_relinked(
    found: dict[tuple[str, ...], _Value], edit: Edit
) -> dict[tuple[str, ...], _Value]:
    """Carries a table of what linking a file gives (keyed like :func:`carry_edited`'s)
    over an edit: the entries of the files linked again go."""
    return _without(found, edit.relinked)


def _without(
    found: dict[tuple[str, ...], _Value], paths: frozenset[str]
) -> dict[tuple[str, ...], _Value]:
    kept = dict(found)  # copied in one step: a call on the index before may still add to it
    if not paths:
        return kept
    return {key: value for key, value in kept.items() if key[0] not in paths}


@dataclass(slots=True)
class _Lineage:
    """What an index may carry over from those before it, shared by the copies a warm call
    gets: per key, a value derived from an earlier index and the edit since (``pending``);
    and the keys this index derived with a carry (``carried``), which the next index may
    carry in turn. Emptied when the next index is built, so that a value derived from an
    old index is kept only while it is still to be carried over."""

    pending: dict[str, tuple[object, Edit]] = field(default_factory=dict)
    carried: set[str] = field(default_factory=set)

    def after(self, derived: dict[str, object], step: Edit) -> _Lineage:
        """The lineage of the index ``step`` leads to from the one this lineage and
        ``derived`` belong to; this one is emptied."""
        pending = {key: (derived[key], step) for key in self.carried if key in derived}
        for key, (value, edit) in self.pending.items():
            pending.setdefault(key, (value, edit.then(step)))
        self.clear()
        return _Lineage(pending)

    def clear(self) -> None:
        """Nothing is carried over from here any more (a new index was built)."""
        self.pending, self.carried = {}, set()


@dataclass(slots=True)
class ProjectIndex:
    """A walked and parsed project: listing, per-file facts and the resolved graph."""

    root: Path
    languages: tuple[SourceLanguage, ...]
    listing: Listing
    sources: PackedFacts
    resolver: Resolver
    problems: list[Problem]
    statistics: IndexStatistics = field(default_factory=IndexStatistics)
    # what answers derive from this index (lookup tables, reverse edges, the tree), kept
    # with it and shared by the copies a warm call gets: computed once per index
    _derived: dict[str, object] = field(default_factory=dict)
    _lineage: _Lineage = field(default_factory=_Lineage)

    def entry(self, relative: str) -> FileEntry | None:
        """The listed file at ``relative``, if any."""
        return self.listing.entry(relative)

    def derived(self, key: str, compute: Callable[[], _T], carry: Carry[_T] | None = None) -> _T:
        """What ``compute`` derives from this index, computed on the first call for
        ``key`` and kept as long as the index is current. With ``carry``, an index built
        after edits makes it from the value an index before it had (see :class:`Edit`):
        an answer after a one-file edit costs what the edit changed, not what the project
        holds. Either way the value is the one ``compute`` gives."""
        found = self._derived.get(key, _MISSING)
        if found is _MISSING:
            # tables of many small acyclic objects: no collector passes while they are made
            with collector_paused():
                lineage = self._lineage
                before = lineage.pending.pop(key, None)
                if carry is not None and before is not None:
                    found = carry(cast(_T, before[0]), before[1])
                if found is None or found is _MISSING:
                    found = compute()
                self._derived[key] = found
                if carry is not None:
                    lineage.carried.add(key)
        return cast(_T, found)


VERIFY_SECONDS = 300.0
"""A watched project is walked again in the background at least this long after its last
walk (and never more often than :data:`VERIFY_SHARE` of the time allows), to catch what no
event reports (a file changed through ``mmap``, a network file system)."""
VERIFY_SHARE = 0.05
"""At most this share of the time goes to verification walks."""
FREEZE_FROM = 4000
"""Files of a root from which the objects of its first build are frozen (``gc.freeze``)."""
LISTING_SAVE_SECONDS = 60.0
"""A listing that changed is written to the store at most this often (it is written on the
first build of a root in a process, restored or walked, whenever it differs from the
store's)."""


@dataclass(slots=True)
class _Tree:
    """The listing of a root kept up to date by its watches (``watch`` None: walked on
    every call), when it was last walked whole and how long that took."""

    listing: Listing
    boundary: Path | None
    watch: RootWatch | None
    walked: float
    walk_seconds: float


_Signature = tuple[tuple[tuple[str, str], ...], tuple[object, ...]]
"""What a resolved graph depends on: each source's path and content hash, in index order,
and each config's stat (see ``IndexCache._index``)."""


@dataclass(slots=True)
class _Selection:
    """The source files of a listing for one language selection: the listing's file names
    in order, the position and dialect of each source among them, and their module names."""

    names: list[str]
    positions: list[tuple[int, SourceLanguage]]
    modules: dict[str, str]


@dataclass(slots=True)
class _RootCache:
    files: dict[str, FileRecord] = field(default_factory=dict)
    graphs: dict[tuple[str, ...], tuple[_Signature, Resolver]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    # held while the listing is brought up to date and indexed: one build per root at once
    build_lock: threading.Lock = field(default_factory=threading.Lock)
    opened: bool = False
    # whether the objects of the first build were moved out of the collector's reach
    frozen: bool = False
    disk: RootStore | None = None
    # whether the store's file rows were read (on the first build)
    rows_read: bool = False
    # the listing last written to the store, and when (monotonic seconds)
    saved_listing: Listing | None = None
    saved_at: float = 0.0
    # paths whose record came from the store and has not been used by a build yet
    from_disk: set[str] = field(default_factory=set)
    # the stored facts not checked yet (each is, when first decoded, by whichever index)
    unchecked: Unchecked = field(default_factory=Unchecked)
    tree: _Tree | None = None
    # the last index per language selection, with the listing it was built from
    indexes: dict[tuple[str, ...], ProjectIndex] = field(default_factory=dict)
    # the sources of the last listing indexed, per language selection
    selections: dict[tuple[str, ...], _Selection] = field(default_factory=dict)
    # reasons already logged for this root (each is logged once)
    logged: set[str] = field(default_factory=set)
    # the listing's problems (path, reason) already logged (each is logged once)
    problems_logged: set[tuple[str, str]] = field(default_factory=set)
    # what confines the root (for a verification walk between calls)
    allowed: AllowedPaths | None = None
    # stored rows of files not listed when the store was opened (to be removed)
    unlisted: list[str] = field(default_factory=list)


class IndexCache:
    """Per-root caches of parsed files (keyed by mtime_ns and size) and resolved graphs.

    A root's listing is kept up to date by a :class:`~context_server.core.watch.Watcher`:
    a call after nothing changed walks nothing and answers from the index it has; after a
    change only the directories the events name are listed again and only the files that
    changed are parsed. Without usable watches (no inotify, a limit reached, the queue
    overflowed) the root is walked, as it is on the first call. The resolved graph is
    reused when no source changed at all. With a ``store``, the first build of a root in
    this process starts from what the store kept (a file whose stat changed but whose
    content hash did not is not parsed again) and every build writes back what changed.
    Safe to share between worker threads.
    """

    def __init__(
        self,
        store: IndexStore | None = None,
        watcher: Watcher | None = None,
        watch: bool = True,
    ) -> None:
        self._roots: dict[Path, _RootCache] = {}
        self._lock = threading.Lock()
        self._store = store
        self._watcher = (watcher or shared_watcher()) if watch else None
        if self._watcher is not None:
            _VERIFIER.add(self)
            weakref.finalize(self, _release, self._watcher, self._roots)

    def build(
        self,
        root: Path,
        languages: tuple[SourceLanguage, ...],
        allowed: AllowedPaths,
        check_cancelled: Callable[[], None] = lambda: None,
        progress: ProgressCallback | None = None,
        boundary: Path | None = None,
    ) -> ProjectIndex:
        """Index the sources of ``languages`` under ``root`` (a real directory), walking
        it only when its watches cannot say what changed.

        ``boundary`` is the allowed root holding ``root``: ``.gitignore`` files between the
        two apply as well.
        """
        with self._lock:
            cache = self._roots.setdefault(root, _RootCache())
        key = tuple(language.name for language in languages)
        # a build makes hundreds of thousands of acyclic objects (listing entries, records):
        # the collector's passes over them would cost a third of a restart
        with cache.build_lock, collector_paused():
            with cache.lock:
                if not cache.opened:
                    cache.opened = True
                    cache.disk = self._store.open(root) if self._store is not None else None
            listing, touched, relisted, restored = self._listing(
                cache, root, allowed, check_cancelled, boundary
            )
            previous = cache.indexes.get(key)
            if previous is not None and previous.listing is listing and not touched:
                reused = IndexStatistics(reused=len(previous.sources), graph_reused=True)
                return replace(previous, statistics=reused)
            index = self._index(
                cache, root, languages, listing, touched, allowed, check_cancelled, progress
            )
            self._log_problems(cache, root, listing)
            index.statistics.walked = relisted is None
            index.statistics.relisted = relisted or 0
            index.statistics.listing_restored = restored
            cache.indexes[key] = index
            self._save_listing(cache, listing, boundary)
            if not cache.frozen and len(listing.files) >= FREEZE_FROM:
                # what the first build of a large root made lives as long as the process:
                # the collector never scans it again (each full pass would walk all of it)
                cache.frozen = True
                gc.freeze()
            return index

    @staticmethod
    def _log_problems(cache: _RootCache, root: Path, listing: Listing) -> None:
        """Log each of the walk's problems (an unreadable directory, a symlink leading out)
        the first time it is seen: every answer lists them, the operator reads them once."""
        for problem in listing.problems:
            seen = (problem.path, problem.reason)
            if seen not in cache.problems_logged:
                cache.problems_logged.add(seen)
                _log.warning("%s: %s: %s", root, problem.path, problem.reason)

    def _save_listing(self, cache: _RootCache, listing: Listing, boundary: Path | None) -> None:
        """Write ``listing`` to the store when it is not there yet, at most every
        :data:`LISTING_SAVE_SECONDS` (a restart checks a stored listing against the tree
        anyway: one a little old only costs it a few directories listed again)."""
        now = time.monotonic()
        if cache.disk is None or listing is cache.saved_listing:
            return
        if cache.saved_listing is not None and now - cache.saved_at < LISTING_SAVE_SECONDS:
            return
        cache.disk.save_listing(str(boundary or ""), pack_listing(listing))
        cache.saved_listing = listing
        cache.saved_at = now

    def _listing(
        self,
        cache: _RootCache,
        root: Path,
        allowed: AllowedPaths,
        check_cancelled: Callable[[], None],
        boundary: Path | None,
    ) -> tuple[Listing, set[str], int | None, bool]:
        """The root's listing brought up to date, the files whose content may have
        changed although their stat did not, how many directories were listed again
        (None: the whole tree was walked), and whether the listing came from the store."""
        tree = cache.tree
        if tree is not None and tree.boundary == boundary and tree.watch is not None:
            changes = tree.watch.take()
            if not changes.full:
                listing = tree.listing
                if changes.directories:
                    listing = refresh(
                        listing,
                        changes.directories,
                        allowed,
                        check_cancelled,
                        tree.watch.add,
                        tree.watch.forget,
                        MANIFESTS,
                    )
                    tree.listing = listing
                return listing, changes.files, len(changes.directories), False
            self._log_once(cache, root, changes.full, tree.watch.failed != "")
            if tree.watch.failed:
                tree.watch.reset()
                tree.watch = None
        watch = tree.watch if tree is not None and tree.boundary == boundary else None
        if tree is None and self._watcher is not None:
            watch = self._watcher.track(root)
            if watch.failed:
                self._log_once(cache, root, watch.failed, True)
                watch = None
        started = time.monotonic()
        if watch is not None:
            watch.reset()
            for directory in inherited_ignore_directories(root, boundary):
                watch.add(directory, None)
        stored = (
            cache.disk.listing(str(boundary or ""))
            if tree is None and cache.disk is not None
            else None
        )
        restored = (
            restore_listing(
                stored,
                root,
                allowed,
                boundary,
                check_cancelled,
                watch.add if watch is not None else None,
                watch.forget if watch is not None else None,
                MANIFESTS,
            )
            if stored
            else None
        )
        if restored is not None:
            listing, touched, relisted, news = restored
            now = time.monotonic()
            cache.tree = _Tree(listing, boundary, watch, now, now - started)
            if not news:
                cache.saved_listing = listing
                cache.saved_at = now
            return listing, touched, relisted, True
        if stored and watch is not None:
            watch.reset()  # the restore's watches: the walk places its own
            for directory in inherited_ignore_directories(root, boundary):
                watch.add(directory, None)
        if tree is None:
            PARSERS.warm()  # the parse child starts up while the tree is walked
        listing = walk_project(
            root,
            allowed,
            check_cancelled,
            boundary,
            watch.add if watch is not None else None,
            MANIFESTS,
        )
        now = time.monotonic()
        cache.tree = _Tree(listing, boundary, watch, now, now - started)
        return listing, set(), None, False

    def _log_once(self, cache: _RootCache, root: Path, reason: str, lasting: bool) -> None:
        if reason in cache.logged:
            return
        cache.logged.add(reason)
        if lasting:
            _log.warning(
                "changes in %s are not watched: %s; the project is walked on every call",
                root,
                reason,
            )
        else:
            _log.info("%s walked again: %s", root, reason)

    def verify(self, root: Path, allowed: AllowedPaths) -> int:
        """Walk ``root`` as its watches see it and note every difference they missed, for
        the next call to list again; the number of directories that differed."""
        with self._lock:
            cache = self._roots.get(root)
        tree = cache.tree if cache is not None else None
        if cache is None or tree is None or tree.watch is None:
            return 0
        started = time.monotonic()
        fresh = walk_project(root, allowed, boundary=tree.boundary, manifests=MANIFESTS)
        with cache.build_lock:
            if cache.tree is not tree or tree.watch is None:
                return 0
            missed = _differences(tree.listing, fresh)
            tree.walked = time.monotonic()
            tree.walk_seconds = tree.walked - started
            if missed:
                _log.info(
                    "%s: a verification walk found %d directories changed without an event",
                    root,
                    len(missed.directories),
                )
                tree.watch.note(missed)
            return len(missed.directories)

    def _due(self) -> list[tuple[Path, AllowedPaths]]:
        """The roots whose verification walk is due, with what confines them."""
        now = time.monotonic()
        due = []
        with self._lock:
            roots = list(self._roots.items())
        for root, cache in roots:
            tree = cache.tree
            index = next(iter(cache.indexes.values()), None)
            if tree is None or tree.watch is None or index is None:
                continue
            wait = max(VERIFY_SECONDS, tree.walk_seconds / VERIFY_SHARE)
            if now - tree.walked >= wait and cache.allowed is not None:
                due.append((root, cache.allowed))
        return due

    def _index(
        self,
        cache: _RootCache,
        root: Path,
        languages: tuple[SourceLanguage, ...],
        listing: Listing,
        touched: set[str],
        allowed: AllowedPaths,
        check_cancelled: Callable[[], None],
        progress: ProgressCallback | None,
    ) -> ProjectIndex:
        cache.allowed = allowed
        with cache.lock:
            if not cache.rows_read:
                cache.rows_read = True
                if cache.disk is not None:
                    stored, unlisted = cache.disk.files({item.relative for item in listing.files})
                    cache.files.update(stored)
                    cache.from_disk.update(stored)
                    cache.unchecked.add(
                        {
                            p: record.facts
                            for p, record in stored.items()
                            if record.facts is not None
                        }
                    )
                    cache.unlisted = unlisted
            known = dict(cache.files)
            from_disk = set(cache.from_disk)
        disk = cache.disk
        names = [item.relative for item in listing.files]
        key = tuple(language.name for language in languages)
        chosen = cache.selections.get(key)
        before_files = chosen.names if chosen is not None else []
        if chosen is not None and chosen.names == names:
            # the same files as the build before (an edit of their content): their languages
            # and module names are what they were
            positions, modules = chosen.positions, chosen.modules
        else:
            positions = [
                (number, language)
                for number, item in enumerate(listing.files)
                if (language := language_of(item.name, languages)) is not None
            ]
            modules = module_names(
                [(listing.files[number].relative, language) for number, language in positions]
            )
            cache.selections[key] = _Selection(names, positions, modules)
        selected = [(listing.files[number], language) for number, language in positions]
        stats = IndexStatistics()
        fresh: dict[str, FileRecord] = {}
        changed: dict[str, FileRecord] = {}
        packed: dict[str, bytes] = {}
        dialects: dict[str, str] = {}
        problems = list(listing.problems)
        plan: list[tuple[FileEntry, SourceLanguage, str, FileRecord | None, bool]] = []
        for item, language in selected:
            module = modules[item.relative]
            cached = known.get(item.relative)
            if cached is not None and (cached.module != module or cached.language != language.name):
                cached = None
            stale = (
                cached is None
                or cached.size != item.size
                or cached.mtime_ns != item.mtime_ns
                or cached.ctime_ns != item.ctime_ns
                or item.relative in touched
            )
            plan.append((item, language, module, cached, stale))
        parsed_now, stats.workers = _parse(
            [(item, lang, module, cached) for item, lang, module, cached, stale in plan if stale],
            allowed,
            check_cancelled,
            progress,
        )
        answers = iter(parsed_now)
        for number, (item, _, _, cached, stale) in enumerate(plan, start=1):
            if number % PROGRESS_EVERY == 0:
                check_cancelled()
            if stale:
                record, parsed = next(answers)
                if parsed or record is not known.get(item.relative):
                    changed[item.relative] = record
            else:
                assert cached is not None
                record, parsed = cached, False
            if parsed:
                stats.parsed += 1
            elif item.relative in from_disk:
                stats.restored += 1
            else:
                stats.reused += 1
            fresh[item.relative] = record
            if record.facts is not None:
                packed[item.relative] = record.facts
                dialects[item.relative] = record.language
            elif record.problem is not None:
                problems.append(Problem(item.relative, record.problem))
        if progress is not None and selected:
            progress(len(selected), len(selected))
        repair = _Repair(cache, listing, dialects, modules, allowed, stats)
        sources = PackedFacts(packed, dialects, modules, repair, cache.unchecked)
        wanted = {name for family in families(languages) for name in family.config_files}
        config_files = [item for item in listing.files if item.name in wanted]
        # what the graph depends on: each source's content (a change its stat does not show
        # is caught by the digest) and each config's stat (one touched is read again)
        configs_stat: tuple[object, ...] = tuple(
            (item.relative, item.size, item.mtime_ns) for item in config_files
        )
        if any(item.relative in touched for item in config_files):
            configs_stat = (*configs_stat, object())
        signature: _Signature = (
            tuple((item.relative, fresh[item.relative].digest) for item, _ in selected),
            configs_stat,
        )
        listed = set(names)
        with cache.lock:
            cache.files.update(fresh)
            gone = [path for path in cache.files if path not in listed]
            for path in gone:
                del cache.files[path]
            # rows of files gone before this process started (never loaded) go too
            gone += [path for path in cache.unlisted if path not in listed]
            cache.unlisted = []
            cache.from_disk.difference_update(fresh)
            cache.from_disk.difference_update(gone)
            previous = cache.graphs.get(key)
        if disk is not None:
            disk.save(changed, gone)
        # the files edited and linked again when the graph was made from the one before
        lineage: tuple[list[str], frozenset[str]] | None = None
        if previous is not None and previous[0] == signature:
            resolver = previous[1]
            stats.graph_reused = True
            lineage = [], frozenset()
        else:
            configs = _read_configs(config_files, allowed)
            direct = None
            content = ""
            if disk is not None:
                content = _content_signature(key, sources, fresh, configs)
                direct = disk.graph(",".join(key), content, list(sources))
                stats.graph_restored = direct is not None
            edited = _edited(previous[0], signature) if previous is not None else None
            relinked = (
                previous[1].relinked(sources, edited)
                if previous is not None and direct is None and edited is not None
                else None
            )
            if relinked is not None:
                assert edited is not None
                resolver, linked = relinked
                stats.relinked = len(linked)
                lineage = edited, linked
            else:
                with collector_paused():
                    resolver = Resolver(sources, configs, direct)
            if disk is not None and direct is None:
                disk.save_graph(",".join(key), content, resolver.graph)
            with cache.lock:
                cache.graphs[key] = (signature, resolver)
        repair.built()
        index = ProjectIndex(root, languages, listing, sources, resolver, problems, stats)
        before = cache.indexes.get(key)
        if before is not None:
            if lineage is not None and previous is not None and before.resolver is previous[1]:
                changed_files, relinked_files = frozenset(lineage[0]), lineage[1]
                step = Edit(
                    changed_files,
                    relinked_files,
                    {path: before.sources[path].declarations for path in changed_files},
                    {path: before.resolver.graph.files(path) for path in relinked_files},
                    before_files,
                )
                index._lineage = before._lineage.after(before._derived, step)
            else:
                before._lineage.clear()
        return index


class _Repair:
    """Parses again a file whose stored facts failed their checks when first decoded (see
    :class:`~context_server.core.packed.PackedFacts`), keeps and stores the new record, and
    counts it as parsed. Those found while the index is built are reported in one warning,
    later ones each in its own."""

    def __init__(
        self,
        cache: _RootCache,
        listing: Listing,
        dialects: dict[str, str],
        modules: dict[str, str],
        allowed: AllowedPaths,
        stats: IndexStatistics,
    ) -> None:
        self._cache = cache
        self._listing = listing
        self._dialects = dialects
        self._modules = modules
        self._allowed = allowed
        self._stats = stats
        self._lock = threading.Lock()
        self._building = True
        self._found = 0

    def __call__(self, path: str) -> SourceFacts:
        item = self._listing.entry(path)
        language = dialect(self._dialects[path])
        module = self._modules[path]
        record = None
        if item is not None:
            [(record, _)], _ = _parse([(item, language, module, None)], self._allowed)
        cache = self._cache
        with cache.lock:
            if record is not None:
                cache.files[path] = record
            else:
                cache.files.pop(path, None)
            cache.from_disk.discard(path)
        if cache.disk is not None and record is not None:
            cache.disk.save({path: record}, ())
        with self._lock:
            self._stats.parsed += 1
            self._stats.restored -= 1
            self._found += 1
            building = self._building
        if not building:
            _log.warning(
                "index store %s: malformed row of %s ignored (re-parsed)", self._where(), path
            )
        if record is None or record.facts is None:
            # the file is no source any more (unreadable, binary): it declares nothing
            return SourceFacts(language.name, "", (), (), frozenset(), (), module)
        return unpack(record.facts, frozenset({language.name}), module)

    def built(self) -> None:
        """The index is built: report what was found so far, each later one on its own."""
        with self._lock:
            self._building = False
            found = self._found
        if found:
            _log.warning(
                "index store %s: %d malformed rows ignored (re-parsed)", self._where(), found
            )

    def _where(self) -> str:
        disk = self._cache.disk
        return str(disk.path) if disk is not None else "(none)"


_SHARED: list[Watcher] = []
_SHARED_LOCK = threading.Lock()


def shared_watcher() -> Watcher:
    """The process's watcher: one inotify instance for every index cache (the kernel
    allows few instances per user, and many watches on one)."""
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(Watcher())
        return _SHARED[0]


def _release(watcher: Watcher, roots: dict[Path, _RootCache]) -> None:
    """Remove the watches of a cache that is gone."""
    for cache in list(roots.values()):
        tree = cache.tree
        if tree is not None and tree.watch is not None:
            watcher.release(tree.watch)


def _differences(watched: Listing, walked: Listing) -> Changes:
    """The directories whose listing differs between what the watches kept and a new
    walk (files added, removed or with another stat; directories added or removed)."""
    found = Changes()

    def parent(relative: str) -> str:
        return relative.rpartition("/")[0]

    old = {(item.relative, item.size, item.mtime_ns, item.ctime_ns) for item in watched.files}
    new = {(item.relative, item.size, item.mtime_ns, item.ctime_ns) for item in walked.files}
    for relative, *_ in old ^ new:
        found.directory(parent(relative))
    for relative in watched.directories.keys() ^ walked.directories.keys():
        found.directory(parent(relative) if relative else "", whole=True)
    return found


class _Verifier:
    """One daemon thread walking, now and then, the watched roots of every live cache."""

    def __init__(self) -> None:
        self._caches: weakref.WeakSet[IndexCache] = weakref.WeakSet()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def add(self, cache: IndexCache) -> None:
        with self._lock:
            self._caches.add(cache)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="context-index-verifier", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            time.sleep(min(VERIFY_SECONDS / 10, 30.0))
            with self._lock:
                caches = list(self._caches)
            for cache in caches:
                for root, allowed in cache._due():
                    try:
                        cache.verify(root, allowed)
                    except Exception:  # a vanished root, a refused path: the next call says
                        _log.debug("verification walk of %s failed", root, exc_info=True)
            del caches


_VERIFIER = _Verifier()


def _edited(old: _Signature, new: _Signature) -> list[str] | None:
    """The source files whose content changed between two graph signatures when nothing
    else did (the same source files in the same order, the same configs); None otherwise."""
    if old[1] != new[1] or len(old[0]) != len(new[0]):
        return None
    changed: list[str] = []
    for (path, digest), (now, content) in zip(old[0], new[0], strict=True):
        if path != now:
            return None
        if digest != content:
            changed.append(path)
    return changed


def _content_signature(
    languages: tuple[str, ...],
    sources: PackedFacts,
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
    jobs: list[tuple[FileEntry, SourceLanguage, str, FileRecord | None]],
    allowed: AllowedPaths,
    check_cancelled: Callable[[], None] = lambda: None,
    progress: ProgressCallback | None = None,
) -> tuple[list[tuple[FileRecord, bool]], int]:
    """The record of each file of ``jobs`` (entry, dialect, module, its previous record)
    and whether it was parsed, and how many parse children parsed them (see
    :mod:`~context_server.core.parsing`: nothing from a repository is parsed in the
    server's own process). A file whose content hash is still its previous record's keeps
    that record's facts under its new stat."""
    results, children = PARSERS.parse(
        [
            ParseJob(item, language.name, module, previous.digest if previous is not None else "")
            for item, language, module, previous in jobs
        ],
        allowed,
        check_cancelled,
        progress,
    )
    for number, ((item, _, _, previous), (_, parsed)) in enumerate(zip(jobs, results, strict=True)):
        if not parsed and previous is not None:
            results[number] = (
                msgspec.structs.replace(
                    previous, size=item.size, mtime_ns=item.mtime_ns, ctime_ns=item.ctime_ns
                ),
                False,
            )
    return results, children


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


class SourceChangedError(ToolError):
    """A file the index listed was removed or replaced while an answer was being made from
    it: the tree changed during the call, and an index made now would not list it so."""


_CHANGED_READ_EMPTY: ContextVar[bool] = ContextVar("changed_read_empty", default=False)


@contextmanager
def changed_sources_read_empty() -> Iterator[None]:
    """Within it, :func:`read_source` reads a file removed or replaced since it was listed
    as empty text instead of raising: the last answer to a call on a tree that keeps
    changing is that of the tree as listed, less the text of what went away."""
    token = _CHANGED_READ_EMPTY.set(True)
    try:
        yield
    finally:
        _CHANGED_READ_EMPTY.reset(token)


def read_source(item: FileEntry, allowed: AllowedPaths) -> str:
    """The text of a source file as indexed (UTF-8, a leading BOM dropped), read confined.

    Raises :class:`SourceChangedError` when the file cannot be read because it is no longer
    what was listed (gone, or replaced by a directory or a symlink)."""
    try:
        data = allowed.read_bytes(item.real, max_bytes=MAX_SOURCE_BYTES)
    except PathRefusedError as exc:
        if _changed_since_listed(item):
            if _CHANGED_READ_EMPTY.get():
                return ""
            raise SourceChangedError(exc.message, exc.code) from exc
        raise
    return data.decode("utf-8-sig", errors="replace")


def _changed_since_listed(item: FileEntry) -> bool:
    try:
        now = os.lstat(item.real)
    except OSError:
        return True
    return (now.st_size, now.st_mtime_ns, now.st_ctime_ns) != (
        item.size,
        item.mtime_ns,
        item.ctime_ns,
    )


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
