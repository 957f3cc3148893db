"""Key discovery: every minimal unique column combination, ranked best first."""

# SQL text here is built only from internal identifiers (c1..cn, quoted) and integers;
# client values never reach it, so string-built queries are safe.
# ruff: noqa: S608

from __future__ import annotations

from collections.abc import Sequence

from mcp_common import ErrorCode, ToolContext, ToolError

from uniqueness_server.engine.columns import resolve_columns
from uniqueness_server.engine.heartbeat import Heartbeat
from uniqueness_server.engine.keysearch import TooManyCandidatesError, minimal_keys
from uniqueness_server.engine.lattice import (
    MAX_CANDIDATES,
    UniquenessOracle,
    count_candidates,
    minimal_unique_sets,
)
from uniqueness_server.engine.metadata import (
    metadata_scope_note,
    missing_bound,
    proves,
    read_metadata,
)
from uniqueness_server.engine.model import MAX_KEY_COLUMNS, Key, KeySearch, Nulls, TableMetadata
from uniqueness_server.engine.plausibility import PLAUSIBLE, ColumnKind, column_kind, judge_key
from uniqueness_server.engine.sql import sampled_list
from uniqueness_server.engine.stats import EXACT_DISTINCT_COLUMNS, ColumnStats, column_stats
from uniqueness_server.engine.table import Table

CANDIDATES = 200_000  # candidates the in-memory search holds before the lattice takes over
MOST_CANDIDATES = 5_000_000  # and at all, where the lattice cannot (about 100 MB of sets)
_KIND_SAMPLE = 200


def find_keys(
    table: Table,
    *,
    columns: Sequence[str] | None = None,
    max_columns: int = 3,
    nulls: Nulls = Nulls.EQUAL,
    plausible_only: bool = False,
    context: ToolContext | None = None,
) -> KeySearch:
    """All minimal unique combinations of up to ``max_columns`` of ``columns`` (default all).

    Ranked by plausibility as an identifier (see :mod:`.plausibility`), then fewest columns,
    keys without missing values and shortest values. ``plausible_only`` leaves out keys whose
    uniqueness looks accidental (their number is reported).
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
        # the in-memory search decides keys of three columns or more, and any search the
        # lattice would refuse; pairs-only searches keep the lattice's bulk pair checks
        combinations = count_candidates(len(positions), max_columns)
        hybrid = max_columns >= 3 or combinations > MAX_CANDIDATES
        stats = column_stats(table, positions, code=hybrid)
        declared = declared_keys(metadata, stats, positions, nulls)
        heartbeat.phase(40.0, 100.0, "searching keys")
        found, checked = _search(
            table, stats, positions, max_columns, nulls, context, heartbeat, notes, declared, hybrid
        )
    if not stats.rows:
        notes.append(
            "the source has no rows, so every column is trivially unique; no key is reported"
        )
    sampled = sorted({p for key in found for p in key})
    kinds: dict[int, ColumnKind] = {}
    if sampled:
        rows = table.query(
            f"SELECT {sampled_list(table, sampled)} FROM {table.relation} LIMIT {_KIND_SAMPLE}"
        )
        kinds = {p: column_kind([r[i] for r in rows]) for i, p in enumerate(sampled)}
    keys: list[Key] = []
    for key in found:
        has_missing = any(stats.missing[p] for p in key)
        judgement = judge_key(
            [table.names[p] for p in key],
            [kinds[p] for p in key],
            [stats.average_length[p] for p in key],
            [stats.estimated_distinct[p] / stats.rows if stats.rows else 0.0 for p in key],
            has_missing,
        )
        keys.append(
            Key(
                columns=tuple(table.names[p] for p in key),
                has_missing=has_missing,
                average_length=round(sum(stats.average_length[p] for p in key), 2),
                score=judgement.score,
                confidence=judgement.confidence,
                reasons=judgement.reasons,
                basis="declared" if key in declared else "scanned",
            )
        )
    left_out = 0
    if plausible_only:
        kept = [k for k in keys if k.score >= PLAUSIBLE]
        left_out = len(keys) - len(kept)
        keys = kept
    keys.sort(key=lambda k: (-k.score, len(k.columns), k.has_missing, k.average_length, k.columns))
    return KeySearch(
        source=table.label,
        rows=stats.rows,
        searched_columns=tuple(table.names[p] for p in positions),
        max_columns=max_columns,
        keys=tuple(keys),
        candidates_checked=checked[0],
        full_checks=checked[1],
        notes=tuple(notes),
        implausible_left_out=left_out,
        metadata=metadata,
        declared_used=len(declared),
        missing=tuple(
            stats.missing[p] if p in set(positions) else None for p in range(len(table.names))
        ),
    )


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


def _search(
    table: Table,
    stats: ColumnStats,
    positions: Sequence[int],
    max_columns: int,
    nulls: Nulls,
    context: ToolContext,
    heartbeat: Heartbeat,
    notes: list[str],
    declared: Sequence[tuple[int, ...]],
    hybrid: bool,
) -> tuple[list[tuple[int, ...]], tuple[int, int]]:
    """The minimal keys, and how many candidates were decided and checked over every row.

    With ``hybrid``, coded sources (every searched column held as codes) are searched in
    memory by :mod:`.keysearch`; others walk the lattice, each check asking the source (or
    the codes)."""
    if not stats.rows:
        return [], (0, 0)
    wide = len(positions) > EXACT_DISTINCT_COLUMNS
    if hybrid and stats.codes is not None:
        if not wide and not stats.codes.unique(positions, nulls):
            notes.append("all searched columns together hold duplicate rows, so no key exists")
        records = stats.codes.records(positions, nulls)
        fits = count_candidates(len(positions), max_columns) <= MAX_CANDIDATES
        try:
            search = minimal_keys(
                records,
                max_columns,
                context.check_cancelled,
                heartbeat.update,
                CANDIDATES if fits else MOST_CANDIDATES,
            )
            return search.keys, (search.checked, search.checked)
        except TooManyCandidatesError:
            if not fits:
                # past the lattice's own limit there is no other way: the answer (tens of
                # millions of keys) is refused whole rather than exhausting the memory
                raise ToolError(
                    f"{len(positions)} columns over {stats.rows} rows leave more than "
                    f"{MOST_CANDIDATES:,} candidate keys of up to {max_columns} columns open "
                    "at once, too many to check and list; name fewer columns or lower "
                    "maxColumns",
                    ErrorCode.INVALID_ARGUMENT,
                ) from None
            # sampled row pairs left most combinations open: the lattice decides them in
            # bulk over the same codes (column pairs as array work)
            heartbeat.update(0.0, "deciding combinations in bulk")
    oracle = UniquenessOracle(
        table, nulls, context, rows=stats.rows, columns=positions, stats=stats
    )
    for key in declared:
        # a declared key is unique without a scan: the search never checks it nor, by
        # monotonicity, any set holding it
        oracle.record(key, True)
    if not wide and stats.codes is None:
        oracle.search_relation()  # copy once now, so the samples are random ones
        if not oracle.decide([tuple(sorted(positions))])[0]:
            notes.append("all searched columns together hold duplicate rows, so no key exists")
    levels = min(max_columns, len(positions))

    def progress(size: int, candidates: int) -> None:
        heartbeat.update((size - 1) / levels, f"checking {candidates} sets of {size} columns")

    found = minimal_unique_sets(oracle, positions, max_columns, context, progress)
    return found, (oracle.decided, oracle.full_checks)
