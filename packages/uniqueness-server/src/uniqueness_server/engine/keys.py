"""Key discovery: every minimal unique column combination, ranked best first."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import suppress
from dataclasses import replace

import numpy as np
import numpy.typing as npt
from mcp_common import ErrorCode, ToolContext, ToolError

from uniqueness_server.engine.codes import (
    MAX_CELLS,
    MAX_HELD_BYTES,
    ROW_CELLS,
    CodeMatrix,
    TooManyCellsError,
)
from uniqueness_server.engine.columns import resolve_columns
from uniqueness_server.engine.heartbeat import Heartbeat
from uniqueness_server.engine.keysearch import (
    KeysFound,
    Progress,
    Sink,
    TooManyCandidatesError,
    minimal_keys,
)
from uniqueness_server.engine.metadata import (
    metadata_scope_note,
    missing_bound,
    proves,
    read_metadata,
)
from uniqueness_server.engine.model import MAX_KEY_COLUMNS, KeySearch, Nulls, TableMetadata
from uniqueness_server.engine.plausibility import ColumnJudgement, column_kind, judge_column
from uniqueness_server.engine.ranking import RankedKeys
from uniqueness_server.engine.sql import sample_values
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS, ColumnStats, column_stats
from uniqueness_server.engine.table import Table

MOST_CANDIDATES = 5_000_000  # candidates a search holds at once, at most (about 100 MB of sets)
# (past it the largest size is walked depth first, holding none of its candidates)
REMOTE_CELLS = 20_000_000  # codes fetched from a database or cluster, at most
MOST_RANKED = 1_000_000  # keys held for ranking, at most (a page ends within them)
SAMPLE_ROWS = 100_000  # rows coded as a sample when the codes of every row would not fit
_KIND_SAMPLE = 200

Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]


def find_keys(
    table: Table,
    *,
    columns: Sequence[str] | None = None,
    max_columns: int = 3,
    nulls: Nulls = Nulls.EQUAL,
    plausible_only: bool = False,
    offset: int = 0,
    limit: int | None = None,
    context: ToolContext | None = None,
) -> KeySearch:
    """All minimal unique combinations of up to ``max_columns`` of ``columns`` (default all).

    Ranked by plausibility as an identifier (see :mod:`.plausibility`), then fewest columns,
    keys without missing values and shortest values. ``plausible_only`` leaves out keys whose
    uniqueness looks accidental (their number is reported). The answer's ``keys`` are the
    ranked keys from ``offset`` on, at most ``limit`` (all when None), and ``keys_found``
    counts them all: the search holds only the best ``offset + limit`` keys, so an answer of
    millions of keys is paged in bounded memory.
    """
    context = context or ToolContext()
    if not 1 <= max_columns <= MAX_KEY_COLUMNS:
        raise ToolError(
            f"maxColumns must be between 1 and {MAX_KEY_COLUMNS} but was {max_columns}",
            ErrorCode.INVALID_ARGUMENT,
        )
    positions = resolve_columns(columns, table.names) if columns else tuple(range(len(table.names)))
    notes: list[str] = []
    metadata = read_metadata(table)
    scope = metadata_scope_note(table)
    if scope is not None:
        notes.append(scope)
    table.backend.progress.scan_reports = False
    with Heartbeat(table.backend.progress.report) as heartbeat:
        heartbeat.phase(0.0, 40.0, f"reading {table.label}")
        stats = column_stats(table, positions, code=True)
        declared = declared_keys(metadata, stats, positions, nulls)
        ranked = RankedKeys(
            table.names,
            [stats.missing[p] if p in set(positions) else 0 for p in range(len(table.names))],
            stats.average_length,
            _Judge(table, stats, positions),
            declared=declared,
            plausible_only=plausible_only,
            keep=None if limit is None else min(offset + limit, MOST_RANKED),
        )
        heartbeat.phase(40.0, 100.0, "searching keys")
        checked = (0, 0)
        if stats.rows:
            search = search_keys(
                table,
                positions,
                max_columns,
                nulls,
                context,
                rows=stats.rows,
                codes=stats.codes,
                known=declared,
                hash_safe=stats.hash_safe,
                progress=heartbeat.update,
                notes=notes,
                sink=ranked.add,
            )
            checked = (search.checked, search.full_checks)
    if not stats.rows:
        notes.append(
            "the source has no rows, so every column is trivially unique; no key is reported"
        )
    page = ranked.page(offset, limit)
    if limit is not None and offset + limit > MOST_RANKED and ranked.total > MOST_RANKED:
        # a page that deep would hold the ranking of millions of keys; the count is exact
        raise ToolError(
            f"found {ranked.total:,} keys; pages end within the best {MOST_RANKED:,} "
            f"(offset {offset:,} asked); name fewer columns, lower maxColumns or set "
            "plausibleOnly to narrow the answer",
            ErrorCode.INVALID_ARGUMENT,
        )
    return KeySearch(
        source=table.label,
        rows=stats.rows,
        searched_columns=tuple(table.names[p] for p in positions),
        max_columns=max_columns,
        keys=tuple(page),
        keys_found=ranked.total,
        candidates_checked=checked[0],
        full_checks=checked[1],
        notes=tuple(notes),
        implausible_left_out=ranked.left_out,
        metadata=metadata,
        declared_used=len(declared),
        missing=tuple(
            stats.missing[p] if p in set(positions) else None for p in range(len(table.names))
        ),
    )


class _Judge:
    """Judges the columns of found keys, each from a sample of its values (read in one
    query per run of columns, see :func:`.sql.sample_values`). Keys usually share a few
    columns, judged when first seen; when later keys bring new ones (a walk over thousands
    of first columns), every searched column left is judged then: the sample is read twice
    at most, not once per batch of keys (133 reads, 35 s, on 6,832 columns)."""

    def __init__(self, table: Table, stats: ColumnStats, positions: Sequence[int]) -> None:
        self._table = table
        self._stats = stats
        self._left = set(positions)
        self._calls = 0

    def __call__(self, new: list[int]) -> dict[int, ColumnJudgement]:
        """Judgements of at least ``new`` (source positions)."""
        self._calls += 1
        wanted = set(new) if self._calls == 1 else set(new) | self._left
        self._left -= wanted
        return _judged(self._table, self._stats, sorted(wanted))


def _judged(table: Table, stats: ColumnStats, positions: list[int]) -> dict[int, ColumnJudgement]:
    """Each column of ``positions`` judged, its kind from a sample of rows."""
    values = sample_values(table, positions, _KIND_SAMPLE)
    return {
        p: judge_column(
            table.names[p],
            column_kind(values[p]),
            stats.average_length[p],
            stats.estimated_distinct[p] / stats.rows if stats.rows else 0.0,
        )
        for p in positions
    }


def declared_keys(
    metadata: TableMetadata | None, stats: ColumnStats, positions: Sequence[int], nulls: Nulls
) -> list[tuple[int, ...]]:
    """The keys the source's database declares among ``positions`` that prove uniqueness
    under ``nulls`` (sorted positions each)."""
    searched = set(positions)
    found: list[tuple[int, ...]] = []
    for declared_key in metadata.keys if metadata is not None else ():
        key_positions = declared_key.positions
        if (
            key_positions is not None
            and set(key_positions) <= searched
            and proves(declared_key, nulls, missing_bound(declared_key, stats.missing))
        ):
            found.append(tuple(sorted(key_positions)))
    return found


def search_keys(
    table: Table,
    positions: Sequence[int],
    max_columns: int,
    nulls: Nulls,
    context: ToolContext,
    *,
    rows: int,
    codes: CodeMatrix | None = None,
    known: Sequence[tuple[int, ...]] = (),
    hash_safe: frozenset[int] = frozenset(),
    sample_rows: int | None = None,
    progress: Progress | None = None,
    notes: list[str] | None = None,
    sink: Sink | None = None,
) -> KeysFound:
    """Every minimal unique set of at most ``max_columns`` of ``positions`` (``rows`` rows).

    The one key search (:mod:`.keysearch`), on any backend: it reads integer codes of the
    searched columns, from ``codes`` when given, else from the backend (see
    :meth:`~uniqueness_server.engine.backend.Backend.codes`): of every row when they fit the
    memory budget (:data:`MAX_CELLS` cells in this process, :data:`REMOTE_CELLS` from a
    database or cluster) and ``sample_rows`` is not set, else of a sample of at most
    ``sample_rows`` (default :data:`SAMPLE_ROWS`) rows, whose surviving candidates the backend
    then checks over every row. ``known`` sets are unique already (declared, or checked):
    candidates holding one need no check. ``notes`` gets a note when all the columns
    together hold duplicate rows. ``sink``: the keys go to it as they are found (see
    :data:`~uniqueness_server.engine.keysearch.Sink`), not into the answer.
    """
    backend = table.backend
    source = backend.search_source(table, positions, nulls, context, rows=rows, hash_safe=hash_safe)
    budget = MAX_CELLS if backend.local else REMOTE_CELLS
    width = max(1, len(positions))
    # held in this process beside the engine's own memory: each row's work arrays count too
    # (a remote budget is six times smaller, so its rows stay in bounds without them)
    row_width = width + (ROW_CELLS if backend.local else 0)
    whole = codes is not None
    if codes is None and sample_rows is None and rows * row_width <= budget:
        with suppress(TooManyCellsError):
            codes = backend.codes(table, positions, source.relation(positions), budget)
            whole = True
    take = max(2, min(sample_rows or SAMPLE_ROWS, budget // row_width))
    while codes is None:
        relation = source.relation(positions) if take >= rows else source.samples([take])[0]
        try:
            # a sample holds about ``take`` rows (a random one may hold a few more)
            codes = backend.codes(table, positions, relation, max(budget, 2 * take * row_width))
        except TooManyCellsError:
            if take <= 2:
                raise ToolError(
                    f"two rows of {table.label} hold more than {MAX_HELD_BYTES:,} bytes of "
                    "distinct values, too long to search for keys; name other columns",
                    ErrorCode.INVALID_ARGUMENT,
                ) from None
            # long values (megabytes a row): a smaller sample, its survivors checked in place
            take = max(2, min(take, rows) // 4)
    whole = whole or codes.rows >= rows
    complete = tuple(sorted(positions))
    # the whole set's check says when no key can exist (worth it while the set is narrow); a
    # known key inside it proves it unique without one
    whole_checked = (
        notes is not None
        and len(positions) <= EXACT_DISTINCT_COLUMNS
        and not any(set(k) <= set(complete) for k in known)
    )
    if whole_checked:
        if whole:
            repeated = not codes.unique(complete, nulls)
        else:
            repeated = bool(source.duplicated([complete], source.relation(complete)))
        if repeated and notes is not None:
            notes.append("all searched columns together hold duplicate rows, so no key exists")

    def verify(candidates: list[tuple[int, ...]]) -> set[tuple[int, ...]]:
        needed = sorted({p for c in candidates for p in c})
        return source.duplicated(candidates, source.relation(needed))

    def pairs(a: Ints, b: Ints) -> Flags:
        return matrix.unique_pairs(a, b, nulls, context.check_cancelled)

    matrix = codes
    try:
        found = minimal_keys(
            codes.records(positions, nulls),
            max_columns,
            context.check_cancelled,
            progress,
            MOST_CANDIDATES,
            None if whole else verify,
            pairs,
            known,
            sink,
        )
    except TooManyCandidatesError as exc:
        # even the levels below the largest size leave too many candidates to hold (or,
        # said by the walk, too many columns for its matrix of pairs)
        reason = str(exc) or (
            f"{len(positions)} columns over {rows} rows leave more than "
            f"{MOST_CANDIDATES:,} candidate keys of fewer than {max_columns} columns open at "
            "once"
        )
        raise ToolError(
            f"{reason}, too many to check; name fewer columns or lower maxColumns (keys of up "
            "to 3 columns over every row are searched without this limit)",
            ErrorCode.INVALID_ARGUMENT,
        ) from None
    # the whole set's check is a combination decided over every row like any other
    return replace(
        found,
        checked=found.checked + whole_checked,
        full_checks=found.full_checks + whole_checked,
    )
