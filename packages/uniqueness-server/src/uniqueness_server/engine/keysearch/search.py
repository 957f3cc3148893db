"""Every minimal key of up to a given size, by HyUCC's hybrid of sampling and checking.

1. *Sample*: agree sets of row pairs likely to agree a lot (:mod:`.sampling`) are non-keys.
2. *Induce*: the minimal sets no known agree set contains are the only candidates left
   (:mod:`.cover`).
3. *Check*: candidates are checked level by level, smallest first, with position-list indexes
   (:mod:`.partitions`). A candidate found unique is a minimal key (every smaller set was
   ruled out before); one that is not yields a row pair whose agree set goes back to step 2,
   ruling out this candidate and, usually, many others. When many candidates of a level fail,
   another round of sampling runs before the next level.

The records may be a sample of the source's rows: a duplicate in a sample is a duplicate of
the source, so sampled agree sets still rule out soundly, but a candidate the sample cannot
reject is then decided by ``verify`` (the backend's check over every row); one it finds
duplicated rules out itself, as an agree set would.

The answer is exact: a candidate is reported only after a check over every row, and a set is
ruled out only by the agree set of two real rows (or its own failed check). No limit applies
to the number of columns; the cost follows the number of candidates the agree sets leave,
not the number of combinations.
(HyUCC: T. Papenbrock, F. Naumann, "A Hybrid Approach for Efficient Unique Column Combination
Discovery", BTW 2017.)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.cover import Cover, TooManyCandidatesError
from uniqueness_server.engine.keysearch.partitions import Partitions, group_by_prefix
from uniqueness_server.engine.keysearch.records import Records, unique_rows
from uniqueness_server.engine.keysearch.sampling import Sampler, pairs_agree
from uniqueness_server.engine.keysearch.stream import Emit, KnownKeys, walk_last_level
from uniqueness_server.engine.keysearch.triples import walk_to_three

Ints = npt.NDArray[np.int64]

Progress = Callable[[float, str], None]
"""Told how far the search is (0..1) and what it does, at least every :data:`REPORT_SECONDS`
while it works."""

REPORT_SECONDS = 0.5
PAIRS_PER_ROUND = 50_000  # row pairs a sampling round compares, at most
PAIRS_PER_ROUND_CELLS = 20_000_000  # and cells
FAILURE_RATIO = 0.01  # more failed checks than this per passed one: sample again
WALK_WIDTH = 2_000  # keys of up to 2 of at least this many columns over at most
WALK_ROWS = 1_000  # this many rows are decided by the walk of :mod:`.triples`
_PAIRS_AT_ONCE = 2_000_000  # column pairs decided in bulk at once, at most about this many


Pairs = Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], npt.NDArray[np.bool_]]
"""Given column pairs (source positions ``a[i]``, ``b[i]``), whether each is unique over every
row: a bulk check of many pairs at once (counting bounds, row samples, pivot comparisons)."""

Sink = Callable[[npt.NDArray[np.int64]], None]
"""Takes keys found: rows of sorted source positions, one key size a call."""

Verify = Callable[[list[tuple[int, ...]]], set[tuple[int, ...]]]
"""Given candidates (sorted source positions) no sampled row pair rules out, the ones holding
a duplicate among all rows of the source."""


@dataclass(frozen=True, slots=True)
class KeysFound:
    """The minimal keys (sorted source positions, smallest keys first), how many candidates
    were decided and how many of them were checked against every row."""

    keys: list[tuple[int, ...]]
    checked: int
    full_checks: int


def minimal_keys(
    records: Records,
    limit: int,
    check_cancelled: Callable[[], None],
    progress: Progress | None = None,
    capacity: int | None = None,
    verify: Verify | None = None,
    pairs: Pairs | None = None,
    known: Sequence[tuple[int, ...]] = (),
    sink: Sink | None = None,
) -> KeysFound:
    """Every minimal key of at most ``limit`` columns of ``records`` (one row or more).

    ``verify``: the records are a sample, and candidates they cannot reject are decided by it
    (see :data:`Verify`); without it they hold every row of the source. ``known``: sets of
    source positions unique already (declared by the database): a candidate holding one is
    a key without a check. ``pairs``: a last
    level of pairs is decided by it in bulk (see :data:`Pairs`), and a search of keys of at
    most two columns then samples no row pairs: witnesses of the single columns rule out
    what pairs they can, the bulk check decides the rest without needing witnesses.
    ``sink``: the keys go to it in batches as they are found (see :data:`Sink`) and the
    answer's ``keys`` stays empty, so an answer too large to hold is still given whole.

    When the agree sets leave more than ``capacity`` candidates at once, the levels below
    ``limit`` are searched again with a cover of their own and the last level is walked
    depth first (:mod:`.stream`), holding none of its candidates; keys of up to 3 columns
    over every row (no ``verify``) are instead all decided one first column at a time
    (:mod:`.triples`), holding no candidate of any size. Only when the levels below leave
    too many otherwise does it raise :class:`TooManyCandidatesError`."""
    report = _Reporter(progress)
    width = records.width
    limit = min(limit, width)
    if not width or limit < 1:
        return KeysFound([], 0, 0)
    collected: list[tuple[int, ...]] = []
    where = np.asarray(records.positions, dtype=np.int64)

    def emit(columns: Ints) -> None:
        if not len(columns):
            return
        found = np.sort(where[columns], axis=1)
        if sink is None:
            collected.extend(tuple(k) for k in found.tolist())
        else:
            sink(found)

    index = {p: c for c, p in enumerate(records.positions)}
    held = [[index[p] for p in k] for k in known if set(k) <= index.keys()]
    if verify is None and limit <= 2 and width >= WALK_WIDTH and records.count <= WALK_ROWS:
        # many pairs over few rows: bit sets of row pairs decide a first column's pairs in
        # one array operation (64 x 6,832: 5 s, against 44 s for the bulk check's pivots)
        report(0.0, "checking the candidate keys one first column at a time", force=True)
        checked = walk_to_three(records, limit, emit, check_cancelled, report)
        report(1.0, "search done", force=True)
        return KeysFound(sorted(collected, key=lambda k: (len(k), k)), checked, checked)
    if pairs is not None and verify is None and limit <= 2:
        checked = _pairs_in_bulk(records, pairs, check_cancelled, report, limit, held, emit)
        return KeysFound(sorted(collected, key=lambda k: (len(k), k)), checked, checked)
    try:
        keys, checks, full = _levels(
            records, limit, limit, check_cancelled, report, capacity, verify, held
        )
        streamed = False
    except TooManyCandidatesError:
        if limit < 2:
            raise
        if limit == 3 and verify is None:
            # the keys of 1 and 2 columns may be too many to hold as well: every size is
            # decided one first column at a time (:mod:`.triples`)
            report(0.0, "checking the candidate keys one first column at a time", force=True)
            checks = walk_to_three(records, limit, emit, check_cancelled, report)
            report(1.0, "search done", force=True)
            return KeysFound(sorted(collected, key=lambda k: (len(k), k)), checks, checks)
        keys, checks, full = _levels(
            records, limit - 1, limit, check_cancelled, report, capacity, verify, held
        )
        streamed = True
    for size in range(1, limit + 1):
        of_size = [k for k in keys if len(k) == size]
        if of_size:
            emit(np.array(of_size, dtype=np.int64))
    if streamed:
        walked, verified = _walk(records, limit, keys, emit, check_cancelled, report, verify)
        checks += walked
        full += walked if verify is None else verified
    report(1.0, "search done", force=True)
    return KeysFound(sorted(collected, key=lambda k: (len(k), k)), checks, full)


def _levels(
    records: Records,
    top: int,
    limit: int,
    check_cancelled: Callable[[], None],
    report: _Reporter,
    capacity: int | None,
    verify: Verify | None,
    held: list[list[int]],
) -> tuple[list[tuple[int, ...]], int, int]:
    """The minimal keys of at most ``top`` columns (search columns), level by level from a
    cover (progress told as a part of a search up to ``limit``), how many candidates were
    decided and how many by a check of every row."""
    width = records.width
    cover = Cover(width, top, capacity)
    # with two rows or more the empty set is no key: start from the single columns
    cover.exclude_all(np.zeros((1, width), dtype=np.bool_), check_cancelled)
    per_round = max(1_000, min(PAIRS_PER_ROUND, PAIRS_PER_ROUND_CELLS // width))
    sampler = Sampler(records, per_round, check_cancelled)
    report(0.0, "sampling row pairs", force=True)
    _exclude_all(cover, sampler.round(), check_cancelled)
    partitions = Partitions(records, check_cancelled)
    keys: list[tuple[int, ...]] = []
    checks = full = 0
    for size in range(1, top + 1):
        check_cancelled()
        candidates = cover.level(size)
        if not len(candidates):
            if not any(len(cover.level(k)) for k in range(size + 1, top + 1)):
                break
            continue
        settled = _holding(candidates.astype(np.int64), held)
        keys += [tuple(c) for c in candidates[settled].tolist()]
        candidates = candidates[~settled]
        groups = group_by_prefix(candidates)
        checked = failed = 0
        witnesses: list[tuple[int, int]] = []
        passed: list[tuple[int, ...]] = []
        total = max(1, len(candidates))
        for prefix, partners in groups:
            check_cancelled()
            report(
                (size - 1 + checked / total) / limit,
                f"checking {total} candidate keys of {size} columns ({checked} done)",
                force=not checked,  # every level is announced
            )
            # the last level's failures extend to nothing searched: no witness needed
            unique, found = partitions.check(prefix, partners, witness=size < top)
            passed += [(*prefix, int(q)) for q in partners[unique].tolist()]
            witnesses += found
            checked += len(partners)
            failed += len(partners) - int(unique.sum())
        duplicated: list[tuple[int, ...]] = []
        if verify is not None and passed:
            report(
                (size - 1 + checked / total) / limit, f"checking {len(passed)} keys on every row"
            )
            full += len(passed)
            passed, duplicated = _verified(records, passed, verify)
            failed += len(duplicated)
        elif verify is None:
            full += checked
        keys += passed
        checks += checked
        if size == top:
            break  # the failed candidates of the last level extend to nothing searched
        ruled_out = pairs_agree(records, witnesses)
        if duplicated:
            ruled_out = unique_rows(np.concatenate([ruled_out, _as_agree(records, duplicated)]))
        _exclude_all(cover, ruled_out, check_cancelled)
        if failed > FAILURE_RATIO * (checked - failed) and not sampler.exhausted:
            report(size / limit, "sampling more row pairs")
            _exclude_all(cover, sampler.round(), check_cancelled)
    return keys, checks, full


def _walk(
    records: Records,
    size: int,
    below: list[tuple[int, ...]],
    emit: Emit,
    check_cancelled: Callable[[], None],
    report: _Reporter,
    verify: Verify | None,
) -> tuple[int, int]:
    """The last level walked depth first (:func:`.stream.walk_last_level`), its keys handed
    to ``emit`` (those of a sample first confirmed by ``verify``); how many sets were
    checked, and how many of them over every row."""
    verified = 0

    def found(keys: Ints) -> None:
        nonlocal verified
        if verify is not None:
            verified += len(keys)
            kept, _ = _verified(records, [tuple(k) for k in keys.tolist()], verify)
            keys = np.array(kept, dtype=np.int64).reshape(-1, size)
        if len(keys):
            emit(keys)

    def told(fraction: float, message: str) -> None:
        report((size - 1 + fraction) / size, message)

    report(
        (size - 1) / size,
        f"checking the candidate keys of {size} columns one prefix at a time (too many to hold)",
        force=True,
    )

    checked = walk_last_level(
        records,
        size,
        KnownKeys(records.width, size, below),
        found,
        check_cancelled,
        told,
    )
    return checked, verified


def _pairs_in_bulk(
    records: Records,
    pairs: Pairs,
    check_cancelled: Callable[[], None],
    report: _Reporter,
    limit: int,
    held: list[list[int]],
    emit: Emit,
) -> int:
    """Keys of at most ``limit`` (1 or 2) columns: the single columns checked, then every
    pair of two non-unique ones decided by ``pairs`` in bulk, a slice of first columns at a
    time (millions of pairs are never laid out at once). No agree set is needed: a pair's
    witness would only rule out the pair itself, which the bulk check decides as cheaply.
    Returns how many candidates were checked."""
    report(0.0, f"checking {records.width} candidate keys of 1 column", force=True)
    columns = np.arange(records.width, dtype=np.int64)
    unique = _holding(columns[:, None], held)
    checked = int((~unique).sum())
    unique[~unique], _ = Partitions(records, check_cancelled).check(
        (), columns[~unique], witness=False
    )
    check_cancelled()
    emit(columns[unique][:, None])
    others = columns[~unique] if limit == 2 else columns[:0]
    total = len(others) * (len(others) - 1) // 2
    report(0.5, f"checking {total} candidate keys of 2 columns", force=True)
    done = start = 0
    while start < len(others) - 1:
        # first columns others[start:stop] with their later partners: about _PAIRS_AT_ONCE
        stop, count = start, 0
        while stop < len(others) - 1 and (count == 0 or count < _PAIRS_AT_ONCE):
            count += len(others) - 1 - stop
            stop += 1
        first = np.repeat(np.arange(start, stop), len(others) - 1 - np.arange(start, stop))
        second = np.concatenate([np.arange(i + 1, len(others)) for i in range(start, stop)])
        both = np.stack([others[first], others[second]], axis=1)
        decided = _holding(both, held)
        checked += int((~decided).sum())
        where = np.asarray(records.positions, dtype=np.int64)
        decided[~decided] = pairs(where[both[~decided, 0]], where[both[~decided, 1]])
        if decided.any():
            emit(both[decided])
        done += count
        report(0.5 + done / max(1, 2 * total), f"checking {total} candidate keys of 2 columns")
        check_cancelled()
        start = stop
    report(1.0, "search done", force=True)
    return checked


def _holding(candidates: npt.NDArray[np.int64], held: list[list[int]]) -> npt.NDArray[np.bool_]:
    """For each candidate (a row of search columns): does it hold one of the ``held`` sets?"""
    found = np.zeros(len(candidates), dtype=np.bool_)
    for columns in held:
        inside = np.ones(len(candidates), dtype=np.bool_)
        for c in columns:
            inside &= (candidates == c).any(axis=1)
        found |= inside
    return found


def _verified(
    records: Records, passed: list[tuple[int, ...]], verify: Verify
) -> tuple[list[tuple[int, ...]], list[tuple[int, ...]]]:
    """``passed`` (search columns) split into the keys and the sets ``verify`` finds
    duplicated among every row."""
    source = [tuple(sorted(records.positions[c] for c in key)) for key in passed]
    duplicated = verify(source)
    keys = [k for k, s in zip(passed, source, strict=True) if s not in duplicated]
    failed = [k for k, s in zip(passed, source, strict=True) if s in duplicated]
    return keys, failed


def _as_agree(records: Records, sets: list[tuple[int, ...]]) -> npt.NDArray[np.uint8]:
    """Non-keys (search columns) as packed agree sets: each rules out what it holds."""
    flags = np.zeros((len(sets), records.width), dtype=np.bool_)
    for i, key in enumerate(sets):
        flags[i, list(key)] = True
    return np.packbits(flags, axis=1)


def _exclude_all(
    cover: Cover, packed: npt.NDArray[np.uint8], check_cancelled: Callable[[], None]
) -> None:
    """Rule out what the agree sets (packed bits) rule out, largest first (a large set
    rules out most, and the smaller ones inside it then rule out nothing more)."""
    if not len(packed):
        return
    agree = np.unpackbits(packed, axis=1, count=cover.width).astype(np.bool_)
    cover.exclude_all(agree[np.argsort(-agree.sum(axis=1), kind="stable")], check_cancelled)


class _Reporter:
    """Forwards progress at most every :data:`REPORT_SECONDS`/2 (and when forced)."""

    def __init__(self, progress: Progress | None) -> None:
        self._progress = progress
        self._last = -1.0

    def __call__(self, fraction: float, message: str, *, force: bool = False) -> None:
        if self._progress is None:
            return
        now = time.monotonic()
        if force or now - self._last >= REPORT_SECONDS / 2:
            self._last = now
            self._progress(min(1.0, max(0.0, fraction)), message)
