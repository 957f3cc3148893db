"""Every minimal key of up to a given size, by HyUCC's hybrid of sampling and checking.

1. *Sample*: agree sets of row pairs likely to agree a lot (:mod:`.sampling`) are non-keys.
2. *Induce*: the minimal sets no known agree set contains are the only candidates left
   (:mod:`.cover`).
3. *Check*: candidates are checked level by level, smallest first, with position-list indexes
   (:mod:`.partitions`). A candidate found unique is a minimal key (every smaller set was
   ruled out before); one that is not yields a row pair whose agree set goes back to step 2,
   ruling out this candidate and, usually, many others. When many candidates of a level fail,
   another round of sampling runs before the next level.

The answer is exact: a candidate is reported only after its check, and a set is ruled out
only by the agree set of two real rows. No limit applies to the number of columns; the cost
follows the number of candidates the agree sets leave, not the number of combinations.
(HyUCC: T. Papenbrock, F. Naumann, "A Hybrid Approach for Efficient Unique Column Combination
Discovery", BTW 2017.)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.keysearch.cover import Cover
from uniqueness_server.engine.keysearch.partitions import Partitions, group_by_prefix
from uniqueness_server.engine.keysearch.records import Records
from uniqueness_server.engine.keysearch.sampling import Sampler, pairs_agree

Progress = Callable[[float, str], None]
"""Told how far the search is (0..1) and what it does, at least every :data:`REPORT_SECONDS`
while it works."""

REPORT_SECONDS = 0.5
PAIRS_PER_ROUND = 50_000  # row pairs a sampling round compares, at most
PAIRS_PER_ROUND_CELLS = 20_000_000  # and cells
FAILURE_RATIO = 0.01  # more failed checks than this per passed one: sample again


@dataclass(frozen=True, slots=True)
class KeysFound:
    """The minimal keys (sorted source positions, smallest keys first) and how many
    candidates were checked against every row."""

    keys: list[tuple[int, ...]]
    checked: int


def minimal_keys(
    records: Records,
    limit: int,
    check_cancelled: Callable[[], None],
    progress: Progress | None = None,
    capacity: int | None = None,
) -> KeysFound:
    """Every minimal key of at most ``limit`` columns of ``records`` (one row or more).

    Raises :class:`TooManyCandidatesError` when the sampled agree sets leave more than
    ``capacity`` candidates at once (the caller then decides combinations another way)."""
    report = _Reporter(progress)
    width = records.width
    limit = min(limit, width)
    if not width or limit < 1:
        return KeysFound([], 0)
    cover = Cover(width, limit, capacity)
    # with two rows or more the empty set is no key: start from the single columns
    cover.exclude_all(np.zeros((1, width), dtype=np.bool_), check_cancelled)
    sampler = Sampler(records, max(1_000, min(PAIRS_PER_ROUND, PAIRS_PER_ROUND_CELLS // width)))
    report(0.0, "sampling row pairs", force=True)
    _exclude_all(cover, sampler.round(), check_cancelled)
    partitions = Partitions(records)
    keys: list[tuple[int, ...]] = []
    checks = 0
    for size in range(1, limit + 1):
        check_cancelled()
        candidates = cover.level(size)
        if not len(candidates):
            if not any(len(cover.level(k)) for k in range(size + 1, limit + 1)):
                break
            continue
        groups = group_by_prefix(candidates)
        checked = failed = 0
        witnesses: list[tuple[int, int]] = []
        total = len(candidates)
        for prefix, partners in groups:
            check_cancelled()
            report(
                (size - 1 + checked / total) / limit,
                f"checking {total} candidate keys of {size} columns ({checked} done)",
                force=not checked,  # every level is announced
            )
            # the last level's failures extend to nothing searched: no witness needed
            unique, found = partitions.check(prefix, partners, witness=size < limit)
            keys += [(*prefix, int(q)) for q in partners[unique].tolist()]
            witnesses += found
            checked += len(partners)
            failed += len(found)
        checks += checked
        if size == limit:
            break  # the failed candidates of the last level extend to nothing searched
        _exclude_all(cover, pairs_agree(records, witnesses), check_cancelled)
        if failed > FAILURE_RATIO * (checked - failed) and not sampler.exhausted:
            report(size / limit, "sampling more row pairs")
            _exclude_all(cover, sampler.round(), check_cancelled)
    report(1.0, f"found {len(keys)} keys", force=True)
    found_keys = [tuple(sorted(records.positions[c] for c in key)) for key in keys]
    return KeysFound(sorted(found_keys, key=lambda k: (len(k), k)), checks)


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
