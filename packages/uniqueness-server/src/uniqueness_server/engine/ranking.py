"""Found keys ranked best first, holding no more of them than the page asked for.

A search may find hundreds of millions of keys (24 rows of 1,729 columns); a client reads a
page. Keys arrive in batches (rows of source positions, one size a batch) and are ranked as
arrays: a key's score is its columns' judgements combined exactly as
:func:`.plausibility.judge_key` combines them (the same products in the same order, rounded
as Python rounds), so the order is the one ranking each key alone would give. Only the best
``offset + limit`` keys are kept; the others are counted.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

import numpy as np
import numpy.typing as npt

from uniqueness_server.engine.model import MAX_KEY_COLUMNS, Key
from uniqueness_server.engine.plausibility import PLAUSIBLE, ColumnJudgement, judge_key

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
Flags = npt.NDArray[np.bool_]

Judge = Callable[[list[int]], dict[int, ColumnJudgement]]
"""Judges columns (source positions) never judged before; it may judge more than asked."""

_PRUNE = 1_000_000  # keys held past the kept ones before they are ranked and cut


class RankedKeys:
    """Keys ranked by plausibility, then fewest columns, keys without missing values,
    shortest values and column names; the first ``keep`` of them held (all when None)."""

    def __init__(
        self,
        names: Sequence[str],
        missing: Sequence[int],
        average_length: Sequence[float],
        judge: Judge,
        *,
        declared: Collection[tuple[int, ...]] = (),
        plausible_only: bool = False,
        keep: int | None = None,
    ) -> None:
        self._names = names
        self._judge = judge
        self._judged: dict[int, ColumnJudgement] = {}
        width = len(names)
        self._score = np.zeros(width, dtype=np.float64)
        self._near = np.zeros(width, dtype=np.bool_)
        self._seen = np.zeros(width, dtype=np.bool_)
        self._missing = np.asarray(missing, dtype=np.int64) > 0
        self._length = np.asarray(average_length, dtype=np.float64)
        order = sorted(range(width), key=lambda p: names[p])
        self._name_rank = np.empty(width, dtype=np.int64)
        self._name_rank[order] = np.arange(width)
        self._declared = set(declared)
        self._plausible_only = plausible_only
        self._keep = keep
        self._parts: list[tuple[Floats, Ints, Floats, npt.NDArray[np.int32]]] = []
        self._waiting: list[Ints] = []
        self._held = 0  # keys waiting
        # (score, size, missing, length) of the last key kept once ``keep`` are held
        self._worst: tuple[float, int, int, float] | None = None
        self.total = 0
        self.left_out = 0

    def add(self, keys: Ints) -> None:
        """Take a batch of keys (rows of sorted source positions, one size); they are ranked
        once enough wait (columns are judged then, all new ones at once)."""
        if not len(keys):
            return
        self._waiting.append(keys)
        self._held += len(keys)
        if self._keep is not None and self._held > self._keep + _PRUNE:
            self._cut(self._keep)

    def _rank(self, keys: Ints) -> None:
        """Score a batch of keys and keep those that may still make the page."""
        size = keys.shape[1]
        raw = np.ones(len(keys), dtype=np.float64)
        for j in range(size):
            raw *= self._score[keys[:, j]]
            if size > 1:
                raw *= np.where(self._near[keys[:, j]], 0.5, 1.0)
        raw *= 0.9 ** (size - 1)
        has_missing: Flags = np.asarray(self._missing[keys].any(axis=1))
        raw = np.where(has_missing, raw * 0.6, raw)
        score = _rounded(raw, 3)
        if self._plausible_only:
            kept = score >= PLAUSIBLE
            self.left_out += int((~kept).sum())
            keys, score, has_missing = keys[kept], score[kept], has_missing[kept]
        self.total += len(keys)
        length = np.zeros(len(keys), dtype=np.float64)
        for j in range(size):
            length = length + self._length[keys[:, j]]
        length = _rounded(length, 2)
        missing: Ints = has_missing.astype(np.int64)
        if self._worst is not None:
            # a key ranked after the last one kept, before names are compared, is counted only
            worst_score, worst_size, worst_missing, worst_length = self._worst
            after = (score < worst_score) | (
                (score == worst_score)
                & (
                    (size > worst_size)
                    | (
                        (size == worst_size)
                        & (
                            (missing > worst_missing)
                            | ((missing == worst_missing) & (length > worst_length))
                        )
                    )
                )
            )
            keys, score, missing, length = (
                keys[~after],
                score[~after],
                missing[~after],
                length[~after],
            )
            if not len(keys):
                return
        columns = np.full((len(keys), MAX_KEY_COLUMNS), -1, dtype=np.int32)
        columns[:, :size] = keys
        self._parts.append((score, missing, length, columns))

    def page(self, offset: int, limit: int | None) -> list[Key]:
        """The ranked keys from ``offset`` on, at most ``limit`` (all when None); ``offset +
        limit`` must not exceed ``keep``."""
        self._cut(self._keep)
        if not self._parts:
            return []
        score, has_missing, length, columns = self._parts[0]
        end = len(score) if limit is None else offset + limit
        keys: list[Key] = []
        for row in range(offset, min(end, len(score))):
            key = tuple(int(p) for p in columns[row] if p >= 0)
            judgement = judge_key([self._judged[p] for p in key], bool(has_missing[row]))
            keys.append(
                Key(
                    columns=tuple(self._names[p] for p in key),
                    has_missing=bool(has_missing[row]),
                    average_length=float(length[row]),
                    score=judgement.score,
                    confidence=judgement.confidence,
                    reasons=judgement.reasons,
                    basis="declared" if key in self._declared else "scanned",
                )
            )
        return keys

    def _judge_columns(self, batches: list[Ints]) -> None:
        # flags, not numpy.unique: a batch holds up to millions of keys of a few columns
        held = np.zeros(len(self._seen), dtype=np.bool_)
        for keys in batches:
            held[keys.ravel()] = True
        new = np.flatnonzero(held & ~self._seen).tolist()
        if not new:
            return
        # the judge may judge more than asked (columns of keys still to come)
        judged = self._judge(new)
        for p, judgement in judged.items():
            self._judged[p] = judgement
            self._score[p] = judgement.score
            self._near[p] = judgement.near_unique is not None
        self._seen[list(judged)] = True

    def _cut(self, keep: int | None) -> None:
        """Rank the waiting keys with the kept ones as one sorted part, the first ``keep``
        of them kept."""
        if not self._waiting:
            return
        self._judge_columns(self._waiting)
        for keys in self._waiting:
            self._rank(keys)
        self._waiting.clear()
        self._held = 0
        if not self._parts:
            return
        score, has_missing, length, columns = (
            np.concatenate([part[i] for part in self._parts]) for i in range(4)
        )
        size = (columns >= 0).sum(axis=1)
        names = np.where(columns >= 0, self._name_rank[columns], -1)
        # numpy's lexsort sorts by the last key first
        order = np.lexsort(
            (
                *(names[:, j] for j in reversed(range(MAX_KEY_COLUMNS))),
                length,
                has_missing,
                size,
                -score,
            )
        )
        if keep is not None:
            order = order[:keep]
        self._parts = [(score[order], has_missing[order], length[order], columns[order])]
        if keep is not None and len(order) == keep:
            last = order[-1]
            self._worst = (score[last], size[last], has_missing[last], length[last])


def _rounded(values: Floats, digits: int) -> Floats:
    """``round(value, digits)`` of each value, exactly as Python rounds a float. numpy's
    rounding scales first and can round a half the other way (0.1225 is 0.122 in Python,
    0.123 in numpy): values that close to a half are rounded by Python."""
    scaled = values * 10.0**digits
    rounded = np.round(values, digits)
    near = np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6
    if near.any():
        # scores are products of a few column scores: millions of keys share a few values
        distinct, inverse = np.unique(values[near], return_inverse=True)
        exact = np.array([round(float(v), digits) for v in distinct], dtype=np.float64)
        rounded[near] = exact[inverse.reshape(-1)]
    return rounded
